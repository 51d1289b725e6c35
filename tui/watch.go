package tui

import (
	"context"
	"slices"
	"sync"

	"github.com/nexus-tui/nexus/core"
)

// The UI need not work for what it does not show: the bridge drops the
// live deltas of threads not on screen (a frame only for them would
// change nothing), and a client of a remote host need not even decode
// them: when
// the backend can narrow a subscription to the transcripts of some
// threads (shownBackend: an api.Client), the model tells the bridge which
// threads are on screen (the selected one, or the grid's page) after
// every update that changed them, and the bridge subscribes again from 0
// for that set. Other threads' deltas then never reach this process and
// their journaled text arrives blanked; their statuses, runs and requests
// arrive as before, so the thread list is unchanged. The new starting
// state replaces the projection but keeps what the model tracks per
// thread (activity, what was seen). With an in-process host every event
// is a pointer already decoded: nothing is narrowed.

// shownBackend is a Backend whose subscriptions carry the transcripts of
// the given threads only (api.Client.SubscribeShown).
type shownBackend interface {
	SubscribeShown(ctx context.Context, from uint64, threads []string) (*core.Subscription, error)
}

// watchBox is the set of shown threads the model last gave the bridge.
// It is the one thing both goroutines touch: put never blocks.
type watchBox struct {
	mu      sync.Mutex
	threads []string
	set     bool
	changed chan struct{} // one pending signal at most
}

func newWatchBox() *watchBox { return &watchBox{changed: make(chan struct{}, 1)} }

// put records a new set and signals the bridge.
func (w *watchBox) put(threads []string) {
	w.mu.Lock()
	w.threads, w.set = slices.Clone(threads), true
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// get is the set to subscribe for; false before the model gave one.
func (w *watchBox) get() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.threads, w.set
}

// subscribe is the bridge's subscription: narrowed to the shown threads
// when the backend can and the model has said which they are.
func (br *bridge) subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	br.shown, br.known = br.watch.get()
	if sb, ok := br.backend.(shownBackend); ok && br.known {
		return sb.SubscribeShown(ctx, from, br.shown)
	}
	return br.backend.Subscribe(ctx, from)
}

// watchFunc is what the model calls with the shown threads.
func (br *bridge) watchFunc() func([]string) { return br.watch.put }

// newShown takes a new set of shown threads: true when the bridge must
// subscribe again for it (a backend that narrows). Otherwise the live
// text starts afresh, as after a resubscribe: a thread just shown had
// its deltas dropped, and the journal fills its text in within a flush.
func (br *bridge) newShown() bool {
	if _, ok := br.backend.(shownBackend); ok {
		br.rewatch = true
		return true
	}
	br.shown, br.known = br.watch.get()
	br.unjournaled = map[string]string{}
	br.frame.live = nil
	br.frame.resetLive, br.pending = true, true
	br.flush() // before any journaled text the model would pair with it
	return false
}

// wanted reports whether an event goes to the model: every journaled
// event does; a live delta only for a thread on screen (or while the
// model has not said which are).
func (br *bridge) wanted(ev core.Event) bool {
	return ev.Seq > 0 || ev.Type != core.EvNodeDelta || !br.known || ev.Thread == "" || slices.Contains(br.shown, ev.Thread)
}

// watching is the model's side: the bridge's watchFunc and the set it
// was last given.
type watching struct {
	tell  func([]string)
	shown []string
}

// syncWatch tells the bridge when the shown threads changed.
func (m *Model) syncWatch() {
	if m.watch.tell == nil || m.state == nil {
		return
	}
	want := m.shownThreads()
	if m.watch.shown != nil && slices.Equal(want, m.watch.shown) {
		return
	}
	m.watch.shown = want
	m.watch.tell(want)
}

// shownThreads are the threads whose transcripts are on screen: the
// selected one, and the grid's page while the grid shows.
func (m *Model) shownThreads() []string {
	out := []string{}
	if m.selected != "" {
		out = append(out, m.selected)
	}
	if m.gridShown() {
		rows := m.visibleRows()
		for i := m.gridPage(); i < len(rows) && i < m.gridPage()+m.grid.size; i++ {
			out = append(out, rows[i].th.ID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
