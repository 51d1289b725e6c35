package core

import (
	"context"
	"errors"
)

// Terminals is what a Backend also offers when its host runs PTY sessions
// (the shell provider's programs, an ACP agent's commands): the live byte stream of a thread's terminal, keys
// typed into it and its size. None of it is journaled: a terminal is live
// I/O, like tmux. What a turn typed and read is journaled as the run's
// text, as before. The TUI type-asserts its Backend to Terminals.
type Terminals interface {
	// AttachTerminal follows the thread's PTY. The first chunk is a
	// Reset carrying the recent output (enough to redraw the screen) and
	// the PTY's size; later chunks carry the bytes that followed, in
	// order, coalesced. A reader that falls too far behind gets a new
	// Reset instead of the bytes it missed. Chunks is closed when the
	// child exits (Err returns ErrTerminalExited), the context ends, or
	// the host goes away. ErrNoTerminal when the thread has no PTY now.
	AttachTerminal(ctx context.Context, thread string) (*TermFeed, error)
	// TerminalInput writes bytes to the thread's PTY as if typed.
	TerminalInput(ctx context.Context, thread string, data []byte) error
	// ResizeTerminal sets the PTY's size (the child gets SIGWINCH). The
	// last caller wins when several panes show one terminal.
	ResizeTerminal(ctx context.Context, thread string, cols, rows int) error
}

// TermFeed is a live terminal stream.
type TermFeed struct {
	Chunks <-chan TermChunk
	Err    func() error
}

// TermChunk is a piece of a terminal's output. Reset means: forget what
// was shown, the terminal is Cols x Rows, and Data replays its recent
// output from a clean screen.
type TermChunk struct {
	Reset bool   `json:"reset,omitempty"`
	Data  []byte `json:"data,omitempty"`
	Cols  int    `json:"cols,omitempty"`
	Rows  int    `json:"rows,omitempty"`
}

// ErrNoTerminal: the thread has no live PTY (its provider has none, or
// its process has not started or has exited).
var ErrNoTerminal = errors.New("core: the thread has no live terminal; send it a message to start its process")

// ErrTerminalExited ends a TermFeed whose child process exited.
var ErrTerminalExited = errors.New("core: the terminal's process exited")

// MaxTermInput bounds one TerminalInput call (a large paste is split by
// the caller).
const MaxTermInput = 64 << 10
