// Package ptyterm runs a command in a PTY (github.com/creack/pty) and
// serves it as a live terminal (providers.Terminal) that panes attach to,
// type into and resize. The shell provider runs each thread's program in
// one; the acp provider runs each command its agent asks for
// (terminal/create) in one. None of it is journaled: a terminal is live
// I/O, like tmux.
//
// It exports only what both need: Start, the Term (Pump, Exit, Close,
// Send, Snapshot, Foreground, and Attach, Input and Resize of
// providers.Terminal), NewFeed (a follow loop as a core.TermFeed), Text,
// and the sizes.
//
//   - Start runs the command as the leader of a new session (Setsid,
//     Setctty), so also of its own process group (its pid): a caller
//     signals the whole group with kill(-pid). The PTY starts at Cols x
//     Rows (120x40) until a pane resizes it; the caller sets TERM.
//   - The master is non-blocking, so Send's deadline bounds typing into
//     a program that reads nothing instead of hanging its caller.
//     (creack/pty's ioctls go through os.File.Fd, which turns a file
//     blocking for good; Start sizes the PTY through its other end and
//     re-opens the master with a dup, and Resize and Foreground make their
//     ioctls through SyscallConn.)
//   - Pump is the reader: it appends each raw read to a ring of the most
//     recent output (RingSize, 1 MiB, allocated up front; untouched pages
//     cost nothing) with a total byte offset that only grows, wakes every
//     feed through a channel of capacity 1 (a send that never blocks;
//     notices coalesce), then hands the read to the caller's function on
//     the same goroutine (the shell's turn text, the ACP terminal's
//     output). It never waits on a feed. It returns when a read fails: EIO
//     once no process holds the PTY's other end, or the master closed.
//   - Each feed has a goroutine that, when woken, copies everything after
//     its own offset and hands it to its reader as one chunk, at most one
//     chunk per feedGap (4 ms): a flood costs a pane 250 wake-ups a second
//     however small the reads, and an echo after a pause goes at once. A
//     feed whose reader is slow gets bigger chunks; one whose offset fell
//     out of the ring gets a Reset instead: the whole ring and the size.
//     The first chunk of every attach is such a Reset. So a stuck pane
//     costs one parked goroutine, never the program's speed or another
//     pane's (BenchmarkPTYPane in the root package measures it).
//   - A resize (1..providers.MaxTermSize each way) sets the PTY's size
//     (the child gets SIGWINCH) and is kept for later Resets; when the
//     size changes, every feed's next chunk is a Reset at the new size, so
//     each pane learns it: the last resize wins. The same size again does
//     nothing.
//   - Input is written whole (at most core.MaxTermInput bytes, else
//     refused input), one write at a time, within the caller's context.
//     Send is the same without the bound, for what a provider types
//     itself (a turn's message).
//   - Exit, which the caller calls when Pump returned, ends every feed,
//     after its last bytes, with core.ErrTerminalExited; from then on
//     Attach, Input and Resize answer core.ErrNoTerminal. Snapshot (the
//     Reset a new feed would start with) still works, so a caller can
//     keep showing an exited command's last screen (the acp provider
//     does; the shell offers no terminal once its program exited).
//   - Text turns the raw reads into plain text: ANSI sequences stripped
//     (github.com/charmbracelet/x/ansi's Strip) and CRs dropped, so the
//     PTY's CRLF line ends become LF. A lone CR (a progress bar redrawing
//     its line) is dropped too: the redraws run together in the text,
//     while the terminal shows the real screen. A read can end inside an
//     escape sequence or a UTF-8 character: that tail (at most 4 KiB) is
//     held back and joined to the next read. Output with no escape and
//     no byte above 0x7e takes a one-pass fast path, since Text runs on
//     the reader's path.
//
// A feed's goroutine ends with its context or after its reader takes the
// last chunk: a reader must drain Chunks or cancel the context.
package ptyterm
