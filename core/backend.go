package core

import (
	"context"
	"errors"
)

// Backend is what the CLI and the TUI talk to: the Runner in the host
// process, or api.Client over the state dir's socket. Both behave the same.
type Backend interface {
	// Submit decides, journals (fsync) and applies a command, and returns
	// its receipt. A command id seen before returns the first receipt and
	// journals nothing. A refused input returns *InputError. An error
	// matching ErrQueued means the command is kept and will be decided
	// later (no host runs its project now): do not send it again.
	Submit(ctx context.Context, cmd Command) (*Receipt, error)
	// State returns a consistent projection.
	State(ctx context.Context) (*State, error)
	// Subscribe with from == 0 returns a consistent projection plus every
	// event after its seq; with from > 0 it returns no projection and every
	// event from seq `from` on. No gap, no duplicate, in order.
	Subscribe(ctx context.Context, from uint64) (*Subscription, error)
}

// Subscription is a live event feed. Events is closed when the context
// ends, the backend stops, or the subscriber fell too far behind; Err says
// which.
type Subscription struct {
	State  *State
	Events <-chan Event
	Err    func() error
}

// ErrQueued is matched by the error of a Submit whose command was kept
// for later rather than decided: a team project's command while no host
// holds the project waits on the hub and runs when one does. The
// command is not lost and must not be sent again.
var ErrQueued = errors.New("core: the command is queued; it runs when a host takes its project")

// ErrLagged ends a subscription whose reader fell too far behind; the
// reader resubscribes from the last seq it saw.
var ErrLagged = lagged{}

type lagged struct{}

func (lagged) Error() string { return "core: subscriber fell behind; resubscribe from the last seq" }
