package workers

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkWarmReadFile4K measures the round trip of one execute
// read_file of 4 KiB on a warm worker process: sign, send, verify,
// confine, read, result. The target is p50 <= 1 ms (BENCHMARKS.md).
func BenchmarkWarmReadFile4K(b *testing.B) {
	ws := tempWorkspace(b)
	content := strings.Repeat("0123456789abcde\n", 256) // 4 KiB
	writeFile(b, filepath.Join(ws, "data.txt"), content)
	p := newTestPool(b, ws, func(c *PoolConfig) { c.Max = 1 })
	st := Step{Task: "bench", Action: ActionReadFile, Args: Args{Path: "data.txt"}, Timeout: 10 * time.Second}
	if res := mustExec(b, p, st, nil); res.Output != content { // warm up
		b.Fatalf("read_file = %+v", res)
	}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.N = i
		t0 := time.Now()
		res, err := p.Execute(ctx, st, nil)
		lat = append(lat, time.Since(t0))
		if err != nil || res.Status != StatusOK || len(res.Output) != len(content) {
			b.Fatalf("step %d: %+v, %v", i, res, err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-us")
	b.ReportMetric(pct(0.99), "p99-us")
}
