package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// remoteHost is a real Runner served on a socket, and a client of it: the
// UI's view of a `nexus serve` host.
func remoteHost(t *testing.T) (*core.Runner, *api.Client) {
	t.Helper()
	r, err := core.NewRunner(core.RunnerConfig{Journal: &core.MemJournal{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.Run(ctx) }()
	path := filepath.Join(t.TempDir(), "nexus.sock")
	ln, err := api.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- api.NewServer(r, api.HostInfo{PID: 1, Version: "test"}).Serve(ctx, ln) }()
	c, err := api.Dial(ctx, path, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		cancel()
		<-served
		<-ran
	})
	return r, c
}

// nextWatchSnapshot is the bridge's next snapshot, fed to the model.
func nextWatchSnapshot(t *testing.T, hs *harness, msgs <-chan tea.Msg) snapshotMsg {
	t.Helper()
	s := nextSnapshot(t, msgs)
	hs.send(s)
	return s
}

// A UI on a remote host shows the selected thread's transcript and gets
// no other thread's text: selecting another thread subscribes again for
// it, and its reply is on screen; the thread list keeps both threads.
func TestUIWatchesTheThreadItShows(t *testing.T) {
	r, c := remoteHost(t)
	ctx := context.Background()
	for _, th := range []string{"t1", "t2"} {
		if _, err := c.Submit(ctx, core.Command{ID: "c-" + th, Kind: core.CmdThreadCreate, NewThread: th, Provider: "builtin", Title: "thread " + th}); err != nil {
			t.Fatal(err)
		}
		rec, err := c.Submit(ctx, core.Command{ID: "s-" + th, Kind: core.CmdMessageSend, Thread: th, Text: "go"})
		if err != nil {
			t.Fatal(err)
		}
		o := core.Observation{Kind: core.ObsText, Key: "reply", Text: "the reply of " + th, Final: true,
			Thread: th, Run: rec.Run, Attempt: core.AttemptID(rec.Run, 1)}
		if err := r.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	hs := newHarnessOn(t, newStub(), c, nil, 120, 40)
	msgs := runBridge(t, c)
	if s := nextWatchSnapshot(t, hs, msgs); s.rewatch || s.watch == nil {
		t.Fatalf("first snapshot: rewatch %v, a watch func %v; want a plain one that offers watching", s.rewatch, s.watch != nil)
	}
	shown := hs.m.selected
	other := map[string]string{"t1": "t2", "t2": "t1"}[shown]
	s := nextWatchSnapshot(t, hs, msgs)
	if !s.rewatch {
		t.Fatal("the bridge did not subscribe again for the shown thread")
	}
	if got := replyText(s.state, shown); got != "the reply of "+shown {
		t.Fatalf("the shown thread's reply in the watched state: %q", got)
	}
	if got := replyText(s.state, other); got != "" {
		t.Fatalf("the thread not shown came with its text %q", got)
	}

	hs.m.selectThread(other)
	hs.send(connMsg{})
	s = nextWatchSnapshot(t, hs, msgs)
	if !s.rewatch || replyText(s.state, other) != "the reply of "+other {
		t.Fatalf("after selecting %s: rewatch %v, its reply %q", other, s.rewatch, replyText(s.state, other))
	}
	screen := hs.screen()
	for _, want := range []string{"the reply of " + other, "thread t1", "thread t2"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, screen)
		}
	}
}

// replyText is the assistant text of a thread's nodes in st.
func replyText(st *core.State, thread string) string {
	var out string
	for _, n := range st.Nodes {
		if n.Thread == thread && n.Kind == core.NodeAssistantMessage {
			out += n.Text
		}
	}
	return out
}

// The bridge sends no frame for the live text of a thread not on screen:
// once the model said it shows t1, t2's deltas are dropped and t1's
// still arrive; t2's journaled text arrives as ever.
func TestBridgeDropsDeltasOfThreadsNotShown(t *testing.T) {
	j, n1 := streamingState(t)
	j.thread("t2", "other", core.ThreadRunning, 1, sec)
	r2 := j.run("t2", 1, core.RunRunning, "go", 2*sec, 0)
	n2 := j.node(r2, 2, core.NodeAssistantMessage, "", "assistant", "")
	feed, col := feedBridge(t, j.st)

	ch := <-feed.subs
	snap, ok := col.next(t).(snapshotMsg)
	if !ok || snap.watch == nil {
		t.Fatal("first message is not a snapshot that offers watching")
	}
	snap.watch([]string{"t1"})
	f := col.next(t).(frameMsg)
	if !f.resetLive {
		t.Fatal("a new set of shown threads did not start the live text afresh")
	}
	ch <- deltaEvent(n2, "not shown")
	ch <- deltaEvent(n1, "shown")
	ev := textEvent(j, n2, "journaled")
	ch <- ev
	live, journaled := "", false
	for live != "shown" || !journaled {
		f = col.next(t).(frameMsg)
		if _, leaked := f.live[n2.ID]; leaked {
			t.Fatalf("a frame carried t2's live text %q", f.live[n2.ID])
		}
		live += f.live[n1.ID]
		for _, e := range f.journal {
			journaled = journaled || e.Seq == ev.Seq
		}
	}
}
