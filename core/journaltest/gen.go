package journaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// baseTime is the At of seq 0 (unix nanos), so events look recent.
const baseTime = int64(1_760_000_000_000_000_000)

// event returns the event at seq, deterministic in seq and the command
// of its commit. Every six seqs tell one finished run of its own thread
// (thread, run, attempt, node, its text, a warning), so a projection of
// the journal holds whole entities, and finished runs a store may seal.
func event(seq uint64, command string) core.Event {
	story := (seq - 1) / 6
	th := fmt.Sprintf("t%d", story)
	run := core.RunID(th, 1)
	att := core.AttemptID(run, 1)
	node := core.NodeID(att, 1)
	at := baseTime + int64(seq)*1_000_000
	ev := core.Event{Seq: seq, ID: fmt.Sprintf("e%d", seq), Thread: th, Causation: command, At: at}
	switch (seq - 1) % 6 {
	case 0:
		ev.Type = core.EvThreadUpdated
		ev.Payload.Thread = &core.Thread{ID: th, Title: fmt.Sprintf("thread %d: «ünïcode» ✓", story),
			Provider: "builtin", Status: core.ThreadIdle, Runs: 1}
	case 1:
		ev.Type, ev.Run = core.EvRunUpdated, run
		ev.Payload.Run = &core.Run{ID: run, Thread: th, Ordinal: 1, Status: core.RunCompleted,
			Text: "fix the build", Steers: []string{"and the tests"}}
	case 2:
		ev.Type, ev.Run, ev.Attempt = core.EvAttemptUpdated, run, att
		ev.Payload.Attempt = &core.Attempt{ID: att, Run: run, Thread: th, N: 1, Reason: core.ReasonInitial,
			Status: core.AttemptCompleted, StartedAt: at, EndedAt: at + 5}
	case 3:
		ev.Type, ev.Run, ev.Attempt, ev.Node = core.EvNodeUpdated, run, att, node
		ev.Payload.Node = &core.Node{ID: node, Attempt: att, Run: run, Thread: th, Kind: core.NodeAssistantMessage,
			Status: core.NodeCompleted, Text: "done", StartedAt: at, EndedAt: at + 1, TokensIn: 1200, TokensOut: 345}
	case 4:
		ev.Type, ev.Run, ev.Attempt, ev.Node, ev.Correlation = core.EvNodeText, run, att, node, "c"+th
		ev.Payload.Text = " and more text\n"
	default:
		ev.Type = core.EvRuntimeWarning
		ev.Payload.Note = "a warning with a float budget"
		ev.Payload.DailyUSD = 12.5
	}
	return ev
}

// commit returns a commit of n events from seq first.
func commit(command string, first uint64, n int) core.Commit {
	c := core.Commit{Command: command}
	for i := range n {
		c.Events = append(c.Events, event(first+uint64(i), command))
	}
	return c
}

// commits returns commits of the given sizes from seq first, each with
// its own command id (prefix plus its index); the odd ones carry none,
// like provider observations.
func commits(prefix string, first uint64, sizes ...int) []core.Commit {
	var out []core.Commit
	for i, n := range sizes {
		cmd := ""
		if i%2 == 0 {
			cmd = fmt.Sprintf("%s-%d", prefix, i)
		}
		out = append(out, commit(cmd, first, n))
		first += uint64(n)
	}
	return out
}

// flatten returns the events of commits in order.
func flatten(cs []core.Commit) []core.Event {
	var out []core.Event
	for _, c := range cs {
		out = append(out, c.Events...)
	}
	return out
}

// mustAppend appends and checks that Last followed.
func mustAppend(t *testing.T, j core.Journal, cs []core.Commit) {
	t.Helper()
	if err := j.Append(context.Background(), cs); err != nil {
		t.Fatalf("append: %v", err)
	}
	if evs := flatten(cs); len(evs) > 0 {
		if want := evs[len(evs)-1].Seq; j.Last() != want {
			t.Fatalf("Last() = %d after appending through seq %d", j.Last(), want)
		}
	}
}

// ReadAll returns every event of j from seq from, failing t on an error.
func ReadAll(t testing.TB, j core.Journal, from uint64) []core.Event {
	t.Helper()
	var out []core.Event
	if err := j.Read(context.Background(), from, func(ev core.Event) error {
		out = append(out, ev)
		return nil
	}); err != nil {
		t.Fatalf("read from %d: %v", from, err)
	}
	return out
}

// sameEvents fails unless got equals want field for field, in order.
func sameEvents(t *testing.T, what string, got, want []core.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events (%s), want %d (%s)", what, len(got), seqs(got), len(want), seqs(want))
	}
	for i := range want {
		g, w := encode(t, got[i]), encode(t, want[i])
		if g != w {
			t.Fatalf("%s: event %d differs\n got %s\nwant %s", what, i, g, w)
		}
	}
}

// encode is the JSON encoding of v, which covers every field of
// core.Event and of core.State but its seals.
func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return string(b)
}

// seqs summarises the seqs of evs for a failure message.
func seqs(evs []core.Event) string {
	if len(evs) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, ev := range evs {
		if i == 8 {
			fmt.Fprintf(&b, " ... %d", evs[len(evs)-1].Seq)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, ev.Seq)
	}
	return b.String()
}
