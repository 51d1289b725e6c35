package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// Benchmarks for issue 6's performance targets. Each one measures the
// baseline git commands in the same run, interleaved with the operation,
// and reports both times and their ratio:
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
// index copied from the user's (target: <= 1.5x).
func BenchmarkCapture(b *testing.B) {
	repo := bigRepo(b, 10000)
	m := New(b.TempDir(), Options{})
	ctx := context.Background()
	tmp := b.TempDir()
	var ours, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		editFiles(b, repo, 10, 2*i)
		idx := filepath.Join(tmp, fmt.Sprintf("index-%d", i))
		start := time.Now()
		if _, err := seedIndex(filepath.Join(repo, ".git", "index"), idx); err != nil {
			b.Fatal(err)
		}
		env := []string{"GIT_INDEX_FILE=" + idx}
		timeGit(b, repo, env, "add", "-A")
		timeGit(b, repo, env, "write-tree")
		base = append(base, time.Since(start))

		editFiles(b, repo, 10, 2*i+1)
		start = time.Now()
		cp, err := m.Capture(ctx, repo, "bench", "run/"+fmt.Sprint(i))
		if err != nil {
			b.Fatal(err)
		}
		ours = append(ours, time.Since(start))
		if cp.Changed != 10 {
			b.Fatalf("Changed = %d, want 10", cp.Changed)
		}
	}
	report(b, ours, base)
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
	var ours, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Baseline: undo run 2 the plain way, then put run 2 back unmeasured.
		idx := filepath.Join(tmp, fmt.Sprintf("index-%d", i))
		env := []string{"GIT_INDEX_FILE=" + idx}
		start := time.Now()
		timeGit(b, repo, env, "read-tree", before.Commit)
		timeGit(b, repo, env, "checkout-index", "-a", "-f")
		base = append(base, time.Since(start))
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}

		start = time.Now()
		r, err := m.Restore(ctx, repo, "bench", before.Commit)
		if err != nil {
			b.Fatal(err)
		}
		ours = append(ours, time.Since(start))
		if len(r.Written) != 100 {
			b.Fatalf("restored %d files, want 100", len(r.Written))
		}
		if _, err := m.Restore(ctx, repo, "", after.Commit); err != nil {
			b.Fatal(err)
		}
	}
	report(b, ours, base)
}

// report gives the mean and median of both series and the ratio of the
// medians: the machine is shared, and a median shrugs off the iterations
// another process stole.
func report(b *testing.B, ours, base []time.Duration) {
	b.StopTimer()
	mo, mb := median(ours), median(base)
	b.ReportMetric(ms(mean(ours)), "ms-nexus-mean")
	b.ReportMetric(ms(mean(base)), "ms-baseline-mean")
	b.ReportMetric(ms(mo), "ms-nexus-median")
	b.ReportMetric(ms(mb), "ms-baseline-median")
	b.ReportMetric(float64(mo)/float64(mb), "x-baseline")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
