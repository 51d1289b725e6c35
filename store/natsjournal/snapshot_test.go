package natsjournal

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
)

// replay is the projection of evs.
func replay(t testing.TB, evs []core.Event) *core.State {
	t.Helper()
	st := core.NewState()
	for i := range evs {
		if err := st.Apply(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// sameState compares two projections by the store's deterministic
// encoding, which covers every field.
func sameState(t testing.TB, what string, got, want *core.State) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no snapshot", what)
	}
	g, err := store.EncodeState(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := store.EncodeState(want)
	if err != nil {
		t.Fatal(err)
	}
	if got.Seq != want.Seq || !bytes.Equal(g, w) {
		t.Fatalf("%s: the projection at seq %d differs from the one at seq %d (%d vs %d bytes)", what, got.Seq, want.Seq, len(g), len(w))
	}
}

// SaveSnapshot keeps the newest two; LoadSnapshot takes the newest that
// verifies and falls back to the older one, then to none.
func TestSnapshotKeepsTwoAndFallsBack(t *testing.T) {
	h := startHub(t, t.TempDir())
	j := openJ(t, connect(t, h.url), Options{})
	cs := gen(5, 0, 300)
	mustAppend(t, j, cs...)
	all := readAll(t, j, 1)
	for _, seq := range []uint64{100, 200, 250} {
		if err := j.SaveSnapshot(replay(t, all[:seq])); err != nil {
			t.Fatalf("save the snapshot at seq %d: %v", seq, err)
		}
	}
	seqs, err := j.snapshots(context.Background())
	if err != nil || !slices.Equal(seqs, []uint64{250, 200}) {
		t.Fatalf("the bucket holds snapshots %v (%v), want 250 and 200", seqs, err)
	}
	st, err := j.LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "the newest snapshot", st, replay(t, all[:250]))

	if err := j.SaveSnapshot(replay(t, all[:250]).Clone()); err != nil {
		t.Fatal(err)
	}
	if err := j.SaveSnapshot(&core.State{Seq: j.Last() + 1}); err == nil || !strings.Contains(err.Error(), "caller bug") {
		t.Fatalf("a snapshot past the journal's end: %v, want it refused", err)
	}

	put := func(seq uint64, val []byte) {
		t.Helper()
		if _, err := j.objs.PutBytes(context.Background(), snapName(seq), val); err != nil {
			t.Fatal(err)
		}
	}
	// A damaged newest snapshot: the older one is used.
	put(250, []byte("not a snapshot"))
	st, err = j.LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "the fallback", st, replay(t, all[:200]))

	// One past the journal's end (a longer history) is passed over, and
	// one recording another history's chain hash too.
	good, err := j.objs.GetBytes(context.Background(), snapName(200))
	if err != nil {
		t.Fatal(err)
	}
	past := slices.Clone(good)
	binary.BigEndian.PutUint64(past[12:], j.Last()+1)
	put(j.Last()+1, past)
	other := slices.Clone(good)
	other[20] ^= 0xff // the chain hash
	put(200, other)
	if st, err := j.LoadSnapshot(); err != nil || st != nil {
		t.Fatalf("with no usable snapshot LoadSnapshot returned %v, %v; want nil, nil", st, err)
	}
}

// A state holding sealed runs (as the bbolt store hands them back) is
// snapshotted whole: the histories are loaded into it, so the NATS
// journal needs no vault. A seal that cannot be read makes SaveSnapshot
// fail instead of storing a projection without that history.
func TestSnapshotThawsSealedRuns(t *testing.T) {
	h := startHub(t, t.TempDir())
	j := openJ(t, connect(t, h.url), Options{})
	mustAppend(t, j, gen(6, 0, 400)...)
	full := replay(t, readAll(t, j, 1))

	sealed := full.Clone()
	var run string
	for id := range sealed.Runs {
		if sealed.Sealable(id) && len(sealed.SealOf(id).Attempts) > 0 {
			run = id
			break
		}
	}
	if run == "" {
		t.Fatal("the generated journal has no finished run to seal")
	}
	seal(sealed, run, func(h *core.SealedRun) (*core.SealedRun, error) { return h, nil })
	if err := j.SaveSnapshot(sealed); err != nil {
		t.Fatal(err)
	}
	st, err := j.LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sealed) != 0 {
		t.Fatalf("the loaded snapshot holds %d seals, want every run in it", len(st.Sealed))
	}
	sameState(t, "the snapshot of a sealed state", st, full)

	broken := full.Clone()
	seal(broken, run, func(*core.SealedRun) (*core.SealedRun, error) { return nil, errors.New("vault damaged") })
	if err := j.SaveSnapshot(broken); err == nil || !strings.Contains(err.Error(), "vault damaged") {
		t.Fatalf("snapshotting an unreadable seal returned %v, want its error", err)
	}
}

// seal moves run's history out of st's hot maps behind a seal whose
// loader gets the history, as a state loaded by the bbolt store holds it.
func seal(st *core.State, run string, load func(*core.SealedRun) (*core.SealedRun, error)) {
	hist := st.SealOf(run)
	for _, a := range hist.Attempts {
		delete(st.Attempts, a.ID)
	}
	for _, n := range hist.Nodes {
		delete(st.Nodes, n.ID)
	}
	if hist.Plan != nil {
		delete(st.Plans, hist.Plan.ID)
	}
	for _, e := range hist.Effects {
		delete(st.Effects, e.Key)
	}
	st.Sealed[run] = &core.Seal{Ref: strings.Repeat("ab", 32), Load: func() (*core.SealedRun, error) { return load(hist) }}
	st.Reindex()
}
