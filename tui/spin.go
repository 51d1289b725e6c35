package tui

import "time"

// What moves on screen while runs are active: the spinner in the status
// line and the elapsed times in the thread list. They wake the UI at
// their own rate and only while they are visible (spinEvery); with none
// on screen nothing ticks, and the next message that shows one again
// starts the tick (Update calls startSpinner after every message).

// elapsedInterval is how often an elapsed time in the thread list
// changes.
const elapsedInterval = time.Second

// spinEvery is how often the screen needs a frame for what moves on it:
// the spinner's frame time while the status line shows it, a second
// while only elapsed times show, 0 when nothing moving is on screen.
func (m *Model) spinEvery() time.Duration {
	if m.active == 0 || m.lay.tooSmall {
		return 0
	}
	if !m.terms.zoom && !m.search.open && m.lay.status.h > 0 {
		return spinInterval
	}
	if m.elapsedShown() {
		return elapsedInterval
	}
	return 0
}

// elapsedShown reports whether the thread list is on screen with a row
// of an active run (the diff view covers the list).
func (m *Model) elapsedShown() bool {
	if m.lay.threads.h <= 0 || m.diff.open {
		return false
	}
	for _, r := range m.visibleRows() {
		if r.started > 0 {
			return true
		}
	}
	return false
}
