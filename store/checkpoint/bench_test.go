package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

// Benchmarks for the checkpoint targets (BENCHMARKS.md). Each one
// measures the baseline git commands in the same run, interleaved with
// the operation, and reports both times and their ratio:
//
//	go test -run '^$' -bench . -benchtime 20x ./store/checkpoint/

// bigRepo makes a committed repository of n files.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	repo := newRepo(b)
	makeFiles(b, repo, n)
	gitT(b, repo, "add", "-A")
	gitT(b, repo, "commit", "-q", "-m", "many")
	gitT(b, repo, "status", "--porcelain") // as a user's shell prompt would
	return repo
}

// editFiles rewrites count files (one per directory) with content that
// depends on round, so every round has real changes.
func editFiles(b *testing.B, repo string, count, round int) {
	b.Helper()
	for i := 0; i < count; i++ {
		writeFile(b, repo, fmt.Sprintf("d%03d/f%05d.txt", i, i*100), fmt.Sprintf("round %d file %d\n", round, i))
	}
}

func timeGit(b *testing.B, dir string, env []string, args ...string) time.Duration {
	b.Helper()
	start := time.Now()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return time.Since(start)
}

// BenchmarkCapture: a checkpoint of a 10,000-file repository with 10
// changed files, against `git add -A && git write-tree` on a temporary
// index seeded from the user's, as Capture seeds its own (target:
// <= 1.5x). A second baseline, "x-readtree", starts the temporary index
// from `git read-tree HEAD`, the plain plumbing recipe: git must then hash
// every file.
func BenchmarkCapture(b *testing.B) {
	repo := bigRepo(b, 10000)
	m := New(b.TempDir(), Options{})
	ctx := context.Background()
	tmp := b.TempDir()
	var ours, base, readTree meter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		editFiles(b, repo, 10, 3*i+2)
		rt := filepath.Join(tmp, fmt.Sprintf("rt-index-%d", i))
		stop := readTree.start()
		timeGit(b, repo, []string{"GIT_INDEX_FILE=" + rt}, "read-tree", "HEAD")
		timeGit(b, repo, []string{"GIT_INDEX_FILE=" + rt}, "add", "-A")
		timeGit(b, repo, []string{"GIT_INDEX_FILE=" + rt}, "write-tree")
		stop()

		editFiles(b, repo, 10, 3*i)
		idx := filepath.Join(tmp, fmt.Sprintf("index-%d", i))
		stop = base.start()
		if _, err := seedIndex(filepath.Join(repo, ".git", "index"), idx); err != nil {
			b.Fatal(err)
		}
		env := []string{"GIT_INDEX_FILE=" + idx}
		timeGit(b, repo, env, "add", "-A")
		timeGit(b, repo, env, "write-tree")
		stop()

		editFiles(b, repo, 10, 3*i+1)
		stop = ours.start()
		cp, err := m.Capture(ctx, repo, "bench", "run/"+fmt.Sprint(i))
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if cp.Changed != 10 {
			b.Fatalf("Changed = %d, want 10", cp.Changed)
		}
	}
	report(b, ours, base)
	b.ReportMetric(float64(median(ours.wall))/float64(median(readTree.wall)), "x-readtree")
}

// BenchmarkRestore: restoring a run that changed 100 files, against
// `git read-tree` + `git checkout-index -a -f` into the work tree
// (target: <= 2x).
func BenchmarkRestore(b *testing.B) {
	repo := bigRepo(b, 10000)
	m := New(b.TempDir(), Options{})
	ctx := context.Background()
	before, err := m.Capture(ctx, repo, "bench", "run/1")
	if err != nil {
		b.Fatal(err)
	}
	editFiles(b, repo, 100, 0)
	after, err := m.Capture(ctx, repo, "bench", "run/2")
	if err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	var ours, base meter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Baseline: undo run 2 the plain way, then put run 2 back unmeasured.
		idx := filepath.Join(tmp, fmt.Sprintf("index-%d", i))
		env := []string{"GIT_INDEX_FILE=" + idx}
		stop := base.start()
		timeGit(b, repo, env, "read-tree", before.Commit)
		timeGit(b, repo, env, "checkout-index", "-a", "-f")
		stop()
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}

		stop = ours.start()
		r, err := m.Restore(ctx, repo, "bench", before.Commit)
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Written) != 100 {
			b.Fatalf("restored %d files, want 100", len(r.Written))
		}
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}
	}
	report(b, ours, base)
}

// BenchmarkRestoreOnly: a rollback as nexus runs it, restoring only the
// 100 paths the undone run changed (RestoreOnly: it also checks each
// against the state the thread left, to keep what someone else changed),
// against the same baseline as BenchmarkRestore (target: <= 2x).
func BenchmarkRestoreOnly(b *testing.B) {
	repo := bigRepo(b, 10000)
	m := New(b.TempDir(), Options{})
	ctx := context.Background()
	before, err := m.Capture(ctx, repo, "bench", "run/1")
	if err != nil {
		b.Fatal(err)
	}
	editFiles(b, repo, 100, 0)
	after, err := m.Capture(ctx, repo, "bench", "run/2")
	if err != nil {
		b.Fatal(err)
	}
	var own []string
	for i := 0; i < 100; i++ {
		own = append(own, fmt.Sprintf("d%03d/f%05d.txt", i, i*100))
	}
	tmp := b.TempDir()
	var ours, base meter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx := filepath.Join(tmp, fmt.Sprintf("index-%d", i))
		env := []string{"GIT_INDEX_FILE=" + idx}
		stop := base.start()
		timeGit(b, repo, env, "read-tree", before.Commit)
		timeGit(b, repo, env, "checkout-index", "-a", "-f")
		stop()
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}

		stop = ours.start()
		r, err := m.RestoreOnly(ctx, repo, "bench", before.Commit, after.Commit, own, false)
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Written) != 100 || len(r.Kept) != 0 {
			b.Fatalf("restored %d files and kept %d, want 100 and none", len(r.Written), len(r.Kept))
		}
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}
	}
	report(b, ours, base)
}

// meter records the wall time and the CPU time (ours and our
// children's: git) of each measured operation.
type meter struct{ wall, cpu []time.Duration }

func (m *meter) start() (stop func()) {
	w, c := time.Now(), cpuTime()
	return func() {
		m.wall = append(m.wall, time.Since(w))
		m.cpu = append(m.cpu, cpuTime()-c)
	}
}

func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// report gives medians of both sides and their ratios: the machine is
// shared, and a median shrugs off the iterations another process stole.
// The CPU ratio says how much more work nexus does, whatever the load.
func report(b *testing.B, ours, base meter) {
	b.StopTimer()
	b.ReportMetric(ms(median(ours.wall)), "ms-nexus")
	b.ReportMetric(ms(median(base.wall)), "ms-baseline")
	b.ReportMetric(float64(median(ours.wall))/float64(median(base.wall)), "x-baseline")
	b.ReportMetric(ms(median(ours.cpu)), "cpu-ms-nexus")
	b.ReportMetric(ms(median(base.cpu)), "cpu-ms-baseline")
	b.ReportMetric(float64(median(ours.cpu))/float64(median(base.cpu)), "cpu-x-baseline")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
