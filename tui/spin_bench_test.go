package tui

import "testing"

// BenchmarkSpinFrame is the model's share of a spinner frame: Update
// with the tick and View, 16 threads on screen and one run active.
func BenchmarkSpinFrame(b *testing.B) {
	j := newJournal(b)
	for i := range 16 {
		j.thread("t"+itoa(i), "thread "+itoa(i), "idle", 1, sec)
	}
	j.thread("t99", "busy", "running", 1, sec)
	j.run("t99", 1, "running", "sleep 3600", 2*sec, 0)
	hs := newHarness(b, j.st, 120, 40)
	b.ResetTimer()
	for range b.N {
		hs.m.Update(spinMsg{})
		_ = hs.m.View()
	}
}
