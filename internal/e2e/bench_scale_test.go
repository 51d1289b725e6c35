package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"github.com/nexus-tui/nexus/store"
)

// scaleStateDir writes a state dir with 10,000 threads and 1,000,000
// events (a few threads active at a time, like a long-lived dev box) and
// a snapshot 5,000 events from the end, as the host leaves it.
func scaleStateDir(b *testing.B) (dir string, thread string) {
	const events, snapAt = 1_000_000, 995_000
	dir = filepath.Join(b.TempDir(), "state")
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g := journalgen.NewWide(2025, 10_000, 28)
	st := core.NewState()
	for s.Last() < events {
		n := min(10_000, events-s.Last())
		if s.Last() < snapAt {
			n = min(n, snapAt-s.Last())
		}
		cs := g.Commits(int(n))
		if err := s.Append(context.Background(), cs); err != nil {
			b.Fatal(err)
		}
		for _, ev := range journalgen.Flatten(cs) {
			if err := st.Apply(&ev); err != nil {
				b.Fatal(err)
			}
		}
		if s.Last() == snapAt {
			if err := s.SaveSnapshot(st.Clone()); err != nil {
				b.Fatal(err)
			}
		}
	}
	for id, t := range st.Threads {
		if thread == "" || t.Runs > st.Threads[thread].Runs {
			thread = id
		}
	}
	return dir, thread
}

// BenchmarkScaleCLI times `nexus thread list` and `nexus thread show` on
// a state dir of 10,000 threads and 1,000,000 events, process start to
// exit (each opens the journal as its own host), against `nexus version`
// in the same run. Goal (BENCHMARKS.md sets no target for it): each
// within 100 ms of the bare process start, plus printing.
func BenchmarkScaleCLI(b *testing.B) {
	dir, thread := scaleStateDir(b)
	var base, list, show []time.Duration
	timed := func(into *[]time.Duration, want string, args ...string) {
		b.Helper()
		t0 := time.Now()
		out, err := exec.Command(nexusBin, args...).CombinedOutput()
		*into = append(*into, time.Since(t0))
		if err != nil || !strings.Contains(string(out), want) {
			b.Fatalf("nexus %s: %v\n%.500s", strings.Join(args, " "), err, out)
		}
	}
	timed(&list, thread, "--state-dir", dir, "thread", "list") // warm the page cache
	list = nil
	for i := 0; i < b.N; i++ {
		timed(&base, "nexus", "version")
		timed(&list, thread, "--state-dir", dir, "thread", "list")
		timed(&show, thread, "--state-dir", dir, "thread", "show", thread)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	mb := median(base)
	b.ReportMetric(ms(mb), "version-ms")
	b.ReportMetric(ms(median(list)), "list-ms")
	b.ReportMetric(ms(median(show)), "show-ms")
	b.ReportMetric(ms(median(list)-mb), "list-over-version-ms")
	b.ReportMetric(ms(median(show)-mb), "show-over-version-ms")
	b.ReportMetric(0, "ns/op")
}
