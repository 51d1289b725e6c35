// Package agentproc is what every external agent adapter (claude, codex,
// acp) shares: the agent process, its lifecycle and deadlines, and the
// plumbing from per-thread sessions to the kernel.
//
// # Process
//
// Start runs the agent in its own process group (Setpgid) with stdin and
// stdout on pipes nexus owns, and keeps the last 8 KiB of stderr for error
// messages (ExitReason: "claude exited with status 3: Error: invalid API
// key"). Spec.Home, when set, isolates HOME and the XDG directories (the
// tests use it through the environment instead). A command not on PATH
// fails with ErrNotFound and the profile's install advice; a Spec with
// no command fails saying so ("gemini: no command configured").
//
// Stop escalates on deadlines: the protocol's own cancel (interrupt
// control request, turn/interrupt, session/cancel) and the end of stdin
// get Settings.Grace; then SIGTERM to the group and Settings.Term; then
// SIGKILL. It returns once the leader is reaped, and kills whatever it
// left in its group. Frames are at most MaxFrame (64 MiB) long.
//
// # Sessions and the Runtime
//
// A Session is one agent process serving one nexus thread: the shell
// implements its own, the external agents' is their Lifecycle (below).
// Runtime is the providers.Provider that routes each effect to
// its thread's session. Each session has an actor goroutine with an
// unbounded queue, so Handle never blocks the Runner and effects of one
// thread run in order; start_turn may block that actor for the bounded
// time of a process start and handshake (Settings.Handshake). A stop for
// a thread with no process is answered STOPPED at once. Session(thread)
// returns a thread's session (for the shell's terminals); it outlives its
// process, which the next turn starts again.
//
// # The lifecycle
//
// An external agent's session embeds a Lifecycle, which owns the agent
// process: its start and handshake, the reading of its stdout, the
// garbage-line policy, the report of its end, and Stop. The Lifecycle
// implements Session, so the embedding session is one. The adapter
// supplies only its protocol:
//
//   - Agent: the profile name, the thread, the Settings, and the words
//     its messages use for the protocol (Format, Expected, Ask).
//   - Protocol.Connect: how a new process gets the thread's
//     conversation. It calls Spawn with the command line (claude spawns
//     with --resume, and again without it when that is refused; codex
//     and acp spawn once, then resume, fork or open the conversation
//     over the protocol). Once a Connect has succeeded, later turns go
//     on in the live process without one.
//   - Protocol.Attach: what it binds to a new process (a request table,
//     an SDK connection), returned as a Conn: the handshake
//     (initialize, answered within the deadline), how to handle one
//     stdout line (saying whether it was a line of the protocol), and
//     what to do when stdout ends.
//   - Protocol.Start: how a turn is sent (a user line, turn/start,
//     session/prompt), after resetting its per-turn state and Begin.
//   - Protocol.Apply: the other effects (steer, interrupt, answer).
//   - Protocol.Cancel: how to end a running turn (the first stage of
//     Stop).
//   - Protocol.Detach: what to drop once the process has ended.
//
// Handle, Begin, Spawn and Stop run on the session's actor goroutine
// (Check on its caller's: a check has no actor), and so do the Protocol
// methods but Detach; Turn and Proc may be called from any goroutine.
// The reader goroutine runs the Conn's Line and End, then Detach; the
// handshake runs on a goroutine of its own.
//
// Their order, for one process:
//
//  1. start_turn (Handle): a turn still running ends failed
//     ("superseded"); a new Turn is made; unless the live process holds
//     the conversation, Connect readies a new one. On an error the
//     attempt ends failed and the session is reported FAILED
//     (Emitter.Ended), both with the error, and that is all.
//  2. Spawn (from Connect) starts the process (the function Start),
//     calls Attach, starts the reader goroutine, then runs the Conn's
//     handshake. It ends at the first of: the answer (the session is
//     reported RUNNING, "claude started (pid N)"); a refusal ("claude
//     refused initialize: ..."); garbage on stdout; the process's end
//     ("claude exited with status 3: Error: invalid API key before
//     answering initialize"); the deadline ("claude did not answer
//     initialize within 1m0s; its stderr ends: ..."). A process that
//     ends as it answers fails the start too. A failed start stops the
//     process and waits for its end before Spawn returns.
//  3. Protocol.Start resets its per-turn state, calls Begin (the turn
//     becomes the one warnings, the watchdog and the process's end go
//     to) and sends the turn to the agent. A process that ended between
//     the handshake and Begin fails the turn there, with its exit
//     reason. Later turns find the process live and skip step 2.
//  4. The reader hands each stdout line to the Conn's Line; a line of
//     the protocol is a sign of life for the watchdog. A line longer
//     than MaxFrame, or a read error, is warned about and the process
//     stopped. When stdout ends, the Conn's End runs, the process is
//     reaped and Detach runs.
//  5. An end nobody asked for (no Stop, after the handshake) ends the
//     current turn failed with ExitReason and reports the session
//     STOPPING then FAILED with it. The next turn starts a new process.
//  6. Stop (stop_session, host shutdown, `nexus providers --check`):
//     Cancel if a turn runs, then the escalation above; once the end is
//     handled, the turn ends interrupted and the session is reported
//     STOPPED, both with the reason.
//
// # Garbage lines
//
// A line the Conn's Line does not take is garbage. Before the handshake
// the first one fails the start at once, quoting it: "codex wrote
// something that is not app-server JSON before the handshake: "Welcome
// to codex"; is "codex app-server" really `codex app-server`?". After
// it, the first three lines in a row are warned about on the turn and
// ignored; a line of the protocol resets the count; the MaxGarbage'th
// (50) in a row ends the turn failed, quoting the last one, and stops
// the process, which is then reported FAILED.
//
// # Registry states
//
// The kernel moves a session to STARTING when it starts a turn, RUNNING
// on turn.started, WAITING at turn end and APPROVAL on a request. The
// lifecycle adds, with the reason as text: RUNNING ("claude started (pid
// N)") once the handshake succeeds; STOPPING then FAILED when the process
// dies or never comes up (Emitter.Ended: every journaled change stays a
// legal transition from any live state); STOPPED after a stop_session.
// A turn running on a process that dies is ended failed with ExitReason
// first, so the run's error says why.
//
// # Turns and the watchdog
//
// Turn stamps observations with the attempt, posts turn.ended once, and
// drops anything after it. A Watchdog per turn posts a warning when the
// agent sends nothing for Settings.Silence ("claude has sent nothing for
// 3m0s; it may be stuck: interrupt it with `nexus interrupt T`"); it
// warns once per silence and re-arms on the next frame. Every frame
// counts as life, including ones that map to no observation.
//
// # Deadlines
//
// Handshake bounds a start (default 60 s), Grace and Term a stop, and
// Silence a quiet turn. The host keeps serving other threads meanwhile:
// each thread has its own actor. The deadlines come from the
// environment (SettingsFromEnv): NEXUS_AGENT_HANDSHAKE,
// NEXUS_AGENT_SILENCE (0 disables), NEXUS_AGENT_STOP_GRACE,
// NEXUS_AGENT_STOP_TERM. A profile's command line is overridden by
// NEXUS_<PROFILE>_COMMAND (CommandEnv), words split on spaces, which
// wins over a command from the config file (internal/host).
//
// # Resume refs
//
// The start_turn effect carries the thread's native resume ref in
// core.Turn.NativeRef (the kernel takes it from the journaled
// ProviderThread of the thread's provider, when it is available).
//
// # Written paths
//
// WorkspacePaths turns the files an agent says it wrote into the
// workspace-relative, slash-separated paths a tool call's node reports
// (core.Observation.Paths), at most MaxPaths of them, dropping any
// outside the workspace. The kernel lists them in the run's checkpoint
// as the agent's own; they are used for nothing else.
//
// # Prompts
//
// Prompt builds what an agent is sent: a session that holds the
// conversation (live or resumed) gets only the run's message; a fresh
// session of a thread with history (a failed resume, a provider switch, a
// fork) gets the journaled history first, quoted as such, so nothing
// hidden is added. Recovery and restart attempts also get the run's
// steering messages.
//
// agenttest holds the adapters' test helpers: it builds the scripted
// fake agent (testdata/agents/scripted), starts an adapter on it, plays
// the broken agents of the failure modes above, and records
// observations. The lifecycle's own tests drive a toy protocol on the
// same agent (lifecycle_test.go).
package agentproc
