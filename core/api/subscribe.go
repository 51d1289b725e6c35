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

// termBuffer is how many chunks a terminal feed holds for its reader. The
// host coalesces what a slow reader has not taken, so a few suffice; a
// chunk can be as large as the host's ring (1 MiB).
const termBuffer = 16

// lagTimeout is how long a full buffer waits for the reader before
// the subscription ends with core.ErrLagged (the reader resubscribes from
// the last seq it saw). Waiting, rather than ending at once, rides out a
// short stall without a resubscribe. A variable for tests.
var lagTimeout = 5 * time.Second

// Subscribe implements core.Backend on a connection of its own. From 0
// its State is never nil: a host that answers without one is an error.
// The subscription ends, closing Events, when ctx ends (Err is
// ctx.Err()), the Client is closed (ErrClosed), the reader falls behind
// (core.ErrLagged), or the host stops or goes away (an error wrapping
// ErrHostGone).
func (c *Client) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	return c.SubscribeOf(ctx, from, StateQuery{})
}

// SubscribeOf is Subscribe whose starting state (from 0) is narrowed by q,
// as StateOf's is; every event still arrives, whole unless q.Watch
// (watch.go).
func (c *Client) SubscribeOf(ctx context.Context, from uint64, q StateQuery) (*core.Subscription, error) {
	var res subscribeResult
	nc, lr, err := c.open(ctx, MethodSubscribe, subscribeParams{From: from, Threads: q.Threads, Brief: q.Brief, Watch: q.Watch}, &res)
	if err != nil {
		return nil, err
	}
	if res.State == nil && from == 0 {
		// Callers build on it (core.Backend): a missing state is the
		// host's fault, to be reported rather than dereferenced.
		nc.Close()
		info := c.Info()
		return nil, fmt.Errorf("api: the host answered a subscribe without its state: "+
			"the host (pid %d, version %q) is broken or of another nexus version; restart it and try again", info.PID, info.Version)
	}
	if res.State != nil {
		res.State.Reindex()
	}
	f, err := startFeed[core.Event](ctx, c, nc, lr, NotifyEvent, subBuffer)
	if err != nil {
		return nil, err
	}
	return &core.Subscription{State: res.State, Events: f.out, Err: f.Err}, nil
}

// open sends a request that turns a new connection into a stream and
// decodes its result; the caller starts the feed that reads the rest.
func (c *Client) open(ctx context.Context, method string, params, result any) (net.Conn, *lineReader, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, nil, ErrClosed
	}
	line, err := encodeRequest("1", method, params)
	if err != nil {
		return nil, nil, err
	}
	nc, err := c.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	lr := newLineReader(nc, MaxResponseBytes)
	in, poisoned, err := roundTrip(ctx, nc, lr, line, "1", method)
	if err == nil && poisoned {
		err = fmt.Errorf("api: %s: %w", method, ctx.Err())
	}
	if err == nil && in.Error != nil {
		err = remoteError(in.Error)
	}
	if err == nil {
		if jerr := json.Unmarshal(in.Result, result); jerr != nil {
			err = fmt.Errorf("api: the host sent a bad %s result: %w", method, jerr)
		}
	}
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, lr, nil
}

// startFeed starts the goroutine that reads a stream's notifications
// into a channel of size buffer. The Client's Close stops it.
func startFeed[T any](ctx context.Context, c *Client, nc net.Conn, lr *lineReader, method string, buffer int) (*feed[T], error) {
	f := &feed[T]{nc: nc, method: method, out: make(chan T, buffer), quit: make(chan struct{})}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		nc.Close()
		return nil, ErrClosed
	}
	c.subs[f] = struct{}{}
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { f.stop(ctx.Err()) })
	go f.run(lr, func() {
		stop()
		c.mu.Lock()
		delete(c.subs, f)
		c.mu.Unlock()
	})
	return f, nil
}

// stopper is a feed as the Client sees it: something Close ends.
type stopper interface{ stop(error) }

// feed reads one stream's connection: notifications named method carry
// its values. Its goroutine (run) is the only sender on out and closes it
// on the way out.
type feed[T any] struct {
	nc     net.Conn
	method string
	out    chan T

	once sync.Once
	quit chan struct{} // closed by stop

	mu     sync.Mutex
	reason error // why it is ending: the first stop wins over a read error
	err    error // published when out is closed
}

// stop ends the feed with err unless it is already ending.
func (s *feed[T]) stop(err error) {
	s.mu.Lock()
	if s.reason == nil {
		s.reason = err
	}
	s.mu.Unlock()
	s.once.Do(func() { close(s.quit) })
	s.nc.Close()
}

// Err says why out was closed; nil while it is open.
func (s *feed[T]) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *feed[T]) run(lr *lineReader, done func()) {
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
		close(s.out)
	}()
	for {
		line, rerr := lr.next()
		if rerr != nil {
			err = fmt.Errorf("%w: the stream's connection closed: %v", ErrHostGone, cause(rerr))
			return
		}
		var in incoming
		if jerr := json.Unmarshal(line, &in); jerr != nil {
			err = fmt.Errorf("api: the host sent a line that is not JSON-RPC: %w", jerr)
			return
		}
		switch in.Method {
		case s.method:
			var v T
			if jerr := json.Unmarshal(in.Params, &v); jerr != nil {
				err = fmt.Errorf("api: the host sent a bad %s notification: %w", s.method, jerr)
				return
			}
			if err = s.deliver(v); err != nil {
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

// deliver hands v to the reader, waiting up to lagTimeout when the
// buffer is full.
func (s *feed[T]) deliver(v T) error {
	select {
	case s.out <- v:
		return nil
	default:
	}
	t := time.NewTimer(lagTimeout)
	defer t.Stop()
	select {
	case s.out <- v:
		return nil
	case <-s.quit:
		return ErrClosed // replaced by the stop reason
	case <-t.C:
		return core.ErrLagged
	}
}

// endError turns the host's "end" notification into the stream's Err.
func endError(p endParams) error {
	switch p.Reason {
	case EndLagged:
		return core.ErrLagged
	case EndExited:
		return core.ErrTerminalExited
	case EndStopped:
		return fmt.Errorf("%w: %s", ErrHostGone, p.Error)
	default:
		return fmt.Errorf("api: the host ended the stream: %s", p.Error)
	}
}
