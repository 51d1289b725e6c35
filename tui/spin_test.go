package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The spinner ticks at its frame rate while the status line shows it,
// once a second while only the thread list's elapsed times show (the
// search box over the status line), and not at all while nothing
// moving is on screen (a terminal too small to draw); it starts again
// when something comes back into view.
func TestSpinnerTicksOnlyWhileOnScreen(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	var armed []time.Duration
	hs.m.timer = func(d time.Duration, msg tea.Msg) tea.Cmd {
		if _, ok := msg.(spinMsg); ok {
			armed = append(armed, d)
		}
		hs.timers = append(hs.timers, msg)
		return nil
	}
	tick := func(what string, want ...time.Duration) {
		t.Helper()
		armed = nil
		fire[spinMsg](hs)
		if len(armed) != len(want) || (len(want) == 1 && armed[0] != want[0]) {
			t.Errorf("%s: the next tick is armed %v, want %v", what, armed, want)
		}
	}
	tick("status line shown", spinInterval)
	hs.press("alt+/")
	if !hs.m.search.open {
		t.Fatal("alt+/ did not open the search box")
	}
	tick("search box over the status line, elapsed times in the list", elapsedInterval)
	hs.press("esc")
	tick("search closed", spinInterval)
	hs.send(tea.WindowSizeMsg{Width: 30, Height: 10})
	tick("too small to draw")
	armed = nil
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	if len(armed) != 1 || armed[0] != spinInterval {
		t.Errorf("back in view: armed %v, want [%v]", armed, spinInterval)
	}
}
