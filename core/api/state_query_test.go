package api

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// One thread's long outputs never make another command's state large: a
// brief state carries no transcript, a state of some threads only theirs,
// and a subscription's starting state the same.
func TestStateQueryKeepsOtherThreadsSmall(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	ctx := context.Background()
	createThread(t, c, "t1")
	createThread(t, c, "t2")
	big := strings.Repeat("x", core.MaxNodeText)
	for th, n := range map[string]int{"t1": 8, "t2": 1} {
		rec, err := c.Submit(ctx, core.Command{ID: "s-" + th, Kind: core.CmdMessageSend, Thread: th, Text: "go"})
		if err != nil {
			t.Fatal(err)
		}
		att := core.AttemptID(rec.Run, 1)
		for i := 0; i < n; i++ {
			text := big
			if th == "t2" {
				text = "small output"
			}
			o := core.Observation{Kind: core.ObsNode, Key: "tool" + strconv.Itoa(i), NodeKind: core.NodeToolCall, Title: "run", Text: text,
				Thread: th, Run: rec.Run, Attempt: att}
			if err := h.runner.Observe(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	whole, err := c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if size := len(mustJSON(t, whole)); size < 8*core.MaxNodeText {
		t.Fatalf("the whole state has %d bytes: the test needs thread t1's 8 MiB in it", size)
	}
	brief, err := c.StateOf(ctx, StateQuery{Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	if size := len(mustJSON(t, brief)); size > 64<<10 || len(brief.Nodes) != 0 || len(brief.Threads) != 2 || len(brief.Runs) != 2 {
		t.Fatalf("brief state: %d bytes, %d nodes, %d threads, %d runs; want under 64 KiB, no nodes, every thread and run",
			size, len(brief.Nodes), len(brief.Threads), len(brief.Runs))
	}
	only, err := c.StateOf(ctx, StateQuery{Threads: []string{"t2"}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range only.Nodes {
		if n.Thread != "t2" {
			t.Fatalf("a state of t2 carries node %s of %s", n.ID, n.Thread)
		}
		found = found || n.Text == "small output"
	}
	if size := len(mustJSON(t, only)); size > 64<<10 || !found {
		t.Fatalf("a state of t2: %d bytes, its output found %v; want under 64 KiB with t2's output", size, found)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub, err := c.SubscribeOf(sctx, 0, StateQuery{Threads: []string{"t2"}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(sub.State); len(b) > 64<<10 || len(sub.State.Threads) != 2 {
		t.Fatalf("a subscription's state of t2 has %d bytes and %d threads", len(b), len(sub.State.Threads))
	}
}
