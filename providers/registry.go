package providers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/nexus-tui/nexus/core"
)

// Profile is a named provider configuration.
type Profile struct {
	Name        string
	Kind        string // builtin, acp, codex, claude, shell
	Description string
	Caps        core.Capabilities
	// Allow is what new threads of this profile run without asking
	// (core.Command.Allow): the approval policy of a config-file profile.
	// The edge applies it when it creates a thread; nil asks.
	Allow []string
	// BudgetUSD and MaxTokens are a new thread's budget when its creator
	// gives none (a config-file profile's budget_usd, max_tokens).
	BudgetUSD float64
	MaxTokens int
	// New builds the provider; it is called once per host, on first use.
	New func(ctx context.Context, sink Sink) Provider
}

// Registry maps profile names to profiles and owns the live providers.
type Registry struct {
	mu       sync.Mutex
	profiles map[string]Profile
	live     map[string]Provider
	ctx      context.Context
	sink     Sink
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{profiles: map[string]Profile{}, live: map[string]Provider{}}
}

// Add registers a profile.
func (r *Registry) Add(p Profile) { r.profiles[p.Name] = p }

// Lookup returns a profile by name, with a clear error naming the known
// ones when it does not exist.
func (r *Registry) Lookup(name string) (Profile, error) {
	p, ok := r.profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown provider %q: use one of %s", name, strings.Join(r.Names(), ", "))
	}
	return p, nil
}

// Names lists the profiles, sorted.
func (r *Registry) Names() []string {
	var out []string
	for n := range r.profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Bind sets where providers report and the context they live in. Call it
// once, before Exec.
func (r *Registry) Bind(ctx context.Context, sink Sink) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx, r.sink = ctx, sink
}

// Exec routes an effect to its provider, starting the provider on first
// use. An effect for an unknown provider ends the turn with a clear error
// instead of hanging it.
func (r *Registry) Exec(e core.Effect) {
	r.mu.Lock()
	p := r.live[e.Provider]
	if p == nil {
		prof, ok := r.profiles[e.Provider]
		if ok && r.sink != nil {
			p = prof.New(r.ctx, r.sink)
			r.live[e.Provider] = p
		}
	}
	sink, ctx := r.sink, r.ctx
	r.mu.Unlock()
	if p != nil {
		p.Handle(e)
		return
	}
	if sink != nil && e.Kind == core.EffStartTurn {
		go func() {
			_ = sink.Observe(ctx, core.Observation{Kind: core.ObsTurnEnded, Thread: e.Thread, Run: e.Run,
				Attempt: e.Attempt, TurnStatus: core.AttemptFailed,
				Error: fmt.Sprintf("provider %q is not configured on this host", e.Provider)})
		}()
	}
}

// Close stops every live provider.
func (r *Registry) Close() {
	r.mu.Lock()
	live := r.live
	r.live = map[string]Provider{}
	r.mu.Unlock()
	for _, p := range live {
		p.Close()
	}
}

// Terminal finds the live PTY of a thread among the providers started so
// far. A provider not started yet runs nothing, so it has none:
// core.ErrNoTerminal, as for a thread whose provider has no PTY or whose
// process has exited.
func (r *Registry) Terminal(thread string) (Terminal, error) {
	r.mu.Lock()
	names := make([]string, 0, len(r.live))
	for n := range r.live {
		names = append(names, n)
	}
	sort.Strings(names) // the same answer every time, should two have one
	var ts []Terminals
	for _, n := range names {
		if t, ok := r.live[n].(Terminals); ok {
			ts = append(ts, t)
		}
	}
	r.mu.Unlock()
	for _, t := range ts {
		if term, ok := t.Terminal(thread); ok {
			return term, nil
		}
	}
	return nil, core.ErrNoTerminal
}
