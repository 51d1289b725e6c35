package store

import (
	"context"
	"errors"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

func openT(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func readAll(t testing.TB, s *Store, from uint64) []core.Event {
	t.Helper()
	var out []core.Event
	if err := s.Read(context.Background(), from, func(ev core.Event) error {
		out = append(out, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// appendAll appends commits in batches of up to per commits.
func appendAll(t testing.TB, s *Store, cs []core.Commit, per int) {
	t.Helper()
	for len(cs) > 0 {
		n := min(per, len(cs))
		if err := s.Append(context.Background(), cs[:n]); err != nil {
			t.Fatal(err)
		}
		cs = cs[n:]
	}
}

// txID is bbolt's transaction id: it grows by one per committed write
// transaction, that is per fsync pair.
func txID(t testing.TB, s *Store) int {
	t.Helper()
	var id int
	if err := s.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestAppendReadRoundTrip(t *testing.T) {
	s := openT(t, t.TempDir())
	cs := journalgen.New(11).Commits(700)
	appendAll(t, s, cs, 5)
	if got := s.Last(); got != 700 {
		t.Fatalf("Last = %d, want 700", got)
	}
	want := journalgen.Flatten(cs)
	if got := readAll(t, s, 0); !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %d events that differ from the %d appended", len(got), len(want))
	}
	if got := readAll(t, s, 650); !reflect.DeepEqual(got, want[649:]) {
		t.Fatalf("read from 650 returned %d events, want 51 equal ones", len(got))
	}
	if got := readAll(t, s, 701); len(got) != 0 {
		t.Fatalf("read past the end returned %d events", len(got))
	}
	if got := readAll(t, s, 9999); len(got) != 0 {
		t.Fatalf("read far past the end returned %d events", len(got))
	}
}

func TestConcurrentAppendersShareFsyncs(t *testing.T) {
	s := openT(t, t.TempDir())
	const writers, each = 64, 20
	evs := journalgen.Flatten(journalgen.New(12).Commits(writers * each))
	tx0 := txID(t, s)

	var mu sync.Mutex // orders seq assignment with Enqueue, as the Runner would
	next := 0
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				mu.Lock()
				ev := evs[next]
				next++
				p, err := s.Enqueue(context.Background(), []core.Commit{{Events: []core.Event{ev}}})
				mu.Unlock()
				if err == nil {
					err = p.Wait()
				}
				if err == nil && s.Last() < ev.Seq {
					err = errors.New("acknowledged before the event was durable")
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := readAll(t, s, 1)
	if len(got) != writers*each || !reflect.DeepEqual(got, evs) {
		t.Fatalf("read %d events, want the %d appended, gapless and in order", len(got), writers*each)
	}
	st := s.Stats()
	if commits := uint64(txID(t, s) - tx0); commits != st.Commits {
		t.Fatalf("bbolt committed %d transactions, the store counted %d", commits, st.Commits)
	}
	if st.Requests != writers*each || st.Commits >= st.Requests/2 {
		t.Fatalf("%d appends took %d commits: the group commit did not group", st.Requests, st.Commits)
	}
	t.Logf("%d appends in %d commits (%.1f per fsync)", st.Requests, st.Commits, float64(st.Requests)/float64(st.Commits))
}

func TestSeqMismatchWritesNothing(t *testing.T) {
	s := openT(t, t.TempDir())
	cs := journalgen.New(13).Commits(10)
	appendAll(t, s, cs[:1], 1)
	n := s.Last()
	bad := []core.Commit{{Events: []core.Event{{Seq: n + 2, ID: "x", Type: core.EvRuntimeWarning}}}}
	if err := s.Append(context.Background(), bad); !errors.Is(err, core.ErrSeqMismatch) {
		t.Fatalf("append with a gap: %v, want ErrSeqMismatch", err)
	}
	gap := []core.Commit{{Events: []core.Event{{Seq: n + 1, Type: "a"}, {Seq: n + 3, Type: "b"}}}}
	if err := s.Append(context.Background(), gap); !errors.Is(err, core.ErrSeqMismatch) {
		t.Fatalf("append with an inner gap: %v, want ErrSeqMismatch", err)
	}
	if s.Last() != n || len(readAll(t, s, 1)) != int(n) {
		t.Fatal("a refused append left events behind")
	}
	appendAll(t, s, cs[1:], 3)
}

func TestFailedTransactionFailsEveryCallerAndWritesNothing(t *testing.T) {
	s := openT(t, t.TempDir())
	evs := journalgen.Flatten(journalgen.New(14).Commits(6))
	diskFull := errors.New("no space left on device")
	entered, release := make(chan struct{}), make(chan struct{})
	calls := 0
	s.beforeCommit = func(*bolt.Tx) error {
		calls++
		switch calls {
		case 1: // hold the first commit so the next appends queue up
			close(entered)
			<-release
			return nil
		case 2:
			return diskFull
		}
		return nil
	}
	one := func(i int) *Pending {
		p, err := s.Enqueue(context.Background(), []core.Commit{{Events: evs[i : i+1]}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := one(0)
	<-entered
	var batch []*Pending
	for i := 1; i < 5; i++ {
		batch = append(batch, one(i))
	}
	close(release)
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, p := range batch {
		if err := p.Wait(); !errors.Is(err, diskFull) {
			t.Fatalf("caller %d of the failed transaction got %v", i+1, err)
		}
	}
	if s.Last() != 1 || len(readAll(t, s, 1)) != 1 {
		t.Fatalf("failed transaction is visible: last %d", s.Last())
	}
	// The journal is unchanged, so the same events go in on retry.
	if err := s.Append(context.Background(), []core.Commit{{Events: evs[1:6]}}); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Verify(context.Background()); err != nil || !rep.OK || rep.Events != 6 {
		t.Fatalf("after retry: %+v %v", rep, err)
	}
}

func TestReopenSeesEverything(t *testing.T) {
	dir := t.TempDir()
	cs := journalgen.New(15).Commits(300)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, cs[:50], 7)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(context.Background(), cs[50:51]); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	s = openT(t, dir)
	n := 0
	for _, c := range cs[:50] {
		n += len(c.Events)
	}
	if s.Last() != uint64(n) {
		t.Fatalf("reopened Last = %d, want %d", s.Last(), n)
	}
	appendAll(t, s, cs[50:], 9)
	if got := readAll(t, s, 1); !reflect.DeepEqual(got, journalgen.Flatten(cs)) {
		t.Fatal("events after reopen differ")
	}
}

// TestReadDoesNotHoldTheJournal appends from inside a Read callback, with
// events big enough that bbolt must grow its memory map, which waits for
// every open read transaction: if Read held one while calling fn, this
// would deadlock.
func TestReadDoesNotHoldTheJournal(t *testing.T) {
	s := openT(t, t.TempDir())
	cs := journalgen.New(16).Commits(20)
	appendAll(t, s, cs, 100)
	next := s.Last() + 1
	done := make(chan error, 1)
	go func() {
		done <- s.Read(context.Background(), 1, func(ev core.Event) error {
			if ev.Seq != 1 {
				return nil
			}
			big := make([]core.Commit, 0, 8)
			for i := 0; i < 8; i++ {
				big = append(big, core.Commit{Events: []core.Event{{Seq: next, ID: "big", Type: core.EvRuntimeWarning,
					Payload: core.Payload{Note: string(make([]byte, 1<<20))}}}})
				next++
			}
			return s.Append(context.Background(), big)
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an append inside Read blocked: Read holds a transaction while calling fn")
	}
}

func TestOpenRefusesForeignFile(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, JournalFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
	db.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrNotJournal) {
		t.Fatalf("Open of a foreign bbolt file: %v, want ErrNotJournal", err)
	}
}
