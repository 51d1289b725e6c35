package store

import (
	"runtime/debug"
	"sync"
)

// Decoding a snapshot allocates the whole live projection at once; with
// the collector on, it runs several cycles over a heap that is only
// growing (a third of the open time of a 1M-event journal). pauseGC turns
// it off for the decode and resumeGC restores the previous setting.
// Nested or concurrent pauses share one counter, so the setting comes
// back exactly once, when the last pause ends.
var gcPause struct {
	sync.Mutex
	n   int
	old int
}

func pauseGC() {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.n++; gcPause.n == 1 {
		gcPause.old = debug.SetGCPercent(-1)
	}
}

func resumeGC() {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.n--; gcPause.n == 0 {
		debug.SetGCPercent(gcPause.old)
	}
}
