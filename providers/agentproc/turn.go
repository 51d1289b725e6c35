package agentproc

import (
	"fmt"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Turn is the attempt a session is serving: every observation it posts is
// stamped with the attempt, and each one feeds the silence watchdog.
type Turn struct {
	E     core.Effect // the start_turn effect
	out   *Emitter
	dog   *Watchdog
	mu    sync.Mutex
	ended bool
}

// NewTurn starts serving an attempt. silence > 0 arms a watchdog that
// warns on the thread when the agent sends nothing for that long.
func NewTurn(e core.Effect, out *Emitter, name string, silence time.Duration) *Turn {
	t := &Turn{E: e, out: out}
	t.dog = NewWatchdog(silence, func(d time.Duration) {
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf(
			"%s has sent nothing for %s; it may be stuck: interrupt it with `nexus interrupt %s`", name, d, e.Thread)})
	})
	return t
}

// Obs stamps and posts an observation of this turn. After End it posts
// nothing: the attempt is over for the kernel too.
func (t *Turn) Obs(o core.Observation) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	o.Thread, o.Run, o.Attempt = t.E.Thread, t.E.Run, t.E.Attempt
	if o.Kind != core.ObsWarning {
		t.dog.Kick()
	}
	t.out.Post(o)
}

// Kick tells the watchdog the agent is alive (a frame that maps to no
// observation, such as a keep-alive or a usage update).
func (t *Turn) Kick() { t.dog.Kick() }

// End reports turn.ended once; later calls do nothing.
func (t *Turn) End(status core.AttemptStatus, errText string) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.mu.Unlock()
	t.dog.Stop()
	t.out.Post(core.Observation{Kind: core.ObsTurnEnded, Thread: t.E.Thread, Run: t.E.Run, Attempt: t.E.Attempt,
		TurnStatus: status, Error: errText})
}

// Ended reports whether End was called.
func (t *Turn) Ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// Watchdog calls fire when Kick was not called for d; it fires once per
// silence and re-arms at the next Kick. d <= 0 disables it.
type Watchdog struct {
	mu      sync.Mutex
	d       time.Duration
	timer   *time.Timer
	fire    func(time.Duration)
	stopped bool
}

// NewWatchdog arms a watchdog.
func NewWatchdog(d time.Duration, fire func(time.Duration)) *Watchdog {
	w := &Watchdog{d: d, fire: fire}
	if d > 0 {
		w.timer = time.AfterFunc(d, w.bark)
	}
	return w
}

func (w *Watchdog) bark() {
	w.mu.Lock()
	stopped := w.stopped
	w.mu.Unlock()
	if !stopped {
		w.fire(w.d)
	}
}

// Kick re-arms the watchdog.
func (w *Watchdog) Kick() {
	if w.d <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.timer.Reset(w.d)
	}
}

// Stop disarms it for good.
func (w *Watchdog) Stop() {
	if w.d <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}
