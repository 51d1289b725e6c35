package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// pasteBytes is the size of the large draft the paste benchmarks type
// against: a big file pasted whole.
const pasteBytes = 400 << 10

// bigPaste is about size bytes of source-like lines, each ending in a
// newline but the last.
func bigPaste(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "func step%05d(x int) int { return x*%d + len(\"pasted source line\") } // ok", i, i%97)
	}
	return b.String()
}

// BenchmarkKeyToFramePaste: key press to frame written with a 400 KB
// paste in the composer (target: p99 <= 16 ms), on a real PTY like
// BenchmarkKeyToFrame. The same program with an empty draft runs beside
// it on its own PTY, and its keys are interleaved with the draft's, so
// the ratio compares the two in the same conditions.
func BenchmarkKeyToFramePaste(b *testing.B) {
	empty := startOnPTY(b, &benchBackend{st: benchState(b, 5, 1000), feed: make(chan core.Event)})
	full := startOnPTY(b, &benchBackend{st: benchState(b, 5, 1000), feed: make(chan core.Event)})
	empty.quiet(b, 500*time.Millisecond)
	full.quiet(b, 500*time.Millisecond)
	// A bracketed paste, as a terminal sends one.
	if _, err := full.ptm.Write([]byte("\x1b[200~" + bigPaste(pasteBytes) + "\x1b[201~")); err != nil {
		b.Fatal(err)
	}
	full.quiet(b, time.Second)
	var lat, base []time.Duration
	pause := func() time.Duration {
		return 30*time.Millisecond + time.Duration(rand.Int64N(int64(20*time.Millisecond)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range 200 {
			key := []byte("x")
			if j%2 == 1 {
				key = []byte{0x7f} // backspace
			}
			lat = append(lat, full.keyToFrame(b, key))
			full.quiet(b, pause())
			base = append(base, empty.keyToFrame(b, key))
			empty.quiet(b, pause())
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	p50, p99 := percentile(lat, 0.5), percentile(lat, 0.99)
	e50, e99 := percentile(base, 0.5), percentile(base, 0.99)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(percentile(lat, 1)), "max-ms")
	b.ReportMetric(ms(e50), "empty-p50-ms")
	b.ReportMetric(ms(e99), "empty-p99-ms")
	b.ReportMetric(float64(p99)/float64(max(1, e99)), "p99-ratio")
	b.ReportMetric(float64(p50)/float64(max(1, e50)), "p50-ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkUpdateViewKeyPaste is the model's share of a key press (Update
// and View, no terminal) with an empty draft and with a 400 KB paste in
// the composer.
func BenchmarkUpdateViewKeyPaste(b *testing.B) {
	for _, tc := range []struct {
		name  string
		paste string
	}{{"empty", ""}, {"400KB", bigPaste(pasteBytes)}} {
		b.Run(tc.name, func(b *testing.B) {
			hs := newHarness(b, benchState(b, 5, 1000), 120, 40)
			if tc.paste != "" {
				hs.send(tea.PasteMsg{Content: tc.paste})
			}
			keys := []tea.KeyPressMsg{keyMsg("x"), keyMsg("backspace")}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				hs.m.Update(keys[i%2])
				_ = hs.m.View()
			}
		})
	}
}
