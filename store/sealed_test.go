package store

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// runHistory renders what the accessors say about every run of st.
func runHistory(st *core.State) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, id := range slices.Sorted(maps.Keys(st.Runs)) {
		for _, a := range st.AttemptsOf(id) {
			_ = enc.Encode(a)
			for _, n := range st.NodesOf(a.ID) {
				_ = enc.Encode(n)
			}
		}
		_ = enc.Encode(st.EffectsOf(id))
		_ = enc.Encode(st.Plan(core.PlanID(id)))
	}
	return b.String()
}

func vaultKeys(t *testing.T, s *Store) [][]byte {
	t.Helper()
	var keys [][]byte
	_ = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketVault)
		if v == nil {
			return nil
		}
		return v.ForEach(func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		})
	})
	return keys
}

// A snapshot keeps finished runs sealed in the vault; a reopened store
// loads only the live part and reads a sealed history on first use, the
// same as a full replay; the next snapshot names the same blobs without
// rewriting them.
func TestSealedRunsLoadLazilyAndMatchReplay(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, journalgen.New(41).Commits(3000), 20)
	full := stateAt(t, s, s.Last())
	if err := s.SaveSnapshot(full.Clone()); err != nil {
		t.Fatal(err)
	}
	blobs := len(vaultKeys(t, s))
	s.Close()

	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.LoadSnapshot()
	if err != nil || st == nil {
		t.Fatalf("LoadSnapshot: %v", err)
	}
	if len(st.Sealed) == 0 || len(st.Sealed) != blobs {
		t.Fatalf("%d runs sealed, %d blobs in the vault; want the finished runs sealed, one blob each", len(st.Sealed), blobs)
	}
	if len(st.Nodes) >= len(full.Nodes)/2 {
		t.Fatalf("the loaded state holds %d of %d nodes: sealed histories were decoded eagerly", len(st.Nodes), len(full.Nodes))
	}
	if got, want := runHistory(st), runHistory(full); got != want {
		t.Fatal("a sealed run reads differently from the full replay")
	}
	// Snapshotting the loaded (still sealed) state writes the same body
	// as the full replay and no new blob.
	a, _ := EncodeState(st)
	b, _ := EncodeState(full)
	if !bytes.Equal(a, b) {
		t.Fatal("a loaded state encodes differently from the full replay")
	}
	if err := s.SaveSnapshot(st.Clone()); err != nil {
		t.Fatal(err)
	}
	if n := len(vaultKeys(t, s)); n != blobs {
		t.Fatalf("re-snapshotting sealed runs wrote %d new blobs", n-blobs)
	}
	rep, err := s.Verify(context.Background())
	if err != nil || !rep.OK {
		t.Fatalf("verify: %v %+v", err, rep)
	}
}

// A damaged sealed blob fails verify with the run's ref; repair drops the
// snapshots that name it and the journal opens by replay, nothing lost.
func TestDamagedSealedRunIsFoundAndRepaired(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, journalgen.New(43).Commits(2000), 20)
	last := s.Last()
	full := stateAt(t, s, last)
	if err := s.SaveSnapshot(full.Clone()); err != nil {
		t.Fatal(err)
	}
	key := vaultKeys(t, s)[0]
	s.Close()
	rawUpdate(t, dir, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVault)
		v := append([]byte(nil), b.Get(key)...)
		v[len(v)/2] ^= 0x20
		return b.Put(key, v)
	})
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Verify(context.Background())
	s.Close()
	if err != nil || rep.OK || !strings.Contains(rep.Reason, "sealed run") {
		t.Fatalf("verify of a damaged vault: %v, ok=%v %q", err, rep.OK, rep.Reason)
	}
	res, err := Repair(context.Background(), dir, Options{})
	if err != nil || !res.After.OK || res.Dropped != 0 {
		t.Fatalf("repair: %v, after ok=%v, dropped %d events", err, res.After.OK, res.Dropped)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := core.Load(context.Background(), s)
	if err != nil || st.Seq != last {
		t.Fatalf("load after repair: seq %d, %v", st.Seq, err)
	}
	if runHistory(st) != runHistory(full) {
		t.Fatal("the repaired journal lost history")
	}
}
