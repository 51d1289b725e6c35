package agentproc

import (
	"context"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
)

// Session is one agent process (or protocol session) serving one nexus
// thread. The Runtime calls Handle and Stop one at a time, in effect
// order, on the session's own goroutine, so a session needs a lock only
// for what its stdout reader shares with it.
type Session interface {
	// Handle runs one effect. It may block for a bounded time (starting
	// the process and its handshake have deadlines); it reports through
	// the Emitter it was built with.
	Handle(e core.Effect)
	// Stop ends the agent (protocol cancel, SIGTERM, SIGKILL on
	// deadlines), reports the session STOPPED with the reason, and
	// returns once the process is reaped. Later effects start a new one.
	Stop(reason string)
}

// Runtime is a providers.Provider that runs one Session per nexus thread.
type Runtime struct {
	caps   core.Capabilities
	newSes func(thread string, out *Emitter) Session
	out    *Emitter
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	actors map[string]*actor
	wg     sync.WaitGroup
}

// NewRuntime returns a provider whose sessions newSession builds.
func NewRuntime(ctx context.Context, sink providers.Sink, caps core.Capabilities,
	newSession func(thread string, out *Emitter) Session) *Runtime {
	ctx, cancel := context.WithCancel(ctx)
	return &Runtime{caps: caps, newSes: newSession, out: &Emitter{sink: sink, ctx: ctx}, ctx: ctx, cancel: cancel,
		actors: map[string]*actor{}}
}

// Capabilities implements providers.Provider.
func (r *Runtime) Capabilities() core.Capabilities { return r.caps }

// Handle implements providers.Provider: the effect is queued for its
// thread's session, never blocking the caller.
func (r *Runtime) Handle(e core.Effect) {
	r.mu.Lock()
	a := r.actors[e.Thread]
	if a == nil {
		if e.Kind == core.EffStopSession {
			r.mu.Unlock()
			// Nothing runs for this thread here: the session is stopped.
			r.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: e.Thread, SessionState: core.SessStopped,
				Text: "no process was running"})
			return
		}
		if r.ctx.Err() != nil {
			r.mu.Unlock()
			return
		}
		a = newActor(r.newSes(e.Thread, r.out))
		r.actors[e.Thread] = a
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			a.loop()
		}()
	}
	r.mu.Unlock()
	if e.Kind == core.EffStopSession {
		a.push(func() { a.ses.Stop("stopped: " + orText(e.Text, "the session was stopped")) })
		return
	}
	a.push(func() { a.ses.Handle(e) })
}

// Session returns the session serving thread, or nil when no effect has
// reached this runtime for it (or the runtime is closed). The session may
// have no process right now: it starts one on its next turn.
func (r *Runtime) Session(thread string) Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a := r.actors[thread]; a != nil {
		return a.ses
	}
	return nil
}

// Close implements providers.Provider: every session is stopped and
// reaped before it returns.
func (r *Runtime) Close() {
	r.cancel()
	r.mu.Lock()
	actors := r.actors
	r.actors = map[string]*actor{}
	r.mu.Unlock()
	for _, a := range actors {
		a.push(func() { a.ses.Stop("host stopped") })
		a.close()
	}
	r.wg.Wait()
}

func orText(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// actor runs a session's calls in order on one goroutine, with an
// unbounded queue so Handle never blocks.
type actor struct {
	ses    Session
	mu     sync.Mutex
	q      []func()
	wake   chan struct{}
	closed bool
}

func newActor(s Session) *actor { return &actor{ses: s, wake: make(chan struct{}, 1)} }

func (a *actor) push(f func()) {
	a.mu.Lock()
	if !a.closed {
		a.q = append(a.q, f)
	}
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *actor) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *actor) loop() {
	for {
		a.mu.Lock()
		if len(a.q) == 0 {
			closed := a.closed
			a.mu.Unlock()
			if closed {
				return
			}
			<-a.wake
			continue
		}
		f := a.q[0]
		a.q = a.q[1:]
		a.mu.Unlock()
		f()
	}
}

// Emitter reports observations to the kernel.
type Emitter struct {
	sink providers.Sink
	ctx  context.Context
}

// NewEmitter returns an emitter on a sink (tests and custom runtimes).
func NewEmitter(ctx context.Context, sink providers.Sink) *Emitter {
	return &Emitter{sink: sink, ctx: ctx}
}

// Post queues an observation; it blocks only while the kernel's inbox is
// full, and gives up when the host stops.
func (m *Emitter) Post(o core.Observation) { _ = m.sink.Observe(m.ctx, o) }

// Done reports an effect's outcome (effect.done).
func (m *Emitter) Done(e core.Effect, status core.EffectStatus, text string) {
	m.Post(core.Observation{Kind: core.ObsEffectDone, Thread: e.Thread, Run: e.Run, Attempt: e.Attempt,
		Key: e.Key, EffectStatus: status, Text: text})
}

// Ended reports that a thread's agent process is gone, through legal
// registry transitions: STOPPING, then STOPPED (asked for) or FAILED (it
// died or never came up), each with the reason. The kernel ends a turn
// still running on a FAILED or STOPPED session with the reason as error.
func (m *Emitter) Ended(thread, run, reason string, failed bool) {
	m.Post(core.Observation{Kind: core.ObsSessionState, Thread: thread, Run: run, SessionState: core.SessStopping, Text: reason})
	st := core.SessStopped
	if failed {
		st = core.SessFailed
	}
	m.Post(core.Observation{Kind: core.ObsSessionState, Thread: thread, Run: run, SessionState: st, Text: reason})
}

// Sink returns the sink the emitter reports to.
func (m *Emitter) Sink() providers.Sink { return m.sink }

// Context is the provider's context: it ends when the host stops.
func (m *Emitter) Context() context.Context { return m.ctx }

// NopSink drops every observation (handshake checks).
type NopSink struct{}

// Observe implements providers.Sink.
func (NopSink) Observe(context.Context, core.Observation) error { return nil }

// Record implements providers.Sink.
func (NopSink) Record(context.Context, core.Observation) error { return nil }
