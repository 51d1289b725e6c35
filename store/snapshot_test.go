package store

import (
	"bytes"
	"context"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

func snapshotSeqs(t *testing.T, s *Store) []uint64 {
	t.Helper()
	var seqs []uint64
	_ = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSnapshots).ForEach(func(k, _ []byte) error {
			seqs = append(seqs, seqOf(k))
			return nil
		})
	})
	return seqs
}

func TestSnapshotsKeepTwoAndFallBack(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.LoadSnapshot(); err != nil || st != nil {
		t.Fatalf("empty journal LoadSnapshot = %v, %v", st != nil, err)
	}
	cs := journalgen.New(31).Commits(600)
	appendAll(t, s, cs, 10)
	for _, seq := range []uint64{100, 200, 300, 400} {
		if err := s.SaveSnapshot(stateAt(t, s, seq)); err != nil {
			t.Fatal(err)
		}
	}
	if got := snapshotSeqs(t, s); !slices.Equal(got, []uint64{300, 400}) {
		t.Fatalf("snapshots kept: %v, want [300 400]", got)
	}
	st, err := s.LoadSnapshot()
	if err != nil || st == nil || st.Seq != 400 {
		t.Fatalf("LoadSnapshot = %v, %v; want seq 400", st != nil, err)
	}
	want, _ := EncodeState(stateAt(t, s, 400))
	if got, _ := EncodeState(st); !bytes.Equal(got, want) {
		t.Fatal("loaded snapshot differs from the replay at its seq")
	}
	if err := s.SaveSnapshot(&core.State{Seq: 601}); err == nil {
		t.Fatal("a snapshot ahead of the journal was accepted")
	}
	s.Close()

	// Damage the newest body: the older one must load.
	rawUpdate(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSnapshots)
		v := append([]byte(nil), b.Get(seqKey(400))...)
		v[len(v)-5] ^= 1
		return b.Put(seqKey(400), v)
	})
	s = openT(t, dir)
	if st, err := s.LoadSnapshot(); err != nil || st == nil || st.Seq != 300 {
		t.Fatalf("LoadSnapshot with a damaged newest = %v, %v; want seq 300", st != nil, err)
	}
	rep, err := s.Verify(context.Background())
	if err != nil || rep.OK || !slices.Equal(rep.BadSnapshots, []uint64{400}) || !slices.Equal(rep.Snapshots, []uint64{300}) || rep.FirstBad != 0 {
		t.Fatalf("Verify = %+v, %v; want snapshot 400 bad, events fine", rep, err)
	}
	s.Close()

	// A snapshot whose chain hash is not this journal's is refused too.
	rawUpdate(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSnapshots)
		v := append([]byte(nil), b.Get(seqKey(300))...)
		v[25] ^= 1
		return b.Put(seqKey(300), v)
	})
	s = openT(t, dir)
	if st, err := s.LoadSnapshot(); err != nil || st != nil {
		t.Fatalf("LoadSnapshot with both damaged = %v, %v; want nil", st != nil, err)
	}
}

// TestSnapshotPlusTailEqualsFullReplay is the replay property
// (docs/ARCHITECTURE.md, "The journal") over random journals: at random
// points a snapshot is saved; each time, LoadSnapshot + Read of the tail
// must encode to the same bytes as a replay from seq 1, also after
// reopening.
func TestSnapshotPlusTailEqualsFullReplay(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 99))
		dir := t.TempDir()
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := journalgen.New(seed * 1000)
		full := core.NewState()
		for round := 0; round < 8; round++ {
			cs := g.Commits(50 + rnd.IntN(400))
			appendAll(t, s, cs, 1+rnd.IntN(20))
			for _, ev := range journalgen.Flatten(cs) {
				if err := full.Apply(&ev); err != nil {
					t.Fatal(err)
				}
			}
			if rnd.IntN(3) > 0 {
				// Snapshot somewhere in the past, as a Runner that lags would.
				at := s.Last() - uint64(rnd.IntN(int(min(s.Last(), 200))))
				if err := s.SaveSnapshot(stateAt(t, s, at)); err != nil {
					t.Fatal(err)
				}
			}
			if rnd.IntN(4) == 0 {
				s.Close()
				if s, err = Open(dir, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			checkReplay(t, s, full)
		}
		rep, err := s.Verify(context.Background())
		if err != nil || !rep.OK {
			t.Fatalf("seed %d: Verify = %+v, %v", seed, rep, err)
		}
		s.Close()
	}
}

func checkReplay(t *testing.T, s *Store, full *core.State) {
	t.Helper()
	st, err := s.LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if st == nil {
		st = core.NewState()
	}
	if err := s.Read(context.Background(), st.Seq+1, func(ev core.Event) error { return st.Apply(&ev) }); err != nil {
		t.Fatal(err)
	}
	got, _ := EncodeState(st)
	want, _ := EncodeState(full)
	if !bytes.Equal(got, want) {
		t.Fatalf("snapshot at %d + tail (%d bytes) differs from the full replay to %d (%d bytes)",
			st.Seq, len(got), full.Seq, len(want))
	}
	// The restored projection must also keep working: its derived index
	// answers like the full replay's.
	for id := range full.Threads {
		if a, b := st.RunsOf(id), full.RunsOf(id); len(a) != len(b) || (len(a) > 0 && a[len(a)-1].ID != b[len(b)-1].ID) {
			t.Fatalf("thread %s: restored RunsOf differs", id)
		}
	}
}
