package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// The bridge is the one goroutine between the backend's subscription and
// the Bubble Tea program. It never lets the program wait on I/O: it reads
// the subscription, batches what it read for at most one frame, and hands
// the batch over with program.Send as a single frameMsg.
//
// Journaled events (Seq > 0) must arrive: they go in frameMsg.journal, in
// order, never merged or dropped. Live deltas (core.EvNodeDelta, Seq 0)
// are droppable: the bridge folds them into the text each node has
// streamed beyond its journaled text, and a frame carries only the latest
// such text per node. A journaled node.text event takes its prefix off
// that live text, so the screen never shows text twice.

// frameInterval is the longest a batch waits before it is sent: one frame
// at 60 Hz. Nothing is sent while nothing happens.
const frameInterval = 16 * time.Millisecond

// maxBatch flushes a batch early when a catch-up floods journaled events.
const maxBatch = 4096

// maxLive bounds the unjournaled text kept per node; past it deltas are
// dropped (the journal carries the same text within a second).
const maxLive = 256 << 10

// snapshotMsg replaces the model's projection (first subscription, or a
// resync after the model found a gap).
type snapshotMsg struct {
	state *core.State
	// damaged is why a finished run's history could not be read (the
	// run shows without it), or nil.
	damaged error
	// rewatch: the subscription was made for a new set of shown threads
	// (watch.go); what the model tracks per thread stays.
	rewatch bool
	// watch is where the model tells the shown threads; nil: nowhere.
	watch func([]string)
}

// frameMsg is one frame's worth of events.
type frameMsg struct {
	// journal holds journaled events in seq order. Must arrive.
	journal []core.Event
	// live maps a node id to its streamed text that the journal does not
	// have yet; "" removes the node's live text. Droppable.
	live map[string]string
	// resetLive drops all live text first (after a resubscribe, deltas
	// may have been missed).
	resetLive bool
}

// connMsg reports the subscription's health: err == nil means connected.
type connMsg struct{ err error }

// bridge owns the subscription loop.
type bridge struct {
	backend Backend
	send    func(tea.Msg)
	resync  chan struct{} // the model asks for a fresh snapshot
	// unjournaled is per node the streamed text not yet journaled.
	unjournaled map[string]string
	frame       frameMsg
	pending     bool
	// watch is the set of shown threads (watch.go); rewatch marks the
	// snapshot of a subscription made for a new set.
	watch   *watchBox
	rewatch bool
	shown   []string // the shown threads this subscription drops others' deltas for
	known   bool     // shown is set
}

func newBridge(b Backend, send func(tea.Msg)) *bridge {
	return &bridge{backend: b, send: send, resync: make(chan struct{}, 1), unjournaled: map[string]string{}, watch: newWatchBox()}
}

// requestResync asks for a fresh snapshot; it never blocks.
func (br *bridge) requestResync() {
	select {
	case br.resync <- struct{}{}:
	default:
	}
}

// run subscribes, pumps, and resubscribes from the last seq it saw until
// ctx ends. A lagging reader resubscribes at once; a lost host is reported
// and retried with backoff, so a client picks up a restarted host.
func (br *bridge) run(ctx context.Context) {
	var last uint64
	backoff := 250 * time.Millisecond
	var lost error
	for ctx.Err() == nil {
		from := uint64(0)
		if last > 0 {
			from = last + 1
		}
		sctx, cancel := context.WithCancel(ctx)
		sub, err := br.subscribe(sctx, from)
		if err == nil {
			if lost != nil {
				lost = nil
				br.send(connMsg{})
			}
			backoff = 250 * time.Millisecond
			br.unjournaled = map[string]string{}
			br.frame, br.pending = frameMsg{}, false
			if sub.State != nil {
				last = sub.State.Seq
				// A state loaded from a snapshot keeps finished runs
				// sealed, each read from the store on first use: read
				// them here, so no frame of the UI waits on the store.
				damaged := sub.State.ThawAll()
				br.send(snapshotMsg{state: sub.State, damaged: damaged, rewatch: br.rewatch, watch: br.watchFunc()})
				br.rewatch = false
			} else {
				br.send(frameMsg{resetLive: true})
			}
			var resync bool
			resync, err = br.pump(sctx, sub, &last)
			if resync {
				last = 0
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err == nil || errors.Is(err, core.ErrLagged) {
			continue
		}
		lost = err
		br.send(connMsg{err: err})
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// pump moves events from one subscription into frames. It returns when
// the subscription ends (with its error) or a resync was asked for.
func (br *bridge) pump(ctx context.Context, sub *core.Subscription, last *uint64) (resync bool, err error) {
	var timer *time.Timer
	var tick <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				br.flush()
				return false, sub.Err()
			}
			if ev.Seq > 0 {
				*last = ev.Seq
			}
			if !br.wanted(ev) {
				continue // a delta of a thread not on screen (watch.go)
			}
			br.add(ev)
			if len(br.frame.journal) >= maxBatch {
				br.flush()
			} else if tick == nil {
				timer = time.NewTimer(frameInterval)
				tick = timer.C
			}
		case <-tick:
			tick = nil
			br.flush()
		case <-br.resync:
			return true, nil
		case <-br.watch.changed:
			if br.newShown() {
				return true, nil
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// add folds one event into the current frame.
func (br *bridge) add(ev core.Event) {
	br.pending = true
	if ev.Seq == 0 {
		if ev.Type != core.EvNodeDelta || ev.Node == "" {
			return
		}
		cur := br.unjournaled[ev.Node]
		if len(cur)+len(ev.Payload.Text) > maxLive {
			return
		}
		br.setLive(ev.Node, cur+ev.Payload.Text)
		return
	}
	br.frame.journal = append(br.frame.journal, ev)
	switch {
	case ev.Type == core.EvNodeText && ev.Node != "":
		if cur, ok := br.unjournaled[ev.Node]; ok {
			br.setLive(ev.Node, trimJournaled(cur, ev.Payload.Text))
		}
	case ev.Payload.Node != nil && ev.Payload.Node.Status != core.NodeRunning:
		if _, ok := br.unjournaled[ev.Payload.Node.ID]; ok {
			br.setLive(ev.Payload.Node.ID, "")
		}
	}
}

// trimJournaled removes the journaled text from the front of the live
// text. If they disagree (a delta was dropped), the journal wins.
func trimJournaled(live, journaled string) string {
	if rest, ok := strings.CutPrefix(live, journaled); ok {
		return rest
	}
	return ""
}

func (br *bridge) setLive(node, text string) {
	if text == "" {
		delete(br.unjournaled, node)
	} else {
		br.unjournaled[node] = text
	}
	if br.frame.live == nil {
		br.frame.live = map[string]string{}
	}
	br.frame.live[node] = text
}

// flush sends the current frame, if anything is in it.
func (br *bridge) flush() {
	if !br.pending {
		return
	}
	f := br.frame
	br.frame = frameMsg{}
	br.pending = false
	br.send(f)
}
