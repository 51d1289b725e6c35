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
