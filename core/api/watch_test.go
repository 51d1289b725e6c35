package api

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/core"
)

// A client that shows thread t1 gets t1's transcript live and none of
// t2's text, yet every event of t2 the thread list needs (its run ending)
// still arrives, with seqs gapless; subscribing again shows t2's nodes
// without their text and t1's with it.
func TestWatchingSubscriptionCarriesShownThreadsOnly(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // failsafe only
	defer cancel()
	runs := map[string]string{}
	for _, th := range []string{"t1", "t2"} {
		createThread(t, c, th)
		rec, err := c.Submit(ctx, core.Command{ID: "s-" + th, Kind: core.CmdMessageSend, Thread: th, Text: "go"})
		if err != nil {
			t.Fatal(err)
		}
		runs[th] = rec.Run
	}
	sub, err := c.SubscribeShown(ctx, 0, []string{"t1"})
	if err != nil {
		t.Fatal(err)
	}
	last := sub.State.Seq
	for _, th := range []string{"t1", "t2"} {
		att := core.AttemptID(runs[th], 1)
		for i, d := range []string{th + " first ", th + " second ", th + " third"} {
			o := core.Observation{Kind: core.ObsText, Key: "reply", Text: d, Final: i == 2, Thread: th, Run: runs[th], Attempt: att}
			if err := h.runner.Observe(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		o := core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted, Thread: th, Run: runs[th], Attempt: att}
		if err := h.runner.Observe(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	text := map[string]string{}
	ended := map[string]bool{}
	for !ended["t1"] || !ended["t2"] {
		var ev core.Event
		select {
		case e, ok := <-sub.Events:
			if !ok {
				t.Fatalf("the subscription ended: %v", sub.Err())
			}
			ev = e
		case <-ctx.Done():
			t.Fatalf("never saw both runs end (t1 %v, t2 %v)", ended["t1"], ended["t2"])
		}
		if ev.Seq > 0 {
			if ev.Seq != last+1 {
				t.Fatalf("event seq %d after %d: a watching subscription must stay gapless", ev.Seq, last)
			}
			last = ev.Seq
		}
		switch {
		case ev.Type == core.EvNodeDelta && ev.Thread == "t2":
			t.Fatalf("a client showing t1 got t2's live delta %q", ev.Payload.Text)
		case ev.Type == core.EvNodeText:
			text[ev.Thread] += ev.Payload.Text
		case ev.Payload.Node != nil && ev.Thread == "t2" && ev.Payload.Node.Text != "":
			t.Fatalf("a client showing t1 got t2's node text %q", ev.Payload.Node.Text)
		}
		if r := ev.Payload.Run; r != nil && r.Status == core.RunCompleted {
			ended[r.Thread] = true
			if r.Thread == "t2" && r.Reply != "t2 first t2 second t2 third" {
				t.Fatalf("t2's reply %q: a short reply travels whole (notifications show it)", r.Reply)
			}
		}
	}
	if text["t2"] != "" {
		t.Fatalf("a client showing t1 got t2's text %q", text["t2"])
	}
	// The first delta creates the node (journaled); the rest stream live
	// and are journaled at the final one.
	if want := "t1 first t1 second t1 third"; !strings.HasPrefix(want, text["t1"]) || text["t1"] == "" {
		t.Fatalf("t1's journaled text %q, want a prefix of %q", text["t1"], want)
	}

	again, err := c.SubscribeShown(ctx, 0, []string{"t1"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, n := range again.State.Nodes {
		if n.Kind == core.NodeAssistantMessage {
			seen[n.Thread] += n.Text + "|"
		}
	}
	if seen["t1"] != "t1 first t1 second t1 third|" || seen["t2"] != "|" {
		t.Fatalf("starting state: t1's reply %q, t2's %q; want t1's whole text and t2's node without text", seen["t1"], seen["t2"])
	}
}

// A long reply of a thread not shown travels cut to what a notification
// shows, on a rune boundary; the event the other subscribers share is
// untouched.
func TestWatchFilterCutsOtherThreadsReplies(t *testing.T) {
	reply := strings.Repeat("é", core.MaxNoticeText)
	node := &core.Node{ID: "t2/1/a1/n1", Thread: "t2", Text: "output"}
	ev := core.Event{Seq: 9, Type: core.EvRunUpdated, Thread: "t2",
		Payload: core.Payload{Run: &core.Run{ID: "t2/1", Thread: "t2", Reply: reply}, Node: node}}
	got, ok := watchFilter([]string{"t1"})(ev)
	if !ok || len(got.Payload.Run.Reply) > core.MaxNoticeText || !utf8.ValidString(got.Payload.Run.Reply) ||
		!strings.HasPrefix(reply, got.Payload.Run.Reply) || got.Payload.Node.Text != "" {
		t.Fatalf("filtered: sent %v, reply of %d bytes, node text %q", ok, len(got.Payload.Run.Reply), got.Payload.Node.Text)
	}
	if ev.Payload.Run.Reply != reply || node.Text != "output" {
		t.Fatal("the filter changed the shared event")
	}
	if got, _ := watchFilter([]string{"t2"})(ev); got.Payload.Run.Reply != reply {
		t.Fatal("the shown thread's reply was cut")
	}
}
