package builtin

import (
	"context"
	"os"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/builtin/llm"
)

// Caps is what the built-in agent can do. NoSteerCaps is the
// builtin:nosteer profile: the same agent declaring no steering, so the
// kernel takes the restart_active path.
var (
	Caps = core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Approvals: true,
		UserInput: true, Plans: true, Subagents: true, DurableRequests: true}
	NoSteerCaps = func() core.Capabilities { c := Caps; c.Steer = false; return c }()
)

// Config is what the built-in agent runs with.
type Config struct {
	Caps core.Capabilities
	// Exec runs worker steps (the host's worker pool).
	Exec Executor
	// Model builds the model client for a turn (default: the sim model).
	Model func() llm.Client
}

// Profiles returns the built-in profiles: the agent on the sim model
// (builtin), the same declaring no steering (builtin:nosteer), and the
// agent on a real model (builtin:openai, builtin:anthropic), which needs
// its API key in the environment.
func Profiles(exec Executor) []providers.Profile {
	mk := func(name, desc string, caps core.Capabilities, model func() llm.Client) providers.Profile {
		return providers.Profile{Name: name, Kind: "builtin", Caps: caps, Description: desc,
			New: func(ctx context.Context, s providers.Sink) providers.Provider {
				return New(ctx, s, Config{Caps: caps, Exec: exec, Model: model})
			}}
	}
	sim := func() llm.Client { return llm.Sim{} }
	return []providers.Profile{
		mk("builtin", "built-in agent on the offline sim model", Caps, sim),
		mk("builtin:nosteer", "built-in agent declaring no steering (follow-ups restart the turn)", NoSteerCaps, sim),
		mk("builtin:openai", "built-in agent on OpenAI chat completions (OPENAI_API_KEY, OPENAI_BASE_URL, NEXUS_OPENAI_MODEL)", Caps,
			envClient(func() (llm.Client, error) { return llm.NewOpenAI(os.Getenv("NEXUS_OPENAI_MODEL")) })),
		mk("builtin:anthropic", "built-in agent on the Anthropic messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, NEXUS_ANTHROPIC_MODEL)", Caps,
			envClient(func() (llm.Client, error) { return llm.NewAnthropic(os.Getenv("NEXUS_ANTHROPIC_MODEL")) })),
	}
}

// envClient builds a client from the environment at each turn; a missing
// key becomes a client whose every call fails saying so.
func envClient(mk func() (llm.Client, error)) func() llm.Client {
	return func() llm.Client {
		c, err := mk()
		if err != nil {
			return failing{err}
		}
		return c
	}
}

type failing struct{ err error }

func (f failing) Name() string { return "unconfigured" }

func (f failing) Complete(context.Context, llm.Request, func(string)) (llm.Response, error) {
	return llm.Response{}, f.err
}

// Agent is the built-in agent: one goroutine per running turn, all state
// it needs comes in the start_turn effect (built from the journal), so a
// turn can be resumed in any later process.
type Agent struct {
	caps   core.Capabilities
	exec   Executor
	model  func() llm.Client
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
func New(ctx context.Context, sink providers.Sink, cfg Config) *Agent {
	ctx, cancel := context.WithCancel(ctx)
	if cfg.Model == nil {
		cfg.Model = func() llm.Client { return llm.Sim{} }
	}
	return &Agent{caps: cfg.Caps, exec: cfg.Exec, model: cfg.Model, sink: sink, ctx: ctx, cancel: cancel, turns: map[string]*turn{}}
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
			a.done(e, core.EffMissed, "the turn had already ended")
			return
		}
		t.steer <- e.Text
		a.done(e, core.EffCompleted, "")
	case core.EffAnswer:
		if t := a.turn(e.Attempt); t != nil && e.Request != nil {
			t.answers <- *e.Request
		}
		a.done(e, core.EffCompleted, "")
	case core.EffInterrupt:
		if t := a.turn(e.Attempt); t != nil {
			t.cancel()
		}
		a.done(e, core.EffCompleted, "")
	case core.EffStopSession:
		a.mu.Lock()
		for _, t := range a.turns {
			if t.e.Thread == e.Thread {
				t.cancel()
			}
		}
		a.mu.Unlock()
		a.post(core.Observation{Kind: core.ObsSessionState, Thread: e.Thread, SessionState: core.SessStopped, Text: "stopped"})
	}
}

func (a *Agent) turn(attempt string) *turn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turns[attempt]
}

func (a *Agent) done(e core.Effect, status core.EffectStatus, text string) {
	a.post(core.Observation{Kind: core.ObsEffectDone, Thread: e.Thread, Run: e.Run, Attempt: e.Attempt,
		Key: e.Key, EffectStatus: status, Text: text})
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
