package natsjournal

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// BenchmarkDurableAppend measures one durable Append of a single-event
// commit against an embedded server that fsyncs every write, and in the
// same loop, as the baseline, a raw write and fsync of the same bytes to
// a file in the same dir. p50-ratio is the median append over the median
// write+fsync: what the server round trip and its bookkeeping cost on top
// of the disk. Nothing is asserted.
func BenchmarkDurableAppend(b *testing.B) {
	dir := b.TempDir()
	h := startHub(b, filepath.Join(dir, "hub"))
	j := openJ(b, connect(b, h.url), Options{})
	f, err := os.OpenFile(filepath.Join(dir, "baseline"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	var appends, syncs []time.Duration
	for b.Loop() {
		c := note(j.Last()+1, "")
		body, err := encodeBody(c.Events)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := j.Append(ctx, []core.Commit{c}); err != nil {
			b.Fatal(err)
		}
		appends = append(appends, time.Since(start))
		start = time.Now()
		if _, err := f.Write(body); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		syncs = append(syncs, time.Since(start))
	}
	a, s := median(appends), median(syncs)
	b.ReportMetric(float64(a)/float64(max(s, 1)), "p50-ratio")
	b.ReportMetric(float64(a.Microseconds()), "p50-append-us")
	b.ReportMetric(float64(s.Microseconds()), "p50-fsync-us")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
