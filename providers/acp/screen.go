package acp

import (
	"context"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/ptyterm"
)

// screen is a thread's terminal as panes see it (providers.Terminal):
// the most recent of its session's ACP terminals, live or exited, until
// the session ends. A newer terminal/create takes the screen over: every
// feed's next chunk is that terminal's Reset, so a pane follows the
// agent from command to command without attaching again. A feed whose
// terminal exits stays open on its last screen instead of ending (the
// person reads what the command left); one attached after the exit gets
// that screen (ptyterm.Term.Snapshot). Feeds end with their context, or
// with core.ErrTerminalExited when the session ends (close). Input and
// Resize go to the current terminal; an exited one answers
// core.ErrNoTerminal.
type screen struct {
	mu  sync.Mutex
	cur *ptyterm.Term
	// changed is closed, and replaced, when cur changes or the screen
	// closes: it wakes every feed.
	changed chan struct{}
	closed  bool
}

var _ providers.Terminal = (*screen)(nil)

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

// set makes t the terminal the screen shows.
func (sc *screen) set(t *ptyterm.Term) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return
	}
	sc.cur = t
	close(sc.changed)
	sc.changed = make(chan struct{})
}

// close ends every feed: the session ended.
func (sc *screen) close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return
	}
	sc.closed = true
	close(sc.changed)
}

func (sc *screen) state() (cur *ptyterm.Term, changed <-chan struct{}, closed bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.cur, sc.changed, sc.closed
}

// Attach implements providers.Terminal.
func (sc *screen) Attach(ctx context.Context) (*core.TermFeed, error) {
	if cur, _, closed := sc.state(); closed || cur == nil {
		return nil, core.ErrNoTerminal
	}
	return ptyterm.NewFeed(func(out chan<- core.TermChunk) error { return sc.follow(ctx, out) }), nil
}

// follow shows the current terminal, then each that takes the screen
// over, until ctx ends or the screen closes, and returns why it stopped.
func (sc *screen) follow(ctx context.Context, out chan<- core.TermChunk) error {
	for {
		cur, changed, closed := sc.state()
		if closed {
			return core.ErrTerminalExited
		}
		if err := show(ctx, cur, changed, out); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// show hands t's chunks to out until t exits (after its last byte) or
// changed closes; its error is ctx's only.
func show(ctx context.Context, t *ptyterm.Term, changed <-chan struct{}, out chan<- core.TermChunk) error {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f, err := t.Attach(fctx)
	if err != nil { // it exited: its last screen
		select {
		case out <- t.Snapshot():
			return nil
		case <-changed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		select {
		case c, ok := <-f.Chunks:
			if !ok {
				return ctx.Err() // nil: t exited
			}
			select {
			case out <- c:
			case <-changed:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		case <-changed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Input implements providers.Terminal: keys go to the current terminal.
func (sc *screen) Input(ctx context.Context, data []byte) error {
	cur, _, closed := sc.state()
	if closed || cur == nil {
		return core.ErrNoTerminal
	}
	return cur.Input(ctx, data)
}

// Resize implements providers.Terminal: it sizes the current terminal.
func (sc *screen) Resize(cols, rows int) error {
	cur, _, closed := sc.state()
	if closed || cur == nil {
		return core.ErrNoTerminal
	}
	return cur.Resize(cols, rows)
}
