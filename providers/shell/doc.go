// Package shell runs any interactive command (the user's $SHELL by
// default, or bash, claude or codex interactive, aider) in a PTY
// (github.com/creack/pty, its own session and process group), one per
// nexus thread. It has no structured events: only lifecycle, output and
// input.
//
//   - A turn types the run's message and Enter into the PTY; steering
//     types more (Caps.Steer); interrupt is Ctrl-C.
//   - Output is the turn's text, ANSI sequences stripped, CRs dropped,
//     flushed urgently (it is what a person waits on). The raw stream is
//     the thread's terminal (below).
//   - Needs-input detection, the decision: a turn ends when the output
//     has been idle for Idle (800 ms, NEXUS_SHELL_IDLE) and its last line
//     looks like a prompt (ends in $ # % > : ? or ]). A line that is not a
//     shell prompt (not ending in $ # % >), such as "Continue? [y/N]" or
//     "Password:", also posts a warning that the program waits for input;
//     the turn still completes, and the next message is typed as the
//     answer. So a thread never sits "running" on a program that waits,
//     and the person sees why it stopped. A command line that itself ends
//     in such a character may end a turn early; output that comes later
//     is kept for the next turn.
//   - Ctrl-C then a prompt ends the turn interrupted. The process exiting
//     ends the turn (failed if its status is not 0) and the session
//     (STOPPED, or FAILED with the status).
//   - Stop sends Ctrl-D and SIGHUP, then SIGTERM and SIGKILL to the
//     group on the agentproc deadlines.
//
// # Terminal
//
// The provider implements providers.Terminals: while a thread's process
// runs, its PTY is a live terminal (providers/ptyterm, which has the
// details: the ring of recent output, feeds, Resets, resizes, bounded
// input) that panes attach to, type into and resize (core.Terminals,
// served by the host). None of it is journaled: keys typed into the
// terminal are live input, like tmux; what a turn typed and read stays
// journaled as the run's text, made from the same reads (ptyterm.Text)
// on the PTY's reader. That text is ordinary streamed text: on screen at
// once (node.delta), in the journal coalesced with every other thread's
// text at most a second later or when the turn ends (core's
// TextFlushInterval), never a commit per line.
//
// The PTY starts at 120x40 with TERM=xterm-256color. When the process
// exits, every feed ends, after its last bytes, with
// core.ErrTerminalExited; the thread has no terminal (core.ErrNoTerminal)
// until its next turn starts a process.
package shell
