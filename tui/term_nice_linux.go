package tui

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// yieldToChildren makes the calling goroutine's OS thread a low-priority
// one for the rest of its life: emulating a flood of output costs a core
// (x/vt redraws the screen for every scrolled line), and on a small
// machine that core is taken from the very program whose output it is.
// At niceness 19 the emulator gets a sliver of a contended core and every
// idle cycle; the program in the terminal runs at full speed, and the
// pane catches up (or gets a Reset) when the flood ends
// (BenchmarkPTYPane: 2.5x the child's time at normal priority, under
// 1.5x at 19, on two cores). The thread
// stays locked: it ends with the goroutine, so no other goroutine ever
// runs at its priority.
func yieldToChildren() {
	n := int(termNice.Load())
	if n == 0 {
		return
	}
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n)
}
