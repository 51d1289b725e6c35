package store

import (
	"bytes"
	"context"
	"errors"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// rawUpdate edits a closed journal with plain bbolt, as damage would.
func rawUpdate(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, JournalFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func rawValue(t *testing.T, path string, bucket []byte, seq uint64) []byte {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v []byte
	_ = db.View(func(tx *bolt.Tx) error {
		v = append([]byte(nil), tx.Bucket(bucket).Get(seqKey(seq))...)
		return nil
	})
	return v
}

// flip inverts one byte of the stored value of seq at offset off.
func flip(t *testing.T, dir string, seq uint64, off int) {
	rawUpdate(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		v := append([]byte(nil), b.Get(seqKey(seq))...)
		v[off] ^= 0x20
		return b.Put(seqKey(seq), v)
	})
}

func TestFlippedByteIsFoundAndRepaired(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  int
	}{{"event byte", hashSize + 20}, {"hash byte", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			appendAll(t, s, journalgen.New(21).Commits(5000), 50)
			if err := s.SaveSnapshot(stateAt(t, s, 4000)); err != nil {
				t.Fatal(err)
			}
			if err := s.SaveSnapshot(stateAt(t, s, 4500)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			const bad = 4321
			flip(t, dir, bad, tc.off)
			flipped := rawValue(t, filepath.Join(dir, JournalFile), bucketEvents, bad)

			s = openT(t, dir) // meta and the tail are intact: Open succeeds
			rep, err := s.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.FirstBad != bad || rep.Events != bad-1 || rep.LastSeq != 5000 {
				t.Fatalf("Verify = %+v, want FirstBad %d", rep, bad)
			}
			if !strings.Contains(rep.Reason, "4321") {
				t.Fatalf("reason %q does not name the seq", rep.Reason)
			}
			var ce *CorruptError
			err = s.Read(context.Background(), 1, func(core.Event) error { return nil })
			if !errors.As(err, &ce) || ce.Seq != bad || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read = %v, want CorruptError at %d", err, bad)
			}
			if !strings.HasPrefix(err.Error(), "store: journal corrupt at seq 4321: ") || !strings.HasSuffix(err.Error(), "run nexus verify --repair") {
				t.Fatalf("message %q", err)
			}
			// Damage to an event's bytes leaves the chain after it intact
			// (its stored hash still vouches for the next one); damage to
			// its hash breaks the link to the next event.
			err = s.Read(context.Background(), bad+1, func(core.Event) error { return nil })
			if tc.off >= hashSize && err != nil {
				t.Fatalf("read after damaged event bytes: %v", err)
			}
			if tc.off < hashSize && (!errors.As(err, &ce) || ce.Seq != bad+1) {
				t.Fatalf("read after a damaged hash = %v, want CorruptError at %d", err, bad+1)
			}
			// The snapshot at 4500 was taken from the good event and its
			// own chain link is intact, so it still loads.
			if st, err := s.LoadSnapshot(); err != nil || st == nil || st.Seq != 4500 {
				t.Fatalf("LoadSnapshot after damage = %v; want the one at 4500", err)
			}
			s.Close()

			// The flip went through bbolt, which wrote the leaf to a new
			// page: the freed one still holds the intact event, and the
			// repair finds it (damage_test.go damages every copy).
			res, err := Repair(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.After.OK || res.After.LastSeq != 5000 || res.Kept != 5000 || len(res.Lost) != 0 || res.Dropped != 0 {
				t.Fatalf("Repair = %+v", res)
			}
			if !slices.Equal(res.After.Snapshots, []uint64{5000}) {
				t.Fatalf("snapshots after repair: %v, want the rebuilt one at 5000", res.After.Snapshots)
			}
			if got := rawValue(t, res.Backup, bucketEvents, bad); !bytes.Equal(got, flipped) {
				t.Fatal("the backup does not hold the original damaged journal")
			}
			if fi, err := os.Stat(res.Backup); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("backup %s: %v %v", res.Backup, fi.Mode(), err)
			}
			s = openT(t, dir)
			if s.Last() != 5000 {
				t.Fatalf("Last after repair = %d", s.Last())
			}
			// The repaired journal takes appends again.
			more := journalgen.Flatten(journalgen.New(21).Commits(5001))[5000:]
			if err := s.Append(context.Background(), []core.Commit{{Events: more}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMetaDisagreeingWithEventsFailsOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, journalgen.New(22).Commits(100), 10)
	s.Close()
	rawUpdate(t, dir, func(tx *bolt.Tx) error { return tx.Bucket(bucketEvents).Delete(seqKey(100)) })
	_, err = Open(dir, Options{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Seq != 100 {
		t.Fatalf("Open with a lost tail: %v, want CorruptError at 100", err)
	}
	// The delete went through bbolt: the freed page still holds event
	// 100, which chains, so the repair puts it back.
	res, err := Repair(context.Background(), dir, Options{})
	if err != nil || res.Before.FirstBad != 100 || res.After.LastSeq != 100 || !res.After.OK {
		t.Fatalf("Repair = %+v, %v", res, err)
	}
	s = openT(t, dir)
	if s.Last() != 100 {
		t.Fatalf("Last = %d after repair", s.Last())
	}
}

func TestRepairLeavesHealthyJournalAlone(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, journalgen.New(23).Commits(50), 10)
	s.Close()
	res, err := Repair(context.Background(), dir, Options{})
	if err != nil || !res.Before.OK || res.Backup != "" || res.After.LastSeq != 50 {
		t.Fatalf("Repair of a healthy journal = %+v, %v", res, err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, JournalFile+".corrupt-*"))
	if len(matches) != 0 {
		t.Fatalf("healthy repair left copies: %v", matches)
	}
}

// stateAt replays the journal up to seq.
func stateAt(t testing.TB, s *Store, seq uint64) *core.State {
	t.Helper()
	st := core.NewState()
	stop := errors.New("stop")
	err := s.Read(context.Background(), 1, func(ev core.Event) error {
		if ev.Seq > seq {
			return stop
		}
		return st.Apply(&ev)
	})
	if err != nil && err != stop {
		t.Fatal(err)
	}
	return st
}
