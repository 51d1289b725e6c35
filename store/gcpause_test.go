package store

import (
	"runtime/debug"
	"sync"
	"testing"
)

// Concurrent and nested pauses restore the collector's setting exactly
// once, to what it was before the first.
func TestPauseGCRestoresSetting(t *testing.T) {
	old := debug.SetGCPercent(137)
	defer debug.SetGCPercent(old)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				pauseGC()
				pauseGC()
				resumeGC()
				resumeGC()
			}
		})
	}
	wg.Wait()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Fatalf("GC percent after the pauses = %d, want 137 as before", got)
	}
}
