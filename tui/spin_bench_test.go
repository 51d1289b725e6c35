package tui

import (
	"io"
	"testing"
)

// spinHarness is 16 idle threads on screen and one run active, so the
// status line's spinner turns.
func spinHarness(b *testing.B) *harness {
	j := newJournal(b)
	for i := range 16 {
		j.thread("t"+itoa(i), "thread "+itoa(i), "idle", 1, sec)
	}
	j.thread("t99", "busy", "running", 1, sec)
	j.run("t99", 1, "running", "sleep 3600", 2*sec, 0)
	return newHarness(b, j.st, 120, 40)
}

// BenchmarkSpinFrame is the model's share of a spinner frame: Update
// with the tick and View.
func BenchmarkSpinFrame(b *testing.B) {
	hs := spinHarness(b)
	b.ResetTimer()
	for range b.N {
		hs.m.Update(spinMsg{})
		_ = hs.m.View()
	}
}

// BenchmarkSpinFrameDrawn is a whole spinner frame: Update, View, and
// the cell diff written (to io.Discard).
func BenchmarkSpinFrameDrawn(b *testing.B) {
	hs := spinHarness(b)
	scr := newScreen(io.Discard, nil, 120, 40)
	_ = scr.draw(hs.m.View())
	b.ResetTimer()
	for range b.N {
		hs.m.Update(spinMsg{})
		_ = scr.draw(hs.m.View())
	}
}
