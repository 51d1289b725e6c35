package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// gridFrames is 8 threads in the grid, each streaming a reply that
// already holds lines 80-byte lines; frame appends one line to every
// thread (journaled, as a flush does) and draws the view. fresh drops
// the wrap cache before each view: the cost of re-wrapping whole texts.
func gridFrames(b *testing.B, lines int) (frame func(fresh bool)) {
	j := newJournal(b)
	line := strings.Repeat("x", 64) + "\n"
	var nodes []*core.Node
	for i := range 8 {
		id := fmt.Sprintf("t%d", i)
		j.thread(id, "chatty "+id, core.ThreadRunning, 1, sec)
		r := j.run(id, 1, core.RunRunning, "go", 2*sec, 0)
		nodes = append(nodes, j.node(r, 2, core.NodeAssistantMessage, "", "assistant", strings.Repeat("chatty 0000000 "+line, lines)))
	}
	hs := newHarness(b, j.st.Clone(), 120, 40)
	hs.send(keyMsg("ctrl+g"))
	if !hs.m.gridShown() {
		b.Fatal("the grid did not open")
	}
	n := 0
	return func(fresh bool) {
		n++
		var evs []core.Event
		for _, nd := range nodes {
			evs = append(evs, j.add(textEvent(j, nd, fmt.Sprintf("chatty %07d %s", n, line))))
		}
		hs.send(frameMsg{journal: evs})
		if fresh {
			hs.m.wraps.drop()
		}
		_ = hs.m.View()
	}
}

// BenchmarkGridGrowth measures whether a grid frame costs more late in a
// run than early: 8 streaming threads in the grid, a line appended to
// each per frame, with 100 lines in each reply (early) and 3,000 (late).
// Baseline in the same run: the same late frames with every text
// wrapped afresh (as before the wrap cache).
//
//	go test ./tui -run '^$' -bench GridGrowth -benchtime 200x
func BenchmarkGridGrowth(b *testing.B) {
	per := func(lines int, fresh bool) time.Duration {
		frame := gridFrames(b, lines)
		for range 20 { // warm the caches
			frame(fresh)
		}
		t0 := time.Now()
		for range b.N {
			frame(fresh)
		}
		return time.Since(t0) / time.Duration(b.N)
	}
	b.ResetTimer()
	early, late, fresh := per(100, false), per(3000, false), per(3000, true)
	b.StopTimer()
	b.ReportMetric(float64(early.Microseconds()), "early-µs/frame")
	b.ReportMetric(float64(late.Microseconds()), "late-µs/frame")
	b.ReportMetric(float64(late)/float64(early), "x-early")
	b.ReportMetric(float64(fresh.Microseconds()), "fresh-late-µs/frame")
	b.ReportMetric(float64(late)/float64(fresh), "x-fresh")
}
