package store

import (
	"context"
	"fmt"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// Benchmarks report their result as ratios to a baseline measured in the
// same process on the same disk, so they read the same on any machine:
//
//	go test ./store -run XXX -bench . -benchtime 2000x   (see BENCHMARKS.md)
//
// Baseline: the p50 of one 256-byte O_APPEND write + fdatasync to a plain
// file, and the rate of 100 such writes per fdatasync.

// benchDirs are process-wide temp dirs (journals shared between
// benchmarks); TestMain removes them.
var benchDirs struct {
	sync.Mutex
	dirs []string
}

func benchDir(b *testing.B) string {
	dir, err := os.MkdirTemp("", "nexus-store-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs.Lock()
	benchDirs.dirs = append(benchDirs.dirs, dir)
	benchDirs.Unlock()
	return filepath.Join(dir, "state")
}

func removeBenchDirs() {
	benchDirs.Lock()
	defer benchDirs.Unlock()
	for _, d := range benchDirs.dirs {
		os.RemoveAll(d)
	}
}

type baseline struct {
	fsyncP50  time.Duration // one 256-byte append + fdatasync
	batchRate float64       // appends/s at 100 appends per fdatasync
}

var (
	rawOnce sync.Once
	raw     baseline
)

// rawBaseline measures the baseline once per process, in dir's file system.
func rawBaseline(b *testing.B, dir string) baseline {
	rawOnce.Do(func() {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(dir, "raw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		rec := make([]byte, 256)
		lat := make([]time.Duration, 0, 400)
		for i := 0; i < 400; i++ {
			t0 := time.Now()
			if _, err := f.Write(rec); err != nil {
				b.Fatal(err)
			}
			if err := syscall.Fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		raw.fsyncP50 = percentile(lat, 50)
		const rounds = 100
		t0 := time.Now()
		for r := 0; r < rounds; r++ {
			for i := 0; i < 100; i++ {
				if _, err := f.Write(rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := syscall.Fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
		}
		raw.batchRate = rounds * 100 / time.Since(t0).Seconds()
	})
	return raw
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// event256 returns a realistic event that encodes to about 256 bytes.
func event256() core.Event {
	for _, ev := range journalgen.Flatten(journalgen.New(9).Commits(500)) {
		if n := len(appendEvent(nil, &ev)); n >= 250 && n <= 262 {
			return ev
		}
	}
	panic("no event of about 256 bytes")
}

func BenchmarkDurableIntent(b *testing.B) {
	dir := b.TempDir()
	base := rawBaseline(b, dir)
	s, err := Open(filepath.Join(dir, "state"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ev := event256()
	lat := make([]time.Duration, 0, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev.Seq = s.Last() + 1
		t0 := time.Now()
		if err := s.Append(ctx, []core.Commit{{Events: []core.Event{ev}}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	p50 := percentile(lat, 50)
	b.ReportMetric(float64(p50)/1e3, "p50-µs")
	b.ReportMetric(float64(base.fsyncP50)/1e3, "raw-fsync-p50-µs")
	b.ReportMetric(float64(p50)/float64(base.fsyncP50), "x-raw-fsync")
}

func BenchmarkConcurrentAppend64(b *testing.B) {
	dir := b.TempDir()
	base := rawBaseline(b, dir)
	s, err := Open(filepath.Join(dir, "state"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	evs := journalgen.Flatten(journalgen.New(10).Commits(b.N))
	st0 := s.Stats()
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	ctx := context.Background()
	b.ResetTimer()
	t0 := time.Now()
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(evs) {
					mu.Unlock()
					return
				}
				p, err := s.Enqueue(ctx, []core.Commit{{Events: evs[next : next+1]}})
				next++
				mu.Unlock()
				if err == nil {
					err = p.Wait()
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	rate := float64(b.N) / elapsed.Seconds()
	st := s.Stats()
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(base.batchRate, "raw-100/fsync-events/s")
	b.ReportMetric(rate/base.batchRate, "x-raw-batch")
	b.ReportMetric(float64(st.Events-st0.Events)/float64(st.Commits-st0.Commits), "events/commit")
}

// journal is a benchmark journal built once per process.
type journal struct {
	dir      string
	events   uint64
	snapSeq  uint64
	snapSize int
	// Measured just before the snapshot, over events 1..snapSeq.
	fileBytes    int64
	encodedBytes uint64
}

var (
	journalsMu sync.Mutex
	journals   = map[string]*journal{}
)

// buildJournal writes n realistic events of up to 12 interleaved threads
// in batches of 10,000 with a snapshot at snapAt (0: none), once per
// process.
func buildJournal(b *testing.B, n, snapAt uint64) *journal {
	return buildJournalOf(b, "narrow", func() *journalgen.Gen { return journalgen.New(2024) }, n, snapAt)
}

// Wide journals model a long-lived state dir: wideThreads threads, a few
// active at a time (the scale target in BENCHMARKS.md).
const wideThreads = 10_000

func buildWideJournal(b *testing.B) *journal {
	// About 28 commits of about 3.5 events per thread.
	return buildJournalOf(b, "wide", func() *journalgen.Gen { return journalgen.NewWide(2025, wideThreads, 28) }, bigEvents, bigSnapSeq)
}

func buildJournalOf(b *testing.B, kind string, newGen func() *journalgen.Gen, n, snapAt uint64) *journal {
	journalsMu.Lock()
	defer journalsMu.Unlock()
	name := fmt.Sprintf("%s-%d", kind, n)
	if j := journals[name]; j != nil {
		return j
	}
	j := &journal{dir: benchDir(b), events: n, snapSeq: snapAt}
	s, err := Open(j.dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := newGen()
	st := core.NewState()
	for s.Last() < n {
		batch := min(10000, n-s.Last())
		if s.Last() < snapAt {
			batch = min(batch, snapAt-s.Last())
		}
		cs := g.Commits(int(batch))
		if err := s.Append(context.Background(), cs); err != nil {
			b.Fatal(err)
		}
		for _, c := range cs {
			for i := range c.Events {
				if s.Last() <= snapAt || snapAt == 0 {
					j.encodedBytes += uint64(len(appendEvent(nil, &c.Events[i])))
				}
				if err := st.Apply(&c.Events[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		if s.Last() == snapAt {
			fi, err := os.Stat(filepath.Join(j.dir, JournalFile))
			if err != nil {
				b.Fatal(err)
			}
			j.fileBytes = fi.Size()
			body, _ := EncodeState(st)
			j.snapSize = len(body)
			if err := s.SaveSnapshot(st.Clone()); err != nil {
				b.Fatal(err)
			}
		}
	}
	journals[name] = j
	return j
}

func BenchmarkReplay(b *testing.B) {
	const n = 200_000
	j := buildJournal(b, n, 0)
	s, err := Open(j.dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		verify bool
	}{{"decode+apply", false}, {"verified", true}} {
		b.Run(tc.name, func(b *testing.B) {
			replay := func() {
				st := core.NewState()
				if err := s.read(ctx, 1, tc.verify, func(ev core.Event) error { return st.Apply(&ev) }); err != nil {
					b.Fatal(err)
				}
				if st.Seq != n {
					b.Fatalf("replayed to %d", st.Seq)
				}
			}
			replay() // warm: the file is in the page cache
			// Each replay starts with no garbage from the one before, as
			// a process start would.
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				t0 := time.Now()
				replay()
				elapsed += time.Since(t0)
			}
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "events/s")
		})
	}
}

const (
	bigEvents  = 1_000_000
	bigSnapSeq = bigEvents - 5_000 // within 10,000 of the end, as the Runner's policy allows
)

func BenchmarkOpen1M(b *testing.B) {
	for _, tc := range []struct {
		name  string
		build func(*testing.B) *journal
	}{
		{"12threads", func(b *testing.B) *journal { return buildJournal(b, bigEvents, bigSnapSeq) }},
		{"10000threads", buildWideJournal},
	} {
		b.Run(tc.name, func(b *testing.B) { benchOpen(b, tc.build(b)) })
	}
}

// benchOpen opens j's store, loads its snapshot and replays the tail.
func benchOpen(b *testing.B, j *journal) {
	ctx := context.Background()
	open := func() *Store {
		s, err := Open(j.dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := s.LoadSnapshot()
		if err != nil || st == nil || st.Seq != bigSnapSeq {
			b.Fatalf("LoadSnapshot: %v", err)
		}
		if err := s.Read(ctx, st.Seq+1, func(ev core.Event) error { return st.Apply(&ev) }); err != nil {
			b.Fatal(err)
		}
		if st.Seq != bigEvents {
			b.Fatalf("open reached seq %d", st.Seq)
		}
		return s
	}
	open().Close() // warm
	b.ResetTimer()
	var thread time.Duration
	for i := 0; i < b.N; i++ {
		s := open()
		b.StopTimer()
		thread += readOneThread(b, s)
		s.Close()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
	b.ReportMetric(float64(j.snapSize)/(1<<20), "snapshot-MiB")
	b.ReportMetric(float64(thread.Microseconds())/1e3/float64(b.N), "first-thread-read-ms")
}

// readOneThread times the first full read of the busiest thread of a
// freshly opened store (every run's attempts and nodes, as `nexus log` or
// the UI's transcript reads them): the sealed histories load here, not at
// open.
func readOneThread(b *testing.B, s *Store) time.Duration {
	st, err := core.Load(context.Background(), s)
	if err != nil {
		b.Fatal(err)
	}
	var busiest string
	for id, t := range st.Threads {
		if busiest == "" || t.Runs > st.Threads[busiest].Runs {
			busiest = id
		}
	}
	t0 := time.Now()
	nodes := 0
	for _, r := range st.RunsOf(busiest) {
		for _, a := range st.AttemptsOf(r.ID) {
			nodes += len(st.NodesOf(a.ID))
		}
	}
	d := time.Since(t0)
	if nodes == 0 {
		b.Fatalf("thread %s has no nodes", busiest)
	}
	return d
}

// BenchmarkJournalBytes reports the size of the 1M-event journal (measured
// before its snapshot was written) per event, against the mean encoded
// event. The file includes bbolt's free pages and its 16 MiB growth step.
func BenchmarkJournalBytes(b *testing.B) {
	j := buildJournal(b, bigEvents, bigSnapSeq)
	var leaf, branch int
	s, err := Open(j.dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	_ = s.db.View(func(tx *bolt.Tx) error {
		bs := tx.Bucket(bucketEvents).Stats()
		leaf, branch = bs.LeafAlloc, bs.BranchAlloc
		return nil
	})
	s.Close()
	// The metrics are sizes of one built journal; b.N does not matter.
	enc := float64(j.encodedBytes) / float64(j.snapSeq)
	file := float64(j.fileBytes) / float64(j.snapSeq)
	b.ReportMetric(enc, "encoded-B/event")
	b.ReportMetric(file, "file-B/event")
	b.ReportMetric(file/enc, "x-encoded")
	b.ReportMetric(float64(leaf+branch)/float64(j.events)/enc, "pages-x-encoded")
}

// BenchmarkOpen1MPhases splits BenchmarkOpen1M into its parts, each
// measured on its own (so they do not overlap as in LoadSnapshot, which
// hashes while it decodes): bbolt open, copying the snapshot body out of
// the file, hashing it, DecodeState (which includes core.State.Reindex),
// Reindex alone, and the tail replay.
func BenchmarkOpen1MPhases(b *testing.B) {
	j := buildJournal(b, bigEvents, bigSnapSeq)
	var open, copyT, hash, decode, reindex, tail time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := Open(j.dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var v []byte
		_ = s.db.View(func(tx *bolt.Tx) error {
			v = append([]byte(nil), tx.Bucket(bucketSnapshots).Get(seqKey(bigSnapSeq))...)
			return nil
		})
		t2 := time.Now()
		if err := checkSnapshotBody(bigSnapSeq, v); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		st, err := DecodeState(v[snapHeaderSize:])
		if err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		st.Reindex()
		t5 := time.Now()
		if err := s.Read(context.Background(), st.Seq+1, func(ev core.Event) error { return st.Apply(&ev) }); err != nil {
			b.Fatal(err)
		}
		t6 := time.Now()
		s.Close()
		open += t1.Sub(t0)
		copyT += t2.Sub(t1)
		hash += t3.Sub(t2)
		decode += t4.Sub(t3)
		reindex += t5.Sub(t4)
		tail += t6.Sub(t5)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(b.N) }
	b.ReportMetric(ms(open), "open-ms")
	b.ReportMetric(ms(copyT), "copy-ms")
	b.ReportMetric(ms(hash), "hash-ms")
	b.ReportMetric(ms(decode), "decode+reindex-ms")
	b.ReportMetric(ms(reindex), "reindex-ms")
	b.ReportMetric(ms(tail), "tail-ms")
}
