package builtin

import (
	"context"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
)

// Caps is what the built-in agent can do. NoSteerCaps is the
// builtin:nosteer profile: the same agent declaring no steering, so the
// kernel takes the restart_active path.
var (
	Caps = core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Approvals: true,
		UserInput: true, Plans: true, Subagents: true, DurableRequests: true}
	NoSteerCaps = func() core.Capabilities { c := Caps; c.Steer = false; return c }()
)

// Profiles returns the built-in profiles.
func Profiles() []providers.Profile {
	return []providers.Profile{
		{Name: "builtin", Kind: "builtin", Caps: Caps,
			Description: "built-in agent on the offline sim model",
			New:         func(ctx context.Context, s providers.Sink) providers.Provider { return New(ctx, s, Caps) }},
		{Name: "builtin:nosteer", Kind: "builtin", Caps: NoSteerCaps,
			Description: "built-in agent declaring no steering (follow-ups restart the turn)",
			New:         func(ctx context.Context, s providers.Sink) providers.Provider { return New(ctx, s, NoSteerCaps) }},
	}
}

// Agent is the built-in agent: one goroutine per running turn, all state
// it needs comes in the start_turn effect (built from the journal), so a
// turn can be resumed in any later process.
type Agent struct {
	caps   core.Capabilities
	sink   providers.Sink
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	turns  map[string]*turn // attempt id -> live turn
	wg     sync.WaitGroup
}

type turn struct {
	e       core.Effect
	cancel  context.CancelFunc
	steer   chan string
	answers chan core.Request
}

// New returns a built-in agent that reports to sink.
func New(ctx context.Context, sink providers.Sink, caps core.Capabilities) *Agent {
	ctx, cancel := context.WithCancel(ctx)
	return &Agent{caps: caps, sink: sink, ctx: ctx, cancel: cancel, turns: map[string]*turn{}}
}

// Capabilities implements providers.Provider.
func (a *Agent) Capabilities() core.Capabilities { return a.caps }

// Handle implements providers.Provider.
func (a *Agent) Handle(e core.Effect) {
	switch e.Kind {
	case core.EffStartTurn:
		a.start(e)
	case core.EffSteer:
		t := a.turn(e.Attempt)
		if t == nil || !a.caps.Steer {
			a.done(e, "missed", "the turn had already ended")
			return
		}
		t.steer <- e.Text
		a.done(e, "completed", "")
	case core.EffAnswer:
		if t := a.turn(e.Attempt); t != nil && e.Request != nil {
			t.answers <- *e.Request
		}
		a.done(e, "completed", "")
	case core.EffInterrupt:
		if t := a.turn(e.Attempt); t != nil {
			t.cancel()
		}
		a.done(e, "completed", "")
	case core.EffStopSession:
		a.mu.Lock()
		for _, t := range a.turns {
			if t.e.Thread == e.Thread {
				t.cancel()
			}
		}
		a.mu.Unlock()
		a.post(core.Observation{Kind: core.ObsSessionState, Thread: e.Thread, Status: core.SessStopped, Text: "stopped"})
	}
}

func (a *Agent) turn(attempt string) *turn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turns[attempt]
}

func (a *Agent) done(e core.Effect, status, text string) {
	a.post(core.Observation{Kind: core.ObsEffectDone, Thread: e.Thread, Run: e.Run, Attempt: e.Attempt,
		Key: e.Key, Status: status, Text: text})
}

func (a *Agent) post(o core.Observation) {
	_ = a.sink.Observe(a.ctx, o)
}

func (a *Agent) start(e core.Effect) {
	ctx, cancel := context.WithCancel(a.ctx)
	t := &turn{e: e, cancel: cancel, steer: make(chan string, 64), answers: make(chan core.Request, 8)}
	a.mu.Lock()
	if old := a.turns[e.Attempt]; old != nil {
		a.mu.Unlock()
		cancel()
		return // the same attempt is already running
	}
	a.turns[e.Attempt] = t
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer cancel()
		a.run(ctx, t)
		a.mu.Lock()
		delete(a.turns, e.Attempt)
		a.mu.Unlock()
	}()
}

// Close implements providers.Provider.
func (a *Agent) Close() {
	a.cancel()
	a.wg.Wait()
}
