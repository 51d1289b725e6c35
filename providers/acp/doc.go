// Package acp drives any Agent Client Protocol agent (gemini --acp,
// claude-agent-acp, codex-acp, goose) with github.com/coder/acp-go-sdk
// (Apache-2.0, no dependencies): nexus is the client.
//
// One agent process per nexus thread, holding one ACP session.
// initialize advertises fs.readTextFile, fs.writeTextFile and terminal,
// within the handshake deadline. The session is session/new {cwd}, or on
// recovery session/resume when the agent advertises it, else session/load
// (its replayed history is dropped: no turn listens while it loads, nor
// until the agent has sent nothing for replayQuiet after answering, since
// gemini streams the history after its answer); a refused resume falls
// back to a new session given the journaled history.
//
// Mapping:
//   - session/prompt (blocking) runs on its own goroutine; its stopReason
//     ends the turn: end_turn completes, max_tokens and max_turn_requests
//     complete with a warning, refusal fails, cancelled is interrupted
//     (saying so when the agent ended the turn itself, for one after a
//     denial: codex-acp's only reject option aborts the turn). Its usage
//     (else _meta.quota.token_count, where gemini puts it), plus the cost
//     from usage_update (cumulative, so nexus reports the difference), is
//     the turn's llm observation.
//   - agent_message_chunk streams into one assistant node per message
//     (the messageId, else msgN, a new one after each tool call).
//   - tool_call and tool_call_update are tool nodes; their text is the
//     content: text blocks, diffs (path and new text), and the output of
//     nexus's own terminals.
//   - Tool nodes report the files written for them
//     (core.Observation.Paths, relative to the workspace, paths outside
//     it dropped; agentproc.WorkspacePaths), which the run's checkpoint
//     lists as the agent's: the files nexus wrote through
//     fs/write_text_file while the call was open, and, once a call of
//     kind edit completes, the paths of its locations and diffs (a
//     failed or unfinished edit reports only what nexus wrote: the
//     kernel goes by the call's time window). ACP does not say which
//     call a write is for: it goes on the turn's open edit call whose
//     locations or diffs name the file, else the turn's only open edit
//     call, else on a completed node of its own (key "write:PATH",
//     title "write PATH"); never on a command's node, since a node with
//     paths has no time window and the command's other changes would
//     lose theirs. The SDK handles requests at once and updates in
//     turn, so a write first waits (at most holdMax) for the updates
//     the agent sent before it.
//   - plan replaces the todo list.
//   - session/request_permission becomes an approval (tool kinds edit,
//     delete, move are action "write"; execute is "command"), answered
//     with the matching option (allow_once, allow_always, reject_once,
//     falling back to the nearest kind), or cancelled when the agent
//     offers none of them. See Policy for what nexus answers itself.
//
// # Policy
//
// ACP has no approval policy to send: the agent asks by its own rules
// (its mode, its settings), and nexus answers each permission by the
// thread's allow list (the profile's approval, --yes, "allow always"):
//
//	policy          nexus picks allow_once for   the person is asked about
//	ask             nothing                      every permission
//	allow-writes    edit, delete, move           execute and the rest
//	allow-commands  execute                      edits and the rest
//	allow-all       edit, delete, move, execute  the rest (read, fetch, ...)
//
// allow_once rather than allow_always (unless it is the only allow
// option), so that the agent asks again next time and the thread's
// policy keeps answering. An edit that names a file outside
// the workspace (a location or a diff path; agentproc.Confine) gets
// reject_once (else reject_always, else cancelled) at once under every
// policy, with a warning on the thread. nexus's own fs/write_text_file
// is confined to the workspace besides (Files). An agent that runs its
// commands itself, or asks about edits naming no file, is confined only
// by its own sandbox, if any: nexus cannot see where they write.
//
// Interrupt is session/cancel, after which every pending permission
// request is answered cancelled, as the protocol requires; the prompt then
// returns cancelled. ACP has no steering: the kernel interrupts and
// restarts the turn with the new message (Caps.Steer false).
//
// Files: reads and writes are confined to the thread's workspace
// (absolute paths, symlinks resolved); a missing file reads as empty
// content, not an error, because gemini reads before it writes.
//
// # Terminals
//
// terminal/create runs the command (with args as given, else through
// /bin/sh -c) in a PTY of its own (providers/ptyterm: a new session, so
// its own process group; 120x40; TERM=xterm-256color, then the request's
// env) in the workspace or the request's cwd within it. The agent shows
// terminal/output to its model, so it is plain text: ANSI sequences
// stripped and CRs dropped (CRLF becomes LF; see ptyterm.Text), the
// newest text up to outputByteLimit (1 MiB when unset, at most 16 MiB),
// cut at a character boundary, with truncated set when older text was
// dropped, and the exit status once the command has exited.
// wait_for_exit returns when the command has exited and its output is
// read: the PTY's end, or exitDrain (500 ms) after the exit when a
// process it left behind keeps the PTY open. kill sends SIGKILL to the
// command's process group (and to the PTY's foreground group, should it
// differ); the terminal stays for its output. release kills a command
// that still runs, closes its PTY once it exited (so nothing left behind
// keeps it) and forgets the id. Every terminal is killed when the
// session ends.
//
// The raw bytes go to the PTY's ring, and the provider implements
// providers.Terminals so that panes can show them (core.Terminals via the
// host): a thread's terminal is its session's most recent one, live or
// exited, until the session ends (the agent stops or dies), released or
// not, because a person wants to see the last command's screen, and
// agents release a terminal as soon as they have read it. A newer
// terminal/create takes the same terminal over (its feeds get the new
// command's Reset), and a feed stays open on an exited command's last
// screen, so a pane follows the agent from command to command (screen.go).
// Keys a person types go to the current command; an exited one answers
// ErrNoTerminal. Its stdin being the PTY, as in any terminal, a command
// that reads input (a prompt the agent did not foresee, a pager, an
// editor) waits for it rather than reading end-of-file as it did on
// pipes: a person can answer in the pane, or the agent kills it.
// Caps.PTY stays false: the conversation is not a PTY, and the kernel
// takes a PTY thread for one with no conversation to roll back; the TUI
// shows the transcript by default and the terminal on request
// (tui/doc.go).
//
// Known quirks: codex-acp sends its warnings as agent_message_chunk text,
// so they appear in the reply; it reports no per-turn tokens (usage_update
// carries only the context window's fill). gemini-cli 0.61's session/load
// fails within the minute the session was created (it appends an empty
// recording to the very file it then reads), and with its default
// sessionRetention the next gemini process deletes a loaded session; both
// end in the fallback above. The SDK's SetLogger races with its reader,
// so Attach sets it before the Lifecycle reads the agent's stdout.
//
// Malformed messages: the SDK decodes them into its types without
// checking enums or numbers, so the client checks what it maps.
// FuzzACPFrames feeds the client methods what the SDK decodes from
// arbitrary lines. No message may panic them or leave a permission call
// waiting once its request is answered; the option chosen is one the
// agent offered, of the kind the person asked for (an empty option id is
// still an option); unknown plan statuses are pending; token counts are
// kept within [0, 2^40] and a cumulative cost that goes down adds
// nothing; tool output is cut at 16 KiB on a rune boundary.
//
// Questions (the unstable elicitation extension) and session/fork are not
// used.
package acp
