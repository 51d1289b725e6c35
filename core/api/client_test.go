package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

func TestSubmitRoundTrip(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	if got := c.Info(); got != h.info {
		t.Fatalf("Info() = %+v, want %+v", got, h.info)
	}
	ctx := context.Background()
	created := createThread(t, c, "t1")
	send := core.Command{ID: "c-send", Kind: core.CmdMessageSend, Thread: "t1", Text: "read README.md"}
	sent, err := c.Submit(ctx, send)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	st, err := h.runner.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*core.Receipt{created, sent} {
		if want := st.Receipts[got.Command]; !reflect.DeepEqual(got, want) {
			t.Errorf("receipt over the socket %+v, host has %+v", got, want)
		}
	}
	if sent.Thread != "t1" || sent.Ordinal != 1 || sent.Seq == 0 {
		t.Errorf("send receipt %+v: want thread t1, ordinal 1, a seq", sent)
	}
	again, err := c.Submit(ctx, send)
	if err != nil || !reflect.DeepEqual(again, sent) {
		t.Errorf("resubmitting the same id: got %+v, %v; want the first receipt %+v", again, err, sent)
	}
}

// Refused input comes back as *core.InputError with the backend's message;
// other failures do not.
func TestInputErrorMapping(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	createThread(t, h.runner, "t1")
	ctx := context.Background()
	for _, cmd := range []core.Command{
		{ID: "c1", Kind: core.CmdMessageSend, Thread: "t1", Text: " "},
		{ID: "c2", Kind: core.CmdMessageSend, Thread: "nope", Text: "hi"},
		{ID: "c3", Kind: "thread.explode", Thread: "t1"},
	} {
		_, want := h.runner.Submit(ctx, cmd)
		_, got := c.Submit(ctx, cmd)
		var wi, gi *core.InputError
		if !errors.As(want, &wi) {
			t.Fatalf("%s: the runner returned %v, want an input error", cmd.ID, want)
		}
		if !errors.As(got, &gi) || gi.Msg != wi.Msg {
			t.Errorf("%s: client got %v (%T), want *core.InputError %q", cmd.ID, got, got, wi.Msg)
		}
	}
	_, err := c.Submit(ctx, core.Command{ID: "c4", Kind: core.CmdMessageSend, Thread: "t1", Text: gateFail})
	var ie *core.InputError
	var ae *Error
	if errors.As(err, &ie) || !errors.As(err, &ae) || ae.Code != CodeServer || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("backend failure: got %v (%T), want *api.Error code %d naming the cause", err, err, CodeServer)
	}
}

// The State that crosses the socket equals the host's, nested entities
// included, and is indexed.
func TestStateRoundTrip(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx := context.Background()
	createThread(t, c, "t1")
	rec, err := c.Submit(ctx, core.Command{ID: "s1", Kind: core.CmdMessageSend, Thread: "t1", Text: "do it"})
	if err != nil {
		t.Fatal(err)
	}
	att := core.AttemptID(rec.Run, 1)
	obs := []core.Observation{
		{Kind: core.ObsTurnStarted},
		{Kind: core.ObsNode, Key: "tool1", NodeKind: core.NodeToolCall, Title: "read_file", Text: "README.md"},
		{Kind: core.ObsNode, Key: "sub1", NodeKind: core.NodeSubagent, Parent: "tool1", Title: "helper"},
		{Kind: core.ObsText, Key: "msg1", Text: "hello, ", Final: false},
		{Kind: core.ObsText, Key: "msg1", Text: "world ✓", Final: true},
		{Kind: core.ObsPlan, Items: []core.PlanItem{{Text: "read", Status: "completed"}, {Text: "write", Status: "in_progress"}}},
		{Kind: core.ObsRequest, Key: "q1", RequestKind: core.RequestApproval, Prompt: "run rm -rf build?"},
		{Kind: core.ObsWarning, Text: "slow provider"},
	}
	for _, o := range obs {
		o.Thread, o.Run, o.Attempt = "t1", rec.Run, att
		if err := h.runner.Observe(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	want, err := h.runner.State(ctx) // after the observations: one inbox
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.State(ctx)
	if err != nil {
		t.Fatalf("State: %v", err)
	}
	if len(want.Nodes) < 4 || len(want.Plans) != 1 || len(want.Requests) != 1 {
		t.Fatalf("the host state lacks the nested entities this test needs: %d nodes, %d plans, %d requests",
			len(want.Nodes), len(want.Plans), len(want.Requests))
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Fatalf("state over the socket differs:\n got %s\nwant %s", g, w)
	}
	for _, pair := range [][2]any{
		{ids(got.RunsOf("t1")), ids(want.RunsOf("t1"))},
		{ids(got.NodesOf(att)), ids(want.NodesOf(att))},
		{ids(got.RequestsOf(rec.Run)), ids(want.RequestsOf(rec.Run))},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) || reflect.ValueOf(pair[0]).Len() == 0 {
			t.Errorf("index over the socket %v, host %v", pair[0], pair[1])
		}
	}
}

func ids[T any](xs []*T) []string {
	out := []string{}
	for _, x := range xs {
		out = append(out, reflect.ValueOf(x).Elem().FieldByName("ID").String())
	}
	return out
}

// collect reads journaled events (seq > 0; live deltas have seq 0) until
// seq upto, checking that they follow one another.
func collect(t *testing.T, sub *core.Subscription, next, upto uint64) []core.Event {
	t.Helper()
	var got []core.Event
	timeout := time.After(10 * time.Second)
	for next <= upto {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				t.Fatalf("subscription ended at seq %d, want up to %d: %v", next-1, upto, sub.Err())
			}
			if ev.Seq == 0 {
				continue
			}
			if ev.Seq != next {
				t.Fatalf("got seq %d, want %d: a gap or a duplicate", ev.Seq, next)
			}
			got = append(got, ev)
			next++
		case <-timeout:
			t.Fatalf("timed out at seq %d, want up to %d", next-1, upto)
		}
	}
	return got
}

// Subscribing while commands land gives a state plus every later event,
// with no gap and no duplicate; folding them gives the host's state.
func TestSubscribeStateThenEvents(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx := context.Background()
	createThread(t, c, "t0")
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; i <= 40; i++ {
			createThread(t, h.runner, fmt.Sprintf("t%d", i))
		}
	})
	sub, err := c.Subscribe(ctx, 0)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if sub.State == nil || sub.State.Seq == 0 {
		t.Fatalf("Subscribe(0) gave state %v, want one covering the first thread", sub.State)
	}
	wg.Wait()
	want, _ := h.runner.State(ctx)
	st := sub.State
	for _, ev := range collect(t, sub, st.Seq+1, want.Seq) {
		if err := st.Apply(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if g, w := mustJSON(t, st), mustJSON(t, want); g != w {
		t.Fatalf("state + events differs from the host's:\n got %s\nwant %s", g, w)
	}
}

// Subscribe from a seq gives no state and every event from that seq on,
// history and live.
func TestSubscribeFromSeq(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx := context.Background()
	createThread(t, c, "t1")
	createThread(t, c, "t2")
	sub, err := c.Subscribe(ctx, 2)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if sub.State != nil {
		t.Fatalf("Subscribe(2) gave a state, want none")
	}
	last := createThread(t, c, "t3").Seq
	evs := collect(t, sub, 2, last)
	if evs[len(evs)-1].Payload.Receipt == nil || evs[len(evs)-1].Payload.Receipt.Command != "c-t3" {
		t.Errorf("last event %+v, want the receipt of c-t3", evs[len(evs)-1])
	}
}

// A subscription ends when its context does, with Err saying so.
func TestSubscribeEndsWithContext(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx, cancel := context.WithCancel(context.Background())
	sub, err := c.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitClosed(t, sub)
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Fatalf("Err() = %v, want context.Canceled", sub.Err())
	}
}

func waitClosed(t *testing.T, sub *core.Subscription) {
	t.Helper()
	waitDrained(t, sub.Events)
}

// waitDrained reads ch until it is closed, failing after 5 s.
func waitDrained[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the stream did not end within 5s")
		}
	}
}

// When the host stops, a subscriber and a caller both hear that the host
// went away, not a bare EOF.
func TestClientErrorWhenServerStops(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx := context.Background()
	sub, err := c.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.State(ctx); err != nil {
		t.Fatal(err)
	}
	h.stop()
	waitClosed(t, sub)
	if !errors.Is(sub.Err(), ErrHostGone) || !strings.Contains(sub.Err().Error(), "stopping") {
		t.Errorf("subscription Err() = %v, want ErrHostGone saying the host is stopping", sub.Err())
	}
	for i := range 2 { // the dropped connection, then a failed redial
		_, err := c.State(ctx)
		if !errors.Is(err, ErrHostGone) || !strings.Contains(err.Error(), "went away") {
			t.Errorf("call %d after the host stopped: %v, want ErrHostGone", i, err)
		}
	}
}

// How a subscription's end on the host maps to Err on the client.
func TestSubscriptionEndReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  error
		is   error
		text string
	}{
		{"lagged", core.ErrLagged, core.ErrLagged, "fell behind"},
		{"backend stopped", core.ErrStopped, ErrHostGone, "host is stopping"},
		{"other", errors.New("journal broken"), nil, "journal broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := serveBackend(t, &stubBackend{end: tc.end})
			sub, err := h.dial(t).Subscribe(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			waitClosed(t, sub)
			err = sub.Err()
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Err() = %v, want %v containing %q", err, tc.is, tc.text)
			}
			if tc.is != ErrHostGone && errors.Is(err, ErrHostGone) {
				t.Fatalf("Err() = %v: the host did not go away", err)
			}
		})
	}
}

// stubBackend's subscriptions send n events, then end with end.
type stubBackend struct {
	core.Backend
	n   int
	end error
}

func (b *stubBackend) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	ch := make(chan core.Event)
	go func() {
		defer close(ch)
		for i := range b.n {
			select {
			case ch <- core.Event{Seq: from + uint64(i), Type: core.EvRuntimeWarning, Payload: core.Payload{Note: strings.Repeat("x", 100)}}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return &core.Subscription{Events: ch, Err: func() error { return b.end }}, nil
}

// A reader that stops reading is ended with core.ErrLagged rather than
// holding the host's connection forever.
func TestSlowReaderLags(t *testing.T) {
	old := lagTimeout
	lagTimeout = 50 * time.Millisecond
	t.Cleanup(func() { lagTimeout = old }) // after the host stops
	h := serveBackend(t, &stubBackend{n: 10 * subBuffer})
	sub, err := h.dial(t).Subscribe(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // not reading
	n := 0
	for range sub.Events {
		n++
	}
	if !errors.Is(sub.Err(), core.ErrLagged) || n != subBuffer {
		t.Fatalf("got %d events and Err %v, want the %d buffered and core.ErrLagged", n, sub.Err(), subBuffer)
	}
}

func TestDialTimesOutOnSilentHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			defer nc.Close() // accepts, never answers
		}
	}()
	start := time.Now()
	_, err = Dial(context.Background(), path, 200*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Fatalf("Dial: %v, want a timeout saying the host did not answer", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Dial took %v with a 200ms timeout", d)
	}
}

func TestDialNoHost(t *testing.T) {
	_, err := Dial(context.Background(), filepath.Join(t.TempDir(), "nexus.sock"), time.Second)
	if !errors.Is(err, ErrNoHost) {
		t.Fatalf("Dial to a missing socket: %v, want ErrNoHost", err)
	}
}

// Many goroutines share one Client.
func TestClientConcurrentUse(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				createThread(t, c, fmt.Sprintf("t%d-%d", g, i))
				if _, err := c.State(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st, err := c.State(context.Background())
	if err != nil || len(st.Threads) != 80 {
		t.Fatalf("got %d threads (%v), want 80", len(st.Threads), err)
	}
}

// A call cut short by its context leaves the Client usable.
func TestCancelledCallLeavesClientUsable(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Submit(ctx, core.Command{ID: "c1", Kind: core.CmdMessageSend, Thread: "t1", Text: gateBlock})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Submit: %v, want context.DeadlineExceeded", err)
	}
	if _, err := c.State(context.Background()); err != nil {
		t.Fatalf("State after a cancelled call: %v", err)
	}
}

func TestClosedClient(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	sub, err := c.Subscribe(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	waitClosed(t, sub)
	if !errors.Is(sub.Err(), ErrClosed) {
		t.Errorf("subscription Err() = %v, want ErrClosed", sub.Err())
	}
	if _, err := c.State(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("State after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Subscribe(context.Background(), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close: %v, want ErrClosed", err)
	}
}

// Close during a call ends it with ErrClosed, not a claim that the host
// went away.
func TestCloseDuringCall(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Submit(context.Background(), core.Command{ID: "c1", Kind: core.CmdMessageSend, Thread: "t1", Text: gateBlock})
		errc <- err
	}()
	<-h.gate.entered
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Submit cut short by Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the call in flight")
	}
}
