package core

import (
	"context"
	"sync"
)

// maxSubQueue bounds what a subscriber may fall behind by before it is
// ended with ErrLagged. Ephemeral deltas are dropped long before that.
const (
	maxSubQueue   = 1 << 16
	maxDeltaQueue = 1 << 12
)

// EvNodeDelta is a live, unjournaled text delta (Seq 0). Subscribers that
// render live output use it; the journaled node.text events carry the same
// text, coalesced.
const EvNodeDelta = "node.delta"

// EvJournalStalled is a live, unjournaled notice (Seq 0, Payload.Text:
// the error): the journal refused an append (a full disk), so what
// effects report is held and decided again once it takes appends. A
// client waiting on a run says so and stops waiting.
const EvJournalStalled = "journal.stalled"

// sub is one subscriber. The Runner appends to its queue without blocking;
// a pump goroutine owned by the subscriber's context moves events to out.
type sub struct {
	mu     sync.Mutex
	queue  []Event
	notify chan struct{}
	out    chan Event
	err    error
	closed bool
	done   chan struct{}
}

func newSub() *sub {
	return &sub{notify: make(chan struct{}, 1), out: make(chan Event, 256), done: make(chan struct{})}
}

// push queues an event; it never blocks. It reports false when the
// subscriber is gone or lagged and should be dropped.
func (s *sub) push(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if ev.Seq == 0 && len(s.queue) >= maxDeltaQueue {
		return true // a live delta is droppable; the journal has the text
	}
	if len(s.queue) >= maxSubQueue {
		s.err, s.closed = ErrLagged, true
		s.wake()
		return false
	}
	s.queue = append(s.queue, ev)
	s.wake()
	return true
}

func (s *sub) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *sub) end(err error) {
	s.mu.Lock()
	if !s.closed {
		s.err, s.closed = err, true
	}
	s.mu.Unlock()
	s.wake()
}

// pump delivers history (if any), then the live queue, until the context
// ends or the subscription is closed.
func (s *sub) pump(ctx context.Context, history func(func(Event) error) error) {
	defer close(s.out)
	defer close(s.done)
	send := func(ev Event) error {
		select {
		case s.out <- ev:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if history != nil {
		if err := history(send); err != nil {
			s.end(err)
			return
		}
	}
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		for _, ev := range batch {
			if send(ev) != nil {
				s.end(ctx.Err())
				return
			}
		}
		if closed {
			return
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			s.end(ctx.Err())
			return
		}
	}
}

func (s *sub) errFunc() func() error {
	return func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.err
	}
}
