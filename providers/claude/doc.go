// Package claude drives Claude Code through its stream-json mode:
//
//	claude -p --input-format stream-json --output-format stream-json
//	  --verbose --include-partial-messages --permission-prompt-tool stdio
//	  --permission-mode default
//	  [--model M] [--resume SESSION [--fork-session --resume-session-at UUID]]
//
// One CLI process per nexus thread, started on the first turn and kept
// between turns; the handshake is the initialize control request, bounded
// by the handshake deadline.
//
// Mapping:
//   - A turn is a user line; turn.started once it is written.
//   - Text: stream_event deltas, one assistant_message node per text
//     block ("msgid/index"), closed at content_block_stop; a whole
//     assistant message adds only text that was not streamed.
//   - tool_use blocks are nodes (Task and Agent are subagents); nested
//     events carry parent_tool_use_id, which becomes the node parent;
//     tool_result closes the node (failed when is_error) with its output
//     (cut at 16 KiB).
//   - Write, Edit and MultiEdit name the file they write in file_path,
//     NotebookEdit in notebook_path: the tool_result that closes such a
//     call without is_error reports that file on its node
//     (core.Observation.Paths, relative to the workspace; a path outside
//     it is dropped; agentproc.WorkspacePaths), so the run's checkpoint
//     lists it as the agent's. A failed or unanswered write reports
//     none: the kernel then goes by the call's time window.
//   - TodoWrite replaces the todo list; TaskCreate and TaskUpdate (newer
//     CLIs; TodoWrite is disabled there) build it item by item, the task
//     id learned from TaskCreate's result. A subagent's calls (their
//     parent_tool_use_id names its Task or Agent call) change its own
//     list, which the run's plan shows nested under a "subagent: ..."
//     line, one core.PlanItem.Depth deeper (plans.go); before, a
//     subagent's TodoWrite replaced the main agent's list. ExitPlanMode's
//     plan (plan mode) becomes the run's proposed plan
//     (core.ProposedPlanID): its markdown list items, else its lines.
//   - can_use_tool becomes an approval (Bash is action "command"; Write,
//     Edit, MultiEdit, NotebookEdit are "write"), or a question for
//     AskUserQuestion; the answer goes back as behavior allow (with
//     updatedInput, plus answers{question: answer} for questions; one line
//     per question when there are several) or deny. Actions the thread
//     allows are allowed without asking (see Policy). Any other control
//     request is answered with an error so the CLI never waits on nexus.
//     control_cancel_request withdraws the request.
//   - result is the usage of the turn (an llm observation with tokens,
//     cache tokens counted as input, total_cost_usd and duration) and ends
//     it: success completes, an interrupt ends it interrupted, anything
//     else fails it with the CLI's text.
//   - system/init carries the session id: the native ref.
//
// # Policy
//
// The CLI runs in default permission mode whatever the user's settings
// say (their defaultMode), so it asks nexus (can_use_tool) before every
// edit and command; nexus answers by the thread's allow list (the
// profile's approval, --yes, "allow always"):
//
//	policy          nexus allows itself         the person is asked about
//	ask             nothing                     every Write/Edit/Bash
//	allow-writes    Write, Edit, MultiEdit,     Bash
//	                NotebookEdit
//	allow-commands  Bash                        the edits
//	allow-all       both                        nothing
//
// An edit whose file is outside the workspace (its file_path or
// notebook_path, relative to the workspace, ".." and symlinks resolved;
// agentproc.Confine) is denied at once under every policy, with a
// warning on the thread; one that names no file is asked about even
// when edits are allowed. Claude Code has no sandbox here: a command it
// is allowed to run can write wherever the user can, and nexus cannot
// see where. Allow rules in the user's own Claude settings still apply:
// the CLI does not ask about what they allow.
//
// Steering is a user line sent mid-turn. The CLI (2.1.x) answers each
// user line with a result of its own, so the turn ends when every line it
// was sent has its result; if the CLI folded the steering message into the
// turn it just ended, no further result comes, and the turn ends
// steerWindow (3 s) after the last result with no new activity.
//
// Interrupt is the interrupt control request; the CLI ends the turn with
// error_during_execution and stays usable. Stop sends it too, closes
// stdin, then escalates (agentproc).
//
// Recovery: a new process starts with --resume and the session id from
// the journal; if the CLI refuses it (it exits: "No conversation found"),
// the turn goes on in a new session that is given the journaled history,
// with a warning on the thread.
//
// Fork and rollback (Caps.Fork): when a turn ends, the uuid of its last
// main-chain message (assistant or user, not a subagent's) is reported as
// the attempt's native turn. A fork at run N, and a rollback to run N, go
// on in a fork of the session through run N's last message: the next turn
// starts the CLI with --resume SESSION --fork-session --resume-session-at
// UUID (a hidden flag of 2.1.x) and sends only the new message; init then
// names the new session. The old session is left as it was. If the CLI
// refuses, the turn goes on in a new session given the history, with a
// warning.
//
// Malformed output: session.line maps one stdout line with no process
// behind it (control responses go to a lineWriter), and FuzzClaudeFrames
// drives it with arbitrary lines. No line may panic it; every control
// request is answered at once or becomes exactly one request, and
// allowing it sends back the very input the CLI asked about; token counts
// are kept within [0, 2^40] and cost and duration are never negative;
// titles and tool output are cut on a rune boundary.
//
// Requests do not survive the process (DurableRequests false): a host
// that exits with a pending approval leaves it not_resumable. Keep a host
// running (`nexus serve` or the TUI) to answer external agents.
package claude
