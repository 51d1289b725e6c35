package journaltest

import (
	"context"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func testSnapshot(t *testing.T, h *harness) {
	j := h.open()
	cs := commits("a", 1, 3, 3, 3, 3) // 1-3 | 4-6 | 7-9 | 10-12
	mustAppend(t, j, cs)
	all := flatten(cs)

	save(t, j, replay(t, all[:6]))
	sameState(t, "the snapshot at seq 6", load(t, j), replay(t, all[:6]))

	save(t, j, replay(t, all[:9]))
	sameState(t, "the newer snapshot (seq 9)", load(t, j), replay(t, all[:9]))

	// A snapshot need not fall on a commit boundary.
	save(t, j, replay(t, all[:11]))
	got := load(t, j)
	sameState(t, "the snapshot at seq 11, inside a commit", got, replay(t, all[:11]))

	// The Runner's start: the snapshot plus the tail is the whole journal.
	for _, ev := range ReadAll(t, j, got.Seq+1) {
		if err := got.Apply(&ev); err != nil {
			t.Fatalf("apply the tail to the snapshot: %v", err)
		}
	}
	sameState(t, "snapshot + tail", got, replay(t, all))
	st, err := core.Load(context.Background(), j)
	if err != nil {
		t.Fatalf("core.Load: %v", err)
	}
	sameState(t, "core.Load", st, replay(t, all))
}

func testReopen(t *testing.T, h *harness) {
	j := h.open()
	cs := commits("a", 1, 2, 1, 3, 3) // 1-2 | 3 | 4-6 | 7-9
	mustAppend(t, j, cs)
	save(t, j, replay(t, flatten(cs)[:6]))
	more := commits("b", 10, 3)
	mustAppend(t, j, more)
	cs = append(cs, more...)

	j = h.reopen(j)
	if j.Last() != 12 {
		t.Fatalf("after reopening Last() = %d, want 12", j.Last())
	}
	sameEvents(t, "the reopened journal", ReadAll(t, j, 1), flatten(cs))
	sameEvents(t, "the reopened journal from seq 5", ReadAll(t, j, 5), flatten(cs)[4:])
	sameState(t, "the snapshot after reopening", load(t, j), replay(t, flatten(cs)[:6]))

	// Snapshot what a start would load (a store hands back sealed runs),
	// then go on appending after the reopen.
	st, err := core.Load(context.Background(), j)
	if err != nil {
		t.Fatalf("core.Load: %v", err)
	}
	save(t, j, st)
	after := commits("c", 13, 1, 2)
	mustAppend(t, j, after)
	cs = append(cs, after...)

	j = h.reopen(j)
	if j.Last() != 15 {
		t.Fatalf("after the second reopen Last() = %d, want 15", j.Last())
	}
	sameEvents(t, "the journal reopened twice", ReadAll(t, j, 0), flatten(cs))
	sameState(t, "the snapshot saved after a load", load(t, j), replay(t, flatten(cs)[:12]))
	st, err = core.Load(context.Background(), j)
	if err != nil {
		t.Fatalf("core.Load after the second reopen: %v", err)
	}
	sameState(t, "core.Load after the second reopen", st, replay(t, flatten(cs)))
}

// replay is the projection of evs from an empty state.
func replay(t *testing.T, evs []core.Event) *core.State {
	t.Helper()
	st := core.NewState()
	for i := range evs {
		if err := st.Apply(&evs[i]); err != nil {
			t.Fatalf("replay: %v", err)
		}
	}
	return st
}

func save(t *testing.T, j core.Journal, st *core.State) {
	t.Helper()
	if err := j.SaveSnapshot(st.Clone()); err != nil {
		t.Fatalf("save the snapshot at seq %d: %v", st.Seq, err)
	}
}

func load(t *testing.T, j core.Journal) *core.State {
	t.Helper()
	st, err := j.LoadSnapshot()
	if err != nil {
		t.Fatalf("load the snapshot: %v", err)
	}
	if st == nil {
		t.Fatal("LoadSnapshot returned no snapshot after one was saved")
	}
	return st
}

// sameState fails unless got and want are the same projection. Sealing
// is a representation (a store may hand back finished runs sealed), so
// both are compared with every run thawed.
func sameState(t *testing.T, what string, got, want *core.State) {
	t.Helper()
	if got.Seq != want.Seq {
		t.Fatalf("%s: seq %d, want %d", what, got.Seq, want.Seq)
	}
	g, w := got.Clone(), want.Clone()
	for _, st := range []*core.State{g, w} {
		st.Reindex()
		if err := st.ThawAll(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if a, b := encode(t, g), encode(t, w); a != b {
		t.Fatalf("%s: the projection differs\n got %.2000s\nwant %.2000s", what, a, b)
	}
}
