package natsjournal

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// manyWriters is how many writers BenchmarkManyWriters runs at once.
const manyWriters = 64

// BenchmarkManyWriters runs 64 writers at once, each on a nexus thread of
// its own, appending small commits to one journal on an embedded server
// that fsyncs every write, NEXUS_BENCH_COMMITS commits in all
// (default 64 x 50) per iteration. The baseline, in the same iteration
// after the writers are done, is one goroutine writing the same bytes
// (each commit's message body) to a file in the same dir, one write and
// fsync per commit, in sequence. x-raw-fsync is commits/s over the
// baseline's commits/s. Nothing is asserted.
//
// Two ways to have 64 writers:
//
//   - journal: 64 callers of Journal.Append, each single-event commit its
//     own Append.
//     The port orders appends by seq, so each caller takes a shared lock,
//     reads Last and appends under it (as core/journaltest's concurrent
//     writers do); the journal serialises appends anyway. This is the
//     journal alone, one server round trip and one fsync per commit.
//   - runner: 64 callers of core.Runner.Submit (thread.rename: one commit
//     of two events, the receipt and the renamed thread) on the same
//     journal: what a team-mode host does with its clients' commands.
//     Runner.Run takes every input waiting in its inbox (up to 512) and
//     appends their commits in one Append, an atomic batch here.
//     commits/append says how many it grouped.
func BenchmarkManyWriters(b *testing.B) {
	perWriter := max(1, envInt(b, "NEXUS_BENCH_COMMITS", manyWriters*50)/manyWriters)
	b.Run("journal", func(b *testing.B) { benchWriters(b, perWriter, writeJournal) })
	b.Run("runner", func(b *testing.B) { benchWriters(b, perWriter, writeRunner) })
}

// writeFunc starts whatever the writers need on j and returns the
// function one writer w calls to make its commit i durable.
type writeFunc func(b *testing.B, j *countingJournal) func(w, i int) error

// BenchmarkManyWritersCluster is BenchmarkManyWriters's runner case on a
// cluster of three servers in this process, on loopback, the journal at
// three replicas: a commit is on all three disks, each fsynced, before
// the leader acknowledges it (a quorum of two suffices to go on). The
// baseline is the same single-file fsync in the same iteration.
func BenchmarkManyWritersCluster(b *testing.B) {
	perWriter := max(1, envInt(b, "NEXUS_BENCH_COMMITS", manyWriters*50)/manyWriters)
	b.Run("runner", func(b *testing.B) { benchWritersOn(b, perWriter, writeRunner, openOnCluster) })
}

// openOnCluster starts three servers as a cluster under dir and opens
// the test project's journal on it at three replicas, once the cluster
// has elected its leaders.
func openOnCluster(b *testing.B, dir string) *Journal {
	ports := make([]int, 3)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	urls := make([]string, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		var routes []string
		for k, p := range ports {
			if k != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		wg.Go(func() {
			srv, url, err := StartServer(filepath.Join(dir, fmt.Sprintf("hub%d", i)), ServerOptions{Name: fmt.Sprintf("hub%d", i),
				Cluster: &ClusterOptions{Name: "bench", Port: ports[i], Routes: routes}})
			if err != nil {
				b.Error(err)
				return
			}
			b.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
			urls[i] = url
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	nc := connect(b, strings.Join(urls, ","))
	var err error
	for try := 0; try < 200; try++ { // until the cluster has a meta leader
		var j *Journal
		if j, err = Open(context.Background(), nc, testProject, Options{Replicas: 3, Timeout: 2 * time.Second}); err == nil {
			b.Cleanup(func() { _ = j.Close() })
			return j
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("open the journal on the cluster: %v", err)
	return nil
}

func benchWriters(b *testing.B, perWriter int, start writeFunc) {
	benchWritersOn(b, perWriter, start, func(b *testing.B, dir string) *Journal {
		h := startHub(b, filepath.Join(dir, "hub"))
		return openJ(b, connect(b, h.url), Options{})
	})
}

func benchWritersOn(b *testing.B, perWriter int, start writeFunc, open func(*testing.B, string) *Journal) {
	dir := b.TempDir()
	j := &countingJournal{Journal: open(b, dir)}
	write := start(b, j)
	f, err := os.OpenFile(filepath.Join(dir, "baseline"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	var measured, raw time.Duration
	var commits, appends, events int64
	for b.Loop() {
		from := j.Last() + 1
		appends0, commits0 := j.appends.Load(), j.commits.Load()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range manyWriters {
			wg.Go(func() {
				for i := range perWriter {
					if err := write(w, i); err != nil {
						b.Errorf("writer %d, commit %d: %v", w, i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		measured += time.Since(start)
		if b.Failed() {
			return
		}
		events += int64(j.Last() + 1 - from)
		n := j.commits.Load() - commits0
		commits += n
		appends += j.appends.Load() - appends0
		bodies := commitBodies(b, j.Journal, ctx, from)
		if int64(len(bodies)) != n {
			b.Fatalf("read back %d commits, appended %d", len(bodies), n)
		}
		start = time.Now()
		for _, body := range bodies {
			if _, err := f.Write(body); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		raw += time.Since(start)
	}
	rate, rawRate := float64(commits)/measured.Seconds(), float64(commits)/raw.Seconds()
	b.ReportMetric(rate, "commits/s")
	b.ReportMetric(rawRate, "raw-fsync-commits/s")
	b.ReportMetric(rate/rawRate, "x-raw-fsync")
	b.ReportMetric(float64(commits)/float64(max(appends, 1)), "commits/append")
	b.ReportMetric(float64(events)/float64(max(commits, 1)), "events/commit")
}

// writeJournal has each writer append its own commit under a shared lock.
func writeJournal(b *testing.B, j *countingJournal) func(w, i int) error {
	var mu sync.Mutex
	var round atomic.Int64 // keeps command ids unique across iterations
	return func(w, i int) error {
		id := fmt.Sprintf("w%02d", w)
		c := core.Commit{Command: fmt.Sprintf("c-%s-%d", id, round.Add(1)), Events: []core.Event{{
			ID: "e-" + id + "-" + strconv.Itoa(i), Type: core.EvThreadUpdated, Thread: id, At: time.Now().UnixNano(),
			Payload: core.Payload{Thread: &core.Thread{ID: id, Title: fmt.Sprintf("writer %d, commit %d", w, i),
				Provider: "builtin", Status: core.ThreadIdle}},
		}}}
		mu.Lock()
		defer mu.Unlock()
		c.Events[0].Seq = j.Last() + 1
		return j.Append(context.Background(), []core.Commit{c})
	}
}

// writeRunner runs a core.Runner on j with one thread per writer, and has
// each writer rename its thread.
func writeRunner(b *testing.B, j *countingJournal) func(w, i int) error {
	// No snapshots: they would run beside the writers at a seq that
	// depends on b.N, and this measures commits.
	r, err := core.NewRunner(core.RunnerConfig{Journal: j, SnapshotEvery: 1 << 62})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("runner: %v", err)
		}
	})
	thread := func(w int) string { return fmt.Sprintf("w%02d", w) }
	for w := range manyWriters {
		rec, err := r.Submit(ctx, core.Command{Kind: core.CmdThreadCreate, NewThread: thread(w), Provider: "builtin"})
		if err != nil || rec.Reject != nil {
			b.Fatalf("create thread %s: %v %+v", thread(w), err, rec)
		}
	}
	return func(w, i int) error {
		rec, err := r.Submit(ctx, core.Command{Kind: core.CmdThreadRename, Thread: thread(w),
			Title: fmt.Sprintf("writer %d, commit %d", w, i)})
		if err == nil && rec.Reject != nil {
			err = fmt.Errorf("rejected: %+v", rec.Reject)
		}
		return err
	}
}

// countingJournal counts the Append calls and commits that reach j.
type countingJournal struct {
	*Journal
	appends, commits atomic.Int64
}

func (c *countingJournal) Append(ctx context.Context, commits []core.Commit) error {
	err := c.Journal.Append(ctx, commits)
	if err == nil {
		c.appends.Add(1)
		c.commits.Add(int64(len(commits)))
	}
	return err
}

// commitBodies reads j's messages from seq from on and returns each
// one's body as it was encoded: the bytes a commit puts on disk.
func commitBodies(b *testing.B, j *Journal, ctx context.Context, from uint64) [][]byte {
	var bodies [][]byte
	var evs []core.Event
	flush := func() {
		if len(evs) == 0 {
			return
		}
		body, err := encodeBody(evs)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
		evs = evs[:0]
	}
	// The events of one commit are one command's (Causation) or, for
	// the journal writers, one event each.
	err := j.Read(ctx, from, func(ev core.Event) error {
		if len(evs) > 0 && (ev.Causation == "" || ev.Causation != evs[0].Causation) {
			flush()
		}
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	flush()
	return bodies
}

// envInt is the integer in the environment variable name, or def when it
// is unset.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive whole number", name, s)
	}
	return n
}
