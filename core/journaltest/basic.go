package journaltest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func testEmpty(t *testing.T, h *harness) {
	j := h.open()
	if j.Last() != 0 {
		t.Fatalf("a new journal says Last() = %d, want 0", j.Last())
	}
	for _, from := range []uint64{0, 1, 2} {
		calls := 0
		err := j.Read(context.Background(), from, func(core.Event) error { calls++; return nil })
		if err != nil || calls != 0 {
			t.Fatalf("Read(%d) of an empty journal: %d calls, error %v; want none", from, calls, err)
		}
	}
	if st, err := j.LoadSnapshot(); err != nil || st != nil {
		t.Fatalf("LoadSnapshot of a new journal = %v, %v; want nil, nil", st, err)
	}
}

func testAppendRead(t *testing.T, h *harness) {
	j := h.open()
	first := commits("a", 1, 1, 3, 2) // seqs 1 | 2 3 4 | 5 6
	// A large event, as a long reply or tool output makes.
	first[1].Events[1].Payload.Text = strings.Repeat("long output line ✓\n", 3500)
	mustAppend(t, j, first)
	second := commits("b", 7, 4) // 7 8 9 10
	mustAppend(t, j, second)
	third := commits("c", 11, 1, 1) // 11 | 12
	mustAppend(t, j, third)
	all := flatten(append(append(first, second...), third...))

	for _, from := range []uint64{0, 1, 2, 3, 5, 7, 9, 11, 12} {
		start := max(from, 1) - 1
		sameEvents(t, "Read from "+strconv.FormatUint(from, 10), ReadAll(t, j, from), all[start:])
	}
	for _, from := range []uint64{13, 14, 1000} {
		if got := ReadAll(t, j, from); len(got) != 0 {
			t.Fatalf("Read from %d past the end returned %s", from, seqs(got))
		}
	}
}

func testSeqMismatch(t *testing.T, h *harness) {
	j := h.open()
	base := commits("a", 1, 2, 1)
	mustAppend(t, j, base)
	bad := map[string][]core.Commit{
		"a gap after Last":       commits("x", 5, 1),
		"a seq already written":  commits("x", 3, 2),
		"seq 1 again":            commits("x", 1, 1),
		"a jump inside a batch":  append(commits("x", 4, 1), commits("y", 6, 1)...),
		"a jump inside a commit": {{Command: "z", Events: []core.Event{event(4, "z"), event(6, "z")}}},
		"a later commit from 1":  append(commits("x", 4, 2), commits("y", 1, 1)...),
	}
	for name, cs := range bad {
		err := j.Append(context.Background(), cs)
		if !errors.Is(err, core.ErrSeqMismatch) {
			t.Fatalf("%s: Append returned %v, want core.ErrSeqMismatch", name, err)
		}
		if j.Last() != 3 {
			t.Fatalf("%s: Last() = %d after a refused Append, want 3", name, j.Last())
		}
		sameEvents(t, name+": the journal after a refused Append", ReadAll(t, j, 1), flatten(base))
	}
	next := commits("n", 4, 2)
	mustAppend(t, j, next)
	sameEvents(t, "the journal after a good Append", ReadAll(t, j, 1), flatten(append(base, next...)))
}

func testEmptyAppend(t *testing.T, h *harness) {
	j := h.open()
	for name, cs := range map[string][]core.Commit{
		"nil":                       nil,
		"no commits":                {},
		"a commit without events":   {{Command: "noop"}},
		"two commits without any":   {{}, {Command: "noop2"}},
		"on an empty journal again": nil,
	} {
		if err := j.Append(context.Background(), cs); err != nil {
			t.Fatalf("Append of %s: %v", name, err)
		}
		if j.Last() != 0 {
			t.Fatalf("Append of %s moved Last() to %d", name, j.Last())
		}
	}
	base := commits("a", 1, 2)
	mustAppend(t, j, base)
	if err := j.Append(context.Background(), []core.Commit{{Command: "noop3"}}); err != nil || j.Last() != 2 {
		t.Fatalf("Append of a commit without events after seq 2: %v, Last() = %d", err, j.Last())
	}
	// Commits without events may stand between commits with events.
	mixed := []core.Commit{{Command: "e1"}, commit("m", 3, 1), {}, commit("", 4, 2)}
	mustAppend(t, j, mixed)
	sameEvents(t, "the journal", ReadAll(t, j, 0), flatten(append(base, mixed...)))
}

func testReadStops(t *testing.T, h *harness) {
	j := h.open()
	cs := commits("a", 1, 3, 3, 3)
	mustAppend(t, j, cs)
	stop := errors.New("enough")
	for _, from := range []uint64{1, 4} {
		for _, after := range []int{1, 2, 4} {
			var got []core.Event
			err := j.Read(context.Background(), from, func(ev core.Event) error {
				got = append(got, ev)
				if len(got) == after {
					return stop
				}
				return nil
			})
			if !errors.Is(err, stop) {
				t.Fatalf("Read from %d, fn failing at call %d: returned %v, want fn's error", from, after, err)
			}
			sameEvents(t, "events before fn failed", got, flatten(cs)[from-1:from-1+uint64(after)])
		}
	}
}

func testReadCancelled(t *testing.T, h *harness) {
	j := h.open()
	cs := commits("a", 1, 2, 2)
	mustAppend(t, j, cs)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, from := range []uint64{1, 3} {
		var got []core.Event
		err := j.Read(ctx, from, func(ev core.Event) error { got = append(got, ev); return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Read from %d with a cancelled context returned %v, want context.Canceled", from, err)
		}
		// Whatever came before the journal noticed must still be in order.
		if len(got) > 0 {
			sameEvents(t, "events of a cancelled Read", got, flatten(cs)[from-1:from-1+uint64(len(got))])
		}
	}
}
