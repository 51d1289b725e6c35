package store_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
)

// rawFsyncP50 measures the baseline: a 256-byte append plus fdatasync to a
// plain file in dir, p50 over n tries.
func rawFsyncP50(tb testing.TB, dir string, n int) time.Duration {
	f, err := os.OpenFile(filepath.Join(dir, "raw"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 256)
	var ds []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if _, err := f.Write(buf); err != nil {
			tb.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			tb.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	return p50(ds)
}

func p50(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// BenchmarkSubmitDurableIntent measures one command end to end through the
// Runner: edge validation, Decide, one journal append (fsync), publish and
// receipt; reported as p50 and as a ratio to the raw fsync p50 measured in
// the same run (target: <= 2.5x).
func BenchmarkSubmitDurableIntent(b *testing.B) {
	dir := b.TempDir()
	s, err := store.Open(filepath.Join(dir, "state"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r, err := core.NewRunner(core.RunnerConfig{Journal: s})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if _, err := r.Submit(ctx, core.Command{Kind: core.CmdThreadCreate, NewThread: "t1", Provider: "p"}); err != nil {
		b.Fatal(err)
	}
	base := rawFsyncP50(b, dir, 200)
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		rec, err := r.Submit(ctx, core.Command{Kind: core.CmdThreadRename, Thread: "t1", Title: "renamed"})
		if err != nil || rec.Reject != nil {
			b.Fatal(err, rec)
		}
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	p := p50(ds)
	b.ReportMetric(float64(p.Microseconds()), "p50-µs")
	b.ReportMetric(float64(base.Microseconds()), "raw-fsync-p50-µs")
	b.ReportMetric(float64(p)/float64(base), "x-raw-fsync")
}
