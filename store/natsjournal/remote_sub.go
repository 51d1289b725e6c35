package natsjournal

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
)

// liveSubject is where a project's owner publishes its live events
// (text deltas, seq 0) for the project's remote viewers: core NATS,
// never stored (doc.go, "One view"). Part of the stream format.
const liveSuffix = ".live" // nexus.<p>.live

// maxLiveBytes bounds one live event a viewer takes in.
const maxLiveBytes = 1 << 20

func liveSubject(project string) string { return subjectPrefix + token(project) + liveSuffix }

// hdrAfter is the seq of the last journaled event the owner had
// published before a live event: a viewer that has read past it drops
// the event, whose text the journal may already carry.
const hdrAfter = "Nexus-After"

// PublishLive sends a live event (seq 0: a text delta) of project to its
// remote viewers; after is the seq of the last journaled event before it.
// It is best effort, as a delta is: the journal gets the coalesced text.
func PublishLive(nc *nats.Conn, project string, ev core.Event, after uint64) error {
	if ev.Seq != 0 {
		return fmt.Errorf("natsjournal: event %d is journaled; only live events (seq 0) go to viewers", ev.Seq)
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if len(body) > maxLiveBytes {
		return nil
	}
	m := nats.NewMsg(liveSubject(project))
	m.Data = body
	m.Header.Set(hdrAfter, strconv.FormatUint(after, 10))
	return nc.PublishMsg(m)
}

// hdrTail marks a tail notice on the live subject: the owner's journal
// holds every event up to this seq, durably.
const hdrTail = "Nexus-Tail"

// PublishTail tells the project's remote viewers that its journal holds
// every event up to seq. Viewers wake on each commit's message too, but
// that can reach them before the stream has stored it; the owner sends
// this after its append returned, so a viewer that reads on it finds
// the events.
func PublishTail(nc *nats.Conn, project string, seq uint64) error {
	m := nats.NewMsg(liveSubject(project))
	m.Header.Set(hdrTail, strconv.FormatUint(seq, 10))
	return nc.PublishMsg(m)
}

// liveEvent is a live event with the seq its owner had journaled before
// it.
type liveEvent struct {
	ev    core.Event
	after uint64
}

// Subscribe follows the project's journal from seq from (the state and
// then every event after it when from is 0), with the owner's live text
// deltas in between (seq 0). It implements core.Backend. The feed wakes
// on each new commit on the hub (a core NATS subscription to the
// journal's subjects) and reads what is new from the stream, checked as
// every Read is; it never polls.
func (r *Remote) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	jsub, err := r.nc.Subscribe(r.wake, func(*nats.Msg) { poke() })
	if err != nil {
		return nil, fmt.Errorf("natsjournal: follow the journal of %s: %w", r.project, err)
	}
	live := make(chan liveEvent, 256)
	var tail atomic.Uint64 // the highest seq the owner said is durable
	lsub, err := r.nc.Subscribe(liveSubject(r.project), func(m *nats.Msg) {
		if t := m.Header.Get(hdrTail); t != "" {
			if seq, err := strconv.ParseUint(t, 10, 64); err == nil {
				for old := tail.Load(); seq > old && !tail.CompareAndSwap(old, seq); old = tail.Load() {
				}
				poke()
			}
			return
		}
		var ev core.Event
		after, aerr := strconv.ParseUint(m.Header.Get(hdrAfter), 10, 64)
		if aerr != nil || len(m.Data) > maxLiveBytes || json.Unmarshal(m.Data, &ev) != nil || ev.Seq != 0 {
			return
		}
		select {
		case live <- liveEvent{ev, after}:
		default: // a viewer that falls behind loses deltas, never events
		}
	})
	if err != nil {
		_ = jsub.Unsubscribe()
		return nil, fmt.Errorf("natsjournal: follow the live text of %s: %w", r.project, err)
	}
	unsub := func() { _ = jsub.Unsubscribe(); _ = lsub.Unsubscribe() }
	if err := r.nc.FlushTimeout(r.j.opts.Timeout); err != nil {
		unsub()
		return nil, fmt.Errorf("natsjournal: follow %s: %w", r.project, err)
	}
	sub := &core.Subscription{}
	next := from
	if from == 0 {
		st, err := r.State(ctx)
		if err != nil {
			unsub()
			return nil, err
		}
		sub.State, next = st, st.Seq+1
	}
	events := make(chan core.Event, 1024)
	var mu sync.Mutex
	var subErr error
	sub.Events = events
	sub.Err = func() error { mu.Lock(); defer mu.Unlock(); return subErr }
	poke()
	go func() {
		defer close(events)
		defer unsub()
		send := func(ev core.Event) error {
			select {
			case events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		var err error
		stale := 0 // reads in a row that found nothing the tail promised
		for err == nil {
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case le := <-live:
				// A delta the journal may already carry is dropped: the
				// UI shows the journal's text, and the next deltas.
				if le.after+1 >= next {
					err = send(le.ev)
				}
			case <-wake:
				before := next
				err = r.j.Read(ctx, next, func(ev core.Event) error {
					if err := send(ev); err != nil {
						return err
					}
					next = ev.Seq + 1
					return nil
				})
				// The owner has more durable than this read found: read
				// again, a few times at most without progress (then the
				// next commit or notice wakes it).
				if next > before {
					stale = 0
				}
				if err == nil && tail.Load() >= next && stale < 3 {
					stale++
					poke()
				}
			}
		}
		mu.Lock()
		subErr = err
		mu.Unlock()
	}()
	return sub, nil
}
