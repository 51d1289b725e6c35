package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// streamingState is one thread whose run is streaming its reply.
func streamingState(t *testing.T) (*journal, *core.Node) {
	j := newJournal(t)
	j.thread("t1", "stream", core.ThreadRunning, 1, sec)
	r := j.run("t1", 1, core.RunRunning, "tell a story", 2*sec, 0)
	n := j.node(r, 2, core.NodeAssistantMessage, "", "assistant", "")
	return j, n
}

func textEvent(j *journal, n *core.Node, text string) core.Event {
	return core.Event{Seq: j.st.Seq + 1, Type: core.EvNodeText, Thread: n.Thread, Run: n.Run, Node: n.ID,
		Payload: core.Payload{Text: text}}
}

func deltaEvent(n *core.Node, text string) core.Event {
	return core.Event{Type: core.EvNodeDelta, Thread: n.Thread, Run: n.Run, Node: n.ID, Payload: core.Payload{Text: text}}
}

func TestLiveTextShowsOnceAsTheJournalCatchesUp(t *testing.T) {
	j, n := streamingState(t)
	hs := newHarness(t, j.st.Clone(), 100, 30)
	hs.send(frameMsg{live: map[string]string{n.ID: "Once upon"}})
	if !strings.Contains(hs.screen(), "Once upon") {
		t.Fatalf("live text not shown:\n%s", hs.screen())
	}
	// The journal catches up with part of it; the bridge trimmed the live
	// text in the same frame.
	ev := textEvent(j, n, "Once upon")
	j.add(ev)
	hs.send(frameMsg{journal: []core.Event{ev}, live: map[string]string{n.ID: " a time"}})
	scr := hs.screen()
	if !strings.Contains(scr, "Once upon a time") || strings.Count(scr, "Once upon") != 1 {
		t.Fatalf("journaled plus live text should read once as \"Once upon a time\":\n%s", scr)
	}
}

// fakeFeed is a backend whose subscriptions the test feeds by hand.
type fakeFeed struct {
	stubBackend
	mu    sync.Mutex
	froms []uint64
	subs  chan chan core.Event
	errs  chan error
	state *core.State
}

func (f *fakeFeed) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	f.mu.Lock()
	f.froms = append(f.froms, from)
	f.mu.Unlock()
	ch := make(chan core.Event, 64)
	var errMu sync.Mutex
	var subErr error
	f.subs <- ch
	s := &core.Subscription{Events: ch, Err: func() error { errMu.Lock(); defer errMu.Unlock(); return subErr }}
	if from == 0 {
		s.State = f.state.Clone()
	}
	go func() {
		select {
		case err := <-f.errs:
			errMu.Lock()
			subErr = err
			errMu.Unlock()
			close(ch)
		case <-ctx.Done():
		}
	}()
	return s, nil
}

// feedBridge runs a bridge over a fakeFeed of st until the test ends.
func feedBridge(t *testing.T, st *core.State) (*fakeFeed, *collector) {
	feed := &fakeFeed{subs: make(chan chan core.Event, 4), errs: make(chan error, 1), state: st}
	col := &collector{msgs: make(chan tea.Msg, 64)}
	br := newBridge(feed, func(m tea.Msg) { col.msgs <- m })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { br.run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return feed, col
}

// collector receives what the bridge sends to the program.
type collector struct{ msgs chan tea.Msg }

func (c *collector) next(t *testing.T) tea.Msg {
	t.Helper()
	select {
	case m := <-c.msgs:
		return m
	case <-time.After(2 * time.Second):
		t.Fatal("the bridge sent nothing")
		return nil
	}
}

func TestBridgeCoalescesDeltasAndKeepsJournalApart(t *testing.T) {
	j, n := streamingState(t)
	feed, col := feedBridge(t, j.st)

	ch := <-feed.subs
	if snap, ok := col.next(t).(snapshotMsg); !ok || snap.state.Seq != j.st.Seq {
		t.Fatalf("first message is not the snapshot at seq %d", j.st.Seq)
	}
	// Many deltas and a journaled node.text inside one frame.
	for _, w := range []string{"a", "b", "c"} {
		ch <- deltaEvent(n, w)
	}
	ev := textEvent(j, n, "ab")
	ch <- ev
	ch <- deltaEvent(n, "d")
	f, ok := col.next(t).(frameMsg)
	if !ok {
		t.Fatal("expected a frame")
	}
	if len(f.journal) != 1 || f.journal[0].Seq != ev.Seq {
		t.Fatalf("frame journal = %+v, want exactly the node.text event", f.journal)
	}
	if got := f.live[n.ID]; got != "cd" {
		t.Fatalf("live text = %q, want the streamed text beyond the journal \"cd\"", got)
	}

	// A lagging subscription resubscribes from the seq after the last one.
	feed.errs <- core.ErrLagged
	<-feed.subs
	if m, ok := col.next(t).(frameMsg); !ok || !m.resetLive {
		t.Fatalf("after a resubscribe the bridge must reset live text, got %#v", m)
	}
	feed.mu.Lock()
	from := feed.froms[len(feed.froms)-1]
	feed.mu.Unlock()
	if from != ev.Seq+1 {
		t.Fatalf("resubscribed from %d, want %d", from, ev.Seq+1)
	}

	// A lost host is reported, then retried.
	feed.errs <- errors.New("api: host gone")
	if c, ok := col.next(t).(connMsg); !ok || c.err == nil {
		t.Fatalf("a lost host was not reported: %#v", c)
	}
	<-feed.subs
	if c, ok := col.next(t).(connMsg); !ok || c.err != nil {
		t.Fatalf("reconnecting was not reported: %#v", c)
	}
}

func TestLostHostBanner(t *testing.T) {
	hs := newHarness(t, demoState(t), 100, 30)
	hs.send(connMsg{err: errors.New("api: host gone: connection refused")})
	first := strings.SplitN(hs.screen(), "\n", 2)[0]
	if !strings.Contains(first, "lost the host") || !strings.Contains(first, "connection refused") {
		t.Fatalf("no lost-host banner: %q", first)
	}
	hs.checkScreen(100, 30)
	hs.send(connMsg{})
	if strings.Contains(hs.screen(), "lost the host") {
		t.Errorf("the banner stayed after reconnecting")
	}
}
