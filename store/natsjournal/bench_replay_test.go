package natsjournal

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"github.com/nexus-tui/nexus/store"
)

// The generated project of BenchmarkReplay and BenchmarkOpenFromSnapshot:
// journalgen's wide journal of benchThreads threads, a new one about
// every 100 commits (all of them exist by about 70,000 events), a dozen
// active at a time, the rest idle with finished runs.
const (
	benchThreads = 200
	benchSeed    = 2026
	// benchTail is how many events follow the snapshot: the Runner
	// snapshots every core.DefaultSnapshotEvery (10,000) events, so a
	// host opens on a tail of up to that.
	benchTail = 5_000
)

// benchProject is one generated project written to a bbolt store and to
// a journal on an embedded server.
type benchProject struct {
	events    uint64
	snapAt    uint64 // 0: no snapshot
	snapBytes int    // the NATS snapshot's state body
	threads   int    // in the state loaded last
	storeDir  string
	url       string // the server's
}

// buildProject writes the first n events of the project to both journals,
// in Appends of 10,000 events, and the projection at snapAt (0: none) as
// a snapshot to both.
func buildProject(b *testing.B, n, snapAt uint64) *benchProject {
	b.Helper()
	dir := b.TempDir()
	p := &benchProject{events: n, snapAt: snapAt, storeDir: filepath.Join(dir, "state")}
	s, err := store.Open(p.storeDir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := startHub(b, filepath.Join(dir, "hub"))
	p.url = h.url
	nc := connect(b, h.url)
	j, err := Open(context.Background(), nc, testProject, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	g := journalgen.NewWide(benchSeed, benchThreads, 100)
	st := core.NewState()
	for last := uint64(0); last < n; last = j.Last() {
		batch := min(10_000, n-last)
		if last < snapAt {
			batch = min(batch, snapAt-last)
		}
		cs := g.Commits(int(batch))
		// journalgen repeats a command's id on the observations it
		// causes; the stream would drop those as duplicates (see gen).
		for i := range cs {
			cs[i].Command = fmt.Sprintf("cmd-%d", cs[i].Events[0].Seq)
		}
		if err := s.Append(ctx, cs); err != nil {
			b.Fatal(err)
		}
		if err := j.Append(ctx, cs); err != nil {
			b.Fatal(err)
		}
		if last >= snapAt {
			continue
		}
		for _, ev := range journalgen.Flatten(cs) {
			if err := st.Apply(&ev); err != nil {
				b.Fatal(err)
			}
		}
		if st.Seq == snapAt {
			if p.snapBytes, err = snapshotSize(st); err != nil {
				b.Fatal(err)
			}
			if err := s.SaveSnapshot(st.Clone()); err != nil {
				b.Fatal(err)
			}
			if err := j.SaveSnapshot(st.Clone()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return p
}

func snapshotSize(st *core.State) (int, error) {
	body, err := encodeState(st)
	return len(body), err
}

// openNATS connects to p's server and opens its journal; close undoes
// both.
func (p *benchProject) openNATS(b *testing.B) (j *Journal, close func()) {
	nc := connect(b, p.url)
	j, err := Open(context.Background(), nc, testProject, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return j, func() { _ = j.Close(); nc.Close() }
}

func (p *benchProject) openStore(b *testing.B) *store.Store {
	s, err := store.Open(p.storeDir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkReplay reads a whole project of NEXUS_BENCH_EVENTS events
// (default 100,000) from seq 1, from the journal on an embedded server
// and, as the baseline in the same iteration, from a bbolt store holding
// the same events. Both verify their hash chain as they read. read
// passes each event to a function that counts it; apply applies it to a
// fresh core.State, as a replay does. x-bbolt is the NATS rate over the
// store's. Each read starts warm (files in the page cache) and after a
// GC. Nothing is asserted.
func BenchmarkReplay(b *testing.B) {
	n := uint64(envInt(b, "NEXUS_BENCH_EVENTS", 100_000))
	p := buildProject(b, n, 0)
	j, closeJ := p.openNATS(b)
	defer closeJ()
	s := p.openStore(b)
	defer s.Close()
	for _, tc := range []struct {
		name  string
		apply bool
	}{{"read", false}, {"apply", true}} {
		b.Run(tc.name, func(b *testing.B) {
			replay := func(jr core.Journal) time.Duration {
				runtime.GC()
				st := core.NewState()
				var got uint64
				fn := func(ev core.Event) error { got++; return nil }
				if tc.apply {
					fn = func(ev core.Event) error { got++; return st.Apply(&ev) }
				}
				start := time.Now()
				if err := jr.Read(context.Background(), 1, fn); err != nil {
					b.Fatal(err)
				}
				d := time.Since(start)
				if got != n {
					b.Fatalf("read %d events of %d", got, n)
				}
				return d
			}
			replay(j) // warm
			replay(s)
			var natsTime, storeTime time.Duration
			runs := 0
			for b.Loop() {
				natsTime += replay(j)
				storeTime += replay(s)
				runs++
			}
			events := float64(n) * float64(runs)
			natsRate, storeRate := events/natsTime.Seconds(), events/storeTime.Seconds()
			b.ReportMetric(natsRate, "nats-events/s")
			b.ReportMetric(storeRate, "bbolt-events/s")
			b.ReportMetric(natsRate/storeRate, "x-bbolt")
		})
	}
}

// BenchmarkOpenFromSnapshot opens a project of NEXUS_BENCH_SNAPSHOT_EVENTS
// events (default 100,000; 200 threads) whose snapshot covers all but the
// last 5,000, and builds its state the way a host does, with core.Load:
// the newest snapshot, then the tail. The journal on an embedded server
// is opened afresh (a new connection and Open) for every load; the
// baseline, in the same iteration, is a bbolt store with the same events
// and snapshot, opened afresh too. load-ms is core.Load alone, open-ms
// the connection and Open (store.Open for bbolt); x-bbolt compares the
// loads. The bbolt snapshot is smaller: the store seals finished runs
// into its vault and loads them on first use, this journal keeps every
// run in the snapshot (doc.go, "Snapshots"). Nothing is asserted.
func BenchmarkOpenFromSnapshot(b *testing.B) {
	n := uint64(envInt(b, "NEXUS_BENCH_SNAPSHOT_EVENTS", 100_000))
	if n <= benchTail {
		b.Fatalf("NEXUS_BENCH_SNAPSHOT_EVENTS=%d: want more than the tail of %d", n, benchTail)
	}
	p := buildProject(b, n, n-benchTail)
	natsLoad := func(check bool) (open, load time.Duration) {
		start := time.Now()
		j, closeJ := p.openNATS(b)
		defer closeJ()
		open = time.Since(start)
		if check {
			p.checkSnapshot(b, j)
		}
		return open, p.load(b, j)
	}
	storeLoad := func(check bool) (open, load time.Duration) {
		start := time.Now()
		s := p.openStore(b)
		defer s.Close()
		open = time.Since(start)
		if check {
			p.checkSnapshot(b, s)
		}
		return open, p.load(b, s)
	}
	natsLoad(true) // warm
	storeLoad(true)
	var natsOpen, natsTime, storeOpen, storeTime time.Duration
	runs := 0
	for b.Loop() {
		o, l := natsLoad(false)
		natsOpen, natsTime = natsOpen+o, natsTime+l
		o, l = storeLoad(false)
		storeOpen, storeTime = storeOpen+o, storeTime+l
		runs++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(runs) }
	b.ReportMetric(ms(natsTime), "nats-load-ms")
	b.ReportMetric(ms(natsOpen), "nats-open-ms")
	b.ReportMetric(ms(storeTime), "bbolt-load-ms")
	b.ReportMetric(ms(storeOpen), "bbolt-open-ms")
	b.ReportMetric(float64(natsTime)/float64(storeTime), "x-bbolt")
	b.ReportMetric(float64(p.snapBytes)/(1<<20), "snapshot-MiB")
	b.ReportMetric(float64(p.threads), "threads")
}

// load times core.Load of j after a GC and checks that it reached the
// project's last event from its snapshot.
func (p *benchProject) load(b *testing.B, j core.Journal) time.Duration {
	runtime.GC()
	start := time.Now()
	st, err := core.Load(context.Background(), j)
	d := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if st.Seq != p.events {
		b.Fatalf("loaded to seq %d of %d", st.Seq, p.events)
	}
	p.threads = len(st.Threads)
	return d
}

// checkSnapshot fails unless j's newest snapshot is the project's, so a
// load starts from it rather than from seq 1.
func (p *benchProject) checkSnapshot(b *testing.B, j core.Journal) {
	st, err := j.LoadSnapshot()
	if err != nil || st == nil || st.Seq != p.snapAt {
		b.Fatalf("the snapshot at seq %d does not load: %v", p.snapAt, err)
	}
}
