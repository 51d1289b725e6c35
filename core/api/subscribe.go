package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// subBuffer is how many events a subscription holds for its reader.
const subBuffer = 1024

// lagTimeout is how long a full buffer waits for the reader before
// the subscription ends with core.ErrLagged (the reader resubscribes from
// the last seq it saw). Waiting, rather than ending at once, rides out a
// short stall without a resubscribe. A variable for tests.
var lagTimeout = 5 * time.Second

// Subscribe implements core.Backend on a connection of its own. The
// subscription ends, closing Events, when ctx ends (Err is ctx.Err()), the
// Client is closed (ErrClosed), the reader falls behind (core.ErrLagged),
// or the host stops or goes away (an error wrapping ErrHostGone).
func (c *Client) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	line, err := encodeRequest("1", MethodSubscribe, subscribeParams{From: from})
	if err != nil {
		return nil, err
	}
	nc, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	lr := newLineReader(nc, MaxResponseBytes)
	in, poisoned, err := roundTrip(ctx, nc, lr, line, "1", MethodSubscribe)
	if err == nil && poisoned {
		err = fmt.Errorf("api: %s: %w", MethodSubscribe, ctx.Err())
	}
	if err == nil && in.Error != nil {
		err = remoteError(in.Error)
	}
	var res subscribeResult
	if err == nil {
		if jerr := json.Unmarshal(in.Result, &res); jerr != nil {
			err = fmt.Errorf("api: the host sent a bad subscribe result: %w", jerr)
		}
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	if res.State != nil {
		res.State.Reindex()
	}
	s := &subscription{nc: nc, events: make(chan core.Event, subBuffer), quit: make(chan struct{})}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		nc.Close()
		return nil, ErrClosed
	}
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { s.stop(ctx.Err()) })
	go s.run(lr, func() {
		stop()
		c.mu.Lock()
		delete(c.subs, s)
		c.mu.Unlock()
	})
	return &core.Subscription{State: res.State, Events: s.events, Err: s.Err}, nil
}

// subscription reads one subscription's connection. Its goroutine (run)
// is the only sender on events and closes it on the way out.
type subscription struct {
	nc     net.Conn
	events chan core.Event

	once sync.Once
	quit chan struct{} // closed by stop

	mu     sync.Mutex
	reason error // why it is ending: the first stop wins over a read error
	err    error // published when events is closed
}

// stop ends the subscription with err unless it is already ending.
func (s *subscription) stop(err error) {
	s.mu.Lock()
	if s.reason == nil {
		s.reason = err
	}
	s.mu.Unlock()
	s.once.Do(func() { close(s.quit) })
	s.nc.Close()
}

// Err says why Events was closed; nil while it is open.
func (s *subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *subscription) run(lr *lineReader, done func()) {
	var err error
	defer func() {
		s.nc.Close()
		s.mu.Lock()
		if s.reason == nil {
			s.reason = err
		}
		s.err = s.reason
		s.mu.Unlock()
		done()
		close(s.events)
	}()
	for {
		line, rerr := lr.next()
		if rerr != nil {
			err = fmt.Errorf("%w: the subscription's connection closed: %v", ErrHostGone, cause(rerr))
			return
		}
		var in incoming
		if jerr := json.Unmarshal(line, &in); jerr != nil {
			err = fmt.Errorf("api: the host sent a line that is not JSON-RPC: %w", jerr)
			return
		}
		switch in.Method {
		case NotifyEvent:
			var ev core.Event
			if jerr := json.Unmarshal(in.Params, &ev); jerr != nil {
				err = fmt.Errorf("api: the host sent a bad event: %w", jerr)
				return
			}
			if err = s.deliver(ev); err != nil {
				return
			}
		case NotifyEnd:
			var p endParams
			json.Unmarshal(in.Params, &p)
			err = endError(p)
			return
		}
	}
}

// deliver hands ev to the reader, waiting up to lagTimeout when the
// buffer is full.
func (s *subscription) deliver(ev core.Event) error {
	select {
	case s.events <- ev:
		return nil
	default:
	}
	t := time.NewTimer(lagTimeout)
	defer t.Stop()
	select {
	case s.events <- ev:
		return nil
	case <-s.quit:
		return ErrClosed // replaced by the stop reason
	case <-t.C:
		return core.ErrLagged
	}
}

// endError turns the host's "end" notification into the subscription's Err.
func endError(p endParams) error {
	switch p.Reason {
	case EndLagged:
		return core.ErrLagged
	case EndStopped:
		return fmt.Errorf("%w: %s", ErrHostGone, p.Error)
	default:
		return fmt.Errorf("api: the host ended the subscription: %s", p.Error)
	}
}
