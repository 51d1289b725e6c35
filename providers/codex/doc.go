// Package codex drives OpenAI Codex through `codex app-server`: JSON-RPC
// over stdio, one JSON object per line, without the "jsonrpc" field.
//
// One app-server per nexus thread, holding one Codex thread. Handshake:
// initialize {clientInfo} within the handshake deadline, then the
// initialized notification. The Codex thread is opened with thread/start
// {cwd, model?} and the thread's policy (below), or on recovery
// thread/resume {threadId} with the native ref from the journal and the
// policy; a refused resume falls back to a new thread given the
// journaled history, with a warning.
//
// Mapping:
//   - turn/start {threadId, input, approvalPolicy, sandboxPolicy} returns
//     the turn id at once; turn/completed ends the turn (completed,
//     interrupted, or failed with the turn's error or the last
//     non-retrying error notification).
//   - item/agentMessage/delta streams text into a node keyed by the item
//     id; item/completed closes it (adding the text only when nothing was
//     streamed).
//   - commandExecution, fileChange, mcpToolCall and webSearch items are
//     tool nodes, completed with their output (exit code, diffs).
//   - A fileChange item that completes with status completed reports the
//     files it changed on its node (core.Observation.Paths): each of its
//     changes[].path and, for an update that moved its file,
//     kind.move_path; relative to the workspace, paths outside it
//     dropped (agentproc.WorkspacePaths). The run's checkpoint lists
//     them as the agent's. A failed or declined patch reports none: the
//     kernel then goes by the item's time window.
//   - item/commandExecution/requestApproval and
//     item/fileChange/requestApproval (and the older execCommandApproval
//     and applyPatchApproval) become approvals answered accept,
//     acceptForSession or decline (approved, approved_for_session, denied
//     for the old ones), unless the thread's policy answers them (below);
//     a patch approval names its files, which nexus takes from its
//     fileChange item's item/started (the request does not name them).
//     item/tool/requestUserInput becomes a question
//     answered {answers: {id: {answers: [text]}}}. Unknown server requests
//     are refused with -32601 so Codex never waits.
//   - turn/plan/updated replaces the todo list; thread/tokenUsage/updated
//     is the usage of each model call (tokens; Codex reports no cost).
//   - warning and configWarning notifications are runtime warnings.
//
// Steering is turn/steer {expectedTurnId} (Caps.Steer): the same turn
// takes the new input. Interrupt is turn/interrupt.
//
// Rollback (Caps.Rollback): every turn/start's turn id is reported with
// turn.started and journaled on the attempt. Rolling a thread back to run
// N records the first removed turn on the provider thread; the next turn
// resumes the thread, calls thread/revert {threadId, beforeTurnId} and
// starts on the same, shortened thread. A refused revert is reported as a
// failed resume (the kernel records the history handoff) and a new thread
// is started with the history up to run N.
//
// Fork (Caps.Fork): a fork of a Codex thread at run N opens its thread at
// its first turn with thread/fork {threadId, lastTurnId, cwd}, through the
// last turn of run N, and sends only the new message; a refused fork is
// a failed resume and a new thread with the history up to run N.
//
// Versions: a method the installed Codex does not know answers -32601.
// Then nexus degrades and says so on the thread: no turn/steer → the
// steer effect ends core.EffUnsupported, and the kernel clears the
// thread's Steer capability and restarts the run with the message (later
// messages restart too); no turn/interrupt →
// the process is stopped, which ends the turn; no thread/resume → a new
// thread with the history; no thread/revert or thread/fork → the same.
//
// Malformed output: session.line maps one stdout line with no process
// behind it (replies go to a lineWriter), and FuzzCodexFrames drives it
// with arbitrary lines. No line may panic it; every server request is
// answered at once or becomes exactly one request; token counts are kept
// within [0, 2^40], so a bad frame cannot lower a thread's totals or its
// spent budget; tool output is cut at 16 KiB on a rune boundary.
//
// # Policy
//
// The thread's policy (its allow list: the profile's approval, --yes,
// "allow always") goes to Codex as its own controls (policy.go), on
// thread/start, thread/resume and thread/fork {approvalPolicy, sandbox:
// "workspace-write", config: sandbox_workspace_write} and again on every
// turn/start {approvalPolicy, sandboxPolicy}:
//
//	policy          approvalPolicy  who answers
//	ask             untrusted       the person, for every command and patch
//	allow-writes    untrusted       nexus accepts patches; commands ask
//	allow-commands  never           nobody: Codex asks nothing
//	allow-all       never           nobody: Codex asks nothing
//
// The sandbox is workspace-write for every policy: the workspace is its
// one writable root (/tmp and $TMPDIR are left read-only, the network
// off), never danger-full-access. Under untrusted, an allowed command
// runs in the sandbox, and if the sandbox stops it Codex runs it again
// outside without asking again: allowing a command trusts it. Under
// never, nothing is approved, so nothing leaves the sandbox, and Codex
// refuses a model's request to escalate. A patch approval whose files
// (or grantRoot) are outside the workspace is declined by nexus at once,
// under every policy, with a warning on the thread; one whose files
// nexus does not know is asked about even when writes are allowed.
//
// These override approval_policy and sandbox_mode in Codex's
// config.toml. Codex reads its model provider from there; nexus passes
// no other configuration of its own besides cwd and NEXUS_CODEX_MODEL.
package codex
