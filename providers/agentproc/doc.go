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
// fails with ErrNotFound and the profile's install advice.
//
// Stop escalates on deadlines: the protocol's own cancel (interrupt
// control request, turn/interrupt, session/cancel) and the end of stdin
// get Settings.Grace; then SIGTERM to the group and Settings.Term; then
// SIGKILL. It returns once the leader is reaped, and kills whatever it
// left in its group. Frames are at most MaxFrame (64 MiB) long.
//
// # Sessions and the Runtime
//
// An adapter implements Session (one agent process serving one nexus
// thread); Runtime is the providers.Provider that routes each effect to
// its thread's session. Each session has an actor goroutine with an
// unbounded queue, so Handle never blocks the Runner and effects of one
// thread run in order; start_turn may block that actor for the bounded
// time of a process start and handshake (Settings.Handshake). A stop for
// a thread with no process is answered STOPPED at once. Session(thread)
// returns a thread's session (for the shell's terminals); it outlives its
// process, which the next turn starts again.
//
// # Registry states
//
// The kernel moves a session to STARTING when it starts a turn, RUNNING
// on turn.started, WAITING at turn end and APPROVAL on a request. The
// adapters add, with the reason as text: RUNNING ("claude started (pid
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
// # Failure modes and their deadlines
//
//   - Garbage on stdout before the handshake fails the start at once,
//     quoting the line; after it, lines are warned about (the first three)
//     and 50 in a row end the turn and stop the process.
//   - An agent that exits at once fails the start with its exit status
//     and stderr tail; one that never answers initialize fails after
//     Settings.Handshake (default 60 s).
//   - The host keeps serving other threads meanwhile: each thread has its
//     own actor.
//
// Deadlines come from the environment (SettingsFromEnv):
// NEXUS_AGENT_HANDSHAKE, NEXUS_AGENT_SILENCE (0 disables),
// NEXUS_AGENT_STOP_GRACE, NEXUS_AGENT_STOP_TERM. A profile's command line
// is overridden by NEXUS_<PROFILE>_COMMAND (CommandEnv), words split on
// spaces; there is no config file yet.
//
// # Resume refs
//
// The start_turn effect carries the thread's native resume ref in
// core.Turn.NativeRef (the kernel takes it from the journaled
// ProviderThread of the thread's provider, when it is available).
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
// fake agent (testdata/agents/scripted) and records observations.
package agentproc
