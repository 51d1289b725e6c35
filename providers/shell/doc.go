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
// runs, its PTY is a live terminal (term.go) that panes attach to, type
// into and resize (core.Terminals, served by the host). None of it is
// journaled: keys typed into the terminal are live input, like tmux; what
// a turn typed and read stays journaled as the run's text.
//
//   - The PTY's reader appends each raw read to a ring of the most recent
//     output (ringSize, 1 MiB) with a total byte offset that only grows,
//     and wakes every feed through a channel of capacity 1 (a send that
//     never blocks; notices coalesce). It never waits on a feed.
//   - Each feed has a goroutine that, when woken, copies everything after
//     its own offset and hands it to its reader as one chunk, at most one
//     chunk per feedGap (4 ms): a flood costs a pane 250 wake-ups a second
//     however small the reads, and an echo after a pause goes at once. A
//     feed whose reader is slow gets bigger chunks; one whose offset fell
//     out of the ring gets a Reset instead: the whole ring and the size.
//     The first chunk of every attach is such a Reset. So a stuck pane
//     costs one parked goroutine, never the program's speed or another
//     pane's (TestTerminalWatchedPaneKeepsPace: `seq 1 200000` with a
//     live and a stuck pane runs within 1.5x of its time in a PTY read
//     and thrown away). The turn's text is made on the reader's path too,
//     so plain has a one-pass fast path for output with no escapes.
//   - A resize (1..providers.MaxTermSize each way) sets the PTY's size
//     (the child gets SIGWINCH) and is kept for later Resets; when the
//     size changes, every feed's next chunk is a Reset at the new size, so
//     each pane learns it: the last resize wins. The same size again does
//     nothing. The PTY starts at 120x40.
//   - Input is written whole (at most core.MaxTermInput bytes, else
//     refused input), one write at a time, within the caller's context: the
//     master is non-blocking, so a program that reads nothing makes the
//     write time out instead of hanging its caller. (creack/pty's ioctls
//     go through os.File.Fd, which turns a file blocking for good; spawn
//     sizes the PTY through its other end and re-opens the master with a
//     dup, and resize makes the same ioctl through SyscallConn.)
//   - When the process exits, every feed ends, after its last bytes, with
//     core.ErrTerminalExited; the thread has no terminal
//     (core.ErrNoTerminal) until its next turn starts a process.
//
// A feed's goroutine ends with its context or after its reader takes the
// last chunk: a reader must drain Chunks or cancel the context.
package shell
