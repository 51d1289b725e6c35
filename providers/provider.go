package providers

import (
	"context"

	"github.com/nexus-tui/nexus/core"
)

// Provider runs the effects addressed to one provider profile.
type Provider interface {
	// Capabilities is what the profile declares; the kernel's capability
	// policy decides from it (steer in place or restart, durable requests).
	Capabilities() core.Capabilities
	// Handle starts an effect. It must not block: long work runs on the
	// provider's own goroutines and reports through the Sink.
	Handle(e core.Effect)
	// Close stops every session of the provider and waits for its
	// goroutines.
	Close()
}

// Sink receives observations; the Runner implements it. Observe queues
// one; Record returns once it is durable (core.ErrNotRecorded when the
// kernel dropped it because its attempt is no longer current), for the
// first phase of a two-phase effect.
type Sink interface {
	Observe(ctx context.Context, o core.Observation) error
	Record(ctx context.Context, o core.Observation) error
}

// Terminal is one live PTY a provider runs for a thread (see core.Terminals
// for what each call means to a person). It is safe for concurrent use.
type Terminal interface {
	// Attach follows the PTY's output: a Reset first, then what follows.
	Attach(ctx context.Context) (*core.TermFeed, error)
	// Input writes bytes to the PTY as if typed (at most core.MaxTermInput).
	Input(ctx context.Context, data []byte) error
	// Resize sets the PTY's size (1..MaxTermSize cells each way).
	Resize(cols, rows int) error
}

// Terminals is implemented by a provider whose threads run in PTYs, or
// whose agents run commands in PTYs (ACP terminals).
type Terminals interface {
	// Terminal returns the thread's live PTY, or false when the provider
	// runs none for it now (never started, or its process exited).
	Terminal(thread string) (Terminal, bool)
}

// MaxTermSize bounds a terminal's columns and rows: a larger PTY is a
// mistake (a pixel size passed as cells), and the emulators behind it
// allocate per cell.
const MaxTermSize = 1000
