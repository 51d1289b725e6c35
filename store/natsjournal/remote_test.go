package natsjournal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
)

const remoteProject = "team/remote"

// owner is a project's host in one test: the journal, a Runner on it,
// the lease and the command queue served, until stop.
type owner struct {
	j      *Journal
	runner *core.Runner
	stop   func()
}

func startOwner(t *testing.T, nc *nats.Conn) *owner {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	j := openProject(t, nc, remoteProject, Options{})
	lease, err := AcquireLease(ctx, nc, remoteProject, "owner-1", LeaseOptions{TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r, err := core.NewRunner(core.RunnerConfig{Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	ran, served := make(chan struct{}), make(chan struct{})
	go func() { _ = r.Run(ctx); close(ran) }()
	go func() { _ = ServeCommands(ctx, nc, remoteProject, 1, r, nil); close(served) }()
	o := &owner{j: j, runner: r}
	var once bool
	o.stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		<-ran
		<-served
		_ = lease.Release(context.Background())
	}
	t.Cleanup(o.stop)
	return o
}

func openRemote(t *testing.T, nc *nats.Conn, opts RemoteOptions) *Remote {
	t.Helper()
	r, err := OpenRemote(context.Background(), nc, remoteProject, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func createCmd(id, thread string) core.Command {
	return core.Command{ID: id, Kind: core.CmdThreadCreate, NewThread: thread, Provider: "p", Title: "from afar"}
}

// A command sent from another connection reaches the project's owner
// through the queue: its receipt comes back once durable, the thread is
// in the project's state, a retry of the same id answers with the first
// receipt and journals nothing more, and a refused command comes back as
// refused input.
func TestRemoteCommandsReachTheOwner(t *testing.T) {
	h := startHub(t, t.TempDir())
	o := startOwner(t, connect(t, h.url))
	r := openRemote(t, connect(t, h.url), RemoteOptions{})
	ctx := context.Background()

	rc, err := r.Submit(ctx, createCmd("cmd-1", "t-far"))
	if err != nil || rc.Reject != nil || rc.Thread != "t-far" {
		t.Fatalf("submit through the hub: %+v, %v", rc, err)
	}
	st, err := r.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if th := st.Threads["t-far"]; th == nil || th.Title != "from afar" {
		t.Fatalf("the remote state has no thread t-far after its receipt: %+v", st.Threads)
	}
	last := o.j.Last()
	again, err := r.Submit(ctx, createCmd("cmd-1", "t-far"))
	if err != nil || again.Seq != rc.Seq || again.Thread != rc.Thread {
		t.Fatalf("the same command id again: %+v, %v; want the first receipt %+v", again, err, rc)
	}
	if o.j.Last() != last {
		t.Fatalf("a retried command journaled events: last seq %d, was %d", o.j.Last(), last)
	}
	_, err = r.Submit(ctx, core.Command{ID: "cmd-2", Kind: "no.such.kind"})
	var ie *core.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("a command of an unknown kind through the hub: %v; want refused input", err)
	}
}

// With no host holding the project, a command is queued durably and the
// sender is told there is no owner; the next owner runs it.
func TestRemoteCommandWaitsForAnOwner(t *testing.T) {
	h := startHub(t, t.TempDir())
	first := startOwner(t, connect(t, h.url))
	first.stop()
	r := openRemote(t, connect(t, h.url), RemoteOptions{})
	ctx := context.Background()
	_, err := r.Submit(ctx, createCmd("cmd-late", "t-late"))
	if !errors.Is(err, ErrNoOwner) {
		t.Fatalf("submit with no owner: %v; want ErrNoOwner", err)
	}
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sub.State.Threads["t-late"] != nil {
		t.Fatal("the command ran with no owner")
	}
	startOwner(t, connect(t, h.url))
	for ev := range sub.Events {
		if ev.Payload.Thread != nil && ev.Payload.Thread.ID == "t-late" {
			return
		}
	}
	t.Fatalf("the queued command never ran on the next owner: %v", sub.Err())
}

// A viewer's Remote reads the project and sends nothing.
func TestRemoteViewerSendsNothing(t *testing.T) {
	h := startHub(t, t.TempDir())
	startOwner(t, connect(t, h.url))
	r := openRemote(t, connect(t, h.url), RemoteOptions{ReadOnly: true})
	_, err := r.Submit(context.Background(), createCmd("cmd-v", "t-v"))
	var ie *core.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("a viewer's submit: %v; want refused input", err)
	}
	if st, err := r.State(context.Background()); err != nil || st.Threads["t-v"] != nil {
		t.Fatalf("a viewer's command ran (%v)", err)
	}
}

// Live deltas reach a remote subscriber between the journal's events; a
// delta sent before an event the subscriber has already read is dropped
// (the journal carries its text), so no text shows twice.
func TestRemoteLiveDeltas(t *testing.T) {
	h := startHub(t, t.TempDir())
	o := startOwner(t, connect(t, h.url))
	pub := connect(t, h.url)
	r := openRemote(t, connect(t, h.url), RemoteOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := o.runner.Submit(ctx, createCmd("c1", "t1")); err != nil {
		t.Fatal(err)
	}
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := sub.State.Seq
	delta := func(text string) core.Event {
		return core.Event{Type: core.EvNodeDelta, Payload: core.Payload{Text: text}}
	}
	if err := PublishLive(pub, remoteProject, delta("stale"), seen-1); err != nil {
		t.Fatal(err)
	}
	if err := PublishLive(pub, remoteProject, delta("fresh"), seen); err != nil {
		t.Fatal(err)
	}
	if err := PublishLive(pub, remoteProject, core.Event{Seq: 3, Type: core.EvNodeDelta}, seen); err == nil {
		t.Fatal("PublishLive sent a journaled event")
	}
	ev := <-sub.Events
	if ev.Seq != 0 || ev.Payload.Text != "fresh" {
		t.Fatalf("first event after the state: %+v; want the fresh delta (the stale one dropped)", ev)
	}
	if _, err := o.runner.Submit(ctx, createCmd("c2", "t2")); err != nil {
		t.Fatal(err)
	}
	for ev := range sub.Events {
		if ev.Seq == 0 {
			t.Fatalf("unexpected live event %+v", ev)
		}
		if ev.Payload.Thread != nil && ev.Payload.Thread.ID == "t2" {
			return
		}
	}
	t.Fatalf("the journal's next commit never reached the subscriber: %v", sub.Err())
}

// A commit's own message can reach a subscriber before the stream has
// stored it, so that the read it wakes finds nothing; the owner's tail
// notice, sent once the append returned, wakes it again. Here the
// subscriber hears no commit at all: the notice alone brings the event.
func TestRemoteTailNoticeWakes(t *testing.T) {
	h := startHub(t, t.TempDir())
	o := startOwner(t, connect(t, h.url))
	pub := connect(t, h.url)
	r := openRemote(t, connect(t, h.url), RemoteOptions{})
	r.wake = "nexus.test.nothing"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := o.runner.Submit(ctx, createCmd("c1", "t1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := PublishTail(pub, remoteProject, rc.Seq); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				t.Fatalf("the subscription ended: %v", sub.Err())
			}
			if ev.Payload.Thread != nil && ev.Payload.Thread.ID == "t1" {
				return
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a tail notice did not wake the subscriber: the new thread never came")
		}
	}
}

// WatchOwner says who holds the project and says so again when the
// holder lets go and when its lease expires unrenewed: no polling, the
// lease bucket's own events.
func TestRemoteWatchOwner(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := AcquireLease(ctx, nc, remoteProject, "box-1", LeaseOptions{TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	openProject(t, nc, remoteProject, Options{})
	r := openRemote(t, connect(t, h.url), RemoteOptions{ReadOnly: true})
	owners, err := r.WatchOwner(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func(want string) {
		t.Helper()
		select {
		case got := <-owners:
			if got != want {
				t.Fatalf("owner %q, want %q", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no news of the owner; want %q", want)
		}
	}
	next("box-1")
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	next("")
	if _, err := AcquireLease(ctx, nc, remoteProject, "box-2", LeaseOptions{TTL: 2 * time.Second, NoRenew: true}); err != nil {
		t.Fatal(err)
	}
	next("box-2")
	next("") // box-2 never renews: its lease expires
}

// An owner that holds the project but takes no command leaves the sender
// waiting only so long: Submit then says the command stays queued
// (core.ErrQueued), and it runs when the project is served.
func TestRemoteCommandWithNoAnswerStaysQueued(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	ctx := context.Background()
	openProject(t, nc, remoteProject, Options{})
	lease, err := AcquireLease(ctx, nc, remoteProject, "silent-host", LeaseOptions{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r := openRemote(t, connect(t, h.url), RemoteOptions{NoAnswer: 3 * time.Second})
	_, err = r.Submit(ctx, createCmd("cmd-silent", "t-silent"))
	var na *NoAnswerError
	if !errors.As(err, &na) || !errors.Is(err, core.ErrQueued) || na.Owner != "silent-host" {
		t.Fatalf("submit to an owner that answers nothing: %v; want a NoAnswerError naming it, matching core.ErrQueued", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	startOwner(t, connect(t, h.url))
	for ev := range sub.Events {
		if ev.Payload.Thread != nil && ev.Payload.Thread.ID == "t-silent" {
			return
		}
	}
	t.Fatalf("the command never ran once the project was served: %v", sub.Err())
}
