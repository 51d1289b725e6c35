package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

func TestAge(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		ago  time.Duration
		want string
	}{
		{0, "now"}, {59 * time.Second, "now"}, {time.Minute, "1m"}, {59 * time.Minute, "59m"},
		{time.Hour, "1h"}, {47 * time.Hour, "47h"}, {48 * time.Hour, "2d"}, {13 * 24 * time.Hour, "13d"},
		{15 * 24 * time.Hour, "2w"},
	} {
		if got := age(now, now.Add(-c.ago).UnixNano()); got != c.want {
			t.Errorf("age of %s = %q, want %q", c.ago, got, c.want)
		}
	}
	if age(now, 0) != "" {
		t.Errorf("an unknown time has an age")
	}
}

func TestBadgesSayWhatNeedsThePerson(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "asks", core.ThreadWaiting, 1, sec)
	r := j.run("t1", 1, core.RunWaiting, "pick #ask=Which colour?", 2*sec, 0)
	n := j.node(r, 2, core.NodeUserInput, "", "Which colour?", "")
	j.request(r, n, "R1", core.RequestUserInput, "Which colour?")
	j.thread("t2", "crashed", core.ThreadIdle, 1, 3*sec)
	r2 := j.run("t2", 1, core.RunInterrupted, "long job", 4*sec, 5*sec)
	rc := *r2
	rc.Recoverable = true
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t2", Run: rc.ID, Payload: core.Payload{Run: &rc}})
	hs := newHarness(t, j.st, 120, 40)
	scr := hs.screen()
	for _, want := range []string{"✎ needs input", "⏸ interrupted", "9m"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the threads pane does not show %q:\n%s", want, scr)
		}
	}
	hs.press("alt+up") // to t1... the crashed thread is newer and selected first
	hs.press("alt+down")
	if hs.m.selected != "t2" {
		t.Fatalf("selected %q", hs.m.selected)
	}
	if !strings.Contains(hs.screen(), "ctrl+y resumes it") {
		t.Errorf("the interrupted run does not name the resume key:\n%s", hs.screen())
	}
	hs.press("ctrl+y")
	if c := hs.lastCmd(); c.Kind != core.CmdRunResume || c.Thread != "t2" {
		t.Errorf("ctrl+y submitted %+v, want run.resume of t2", c)
	}
	hs.press("alt+up", "ctrl+y")
	if n := len(hs.b.submitted()); n != 1 || !strings.Contains(hs.screen(), "nothing to resume") {
		t.Errorf("ctrl+y on a thread with nothing to resume: %d submits, screen:\n%s", n, hs.screen())
	}
}

func TestSpinnerTurnsOnlyWhileRunsAreActive(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	count := func() (n int) {
		for _, msg := range hs.timers {
			if _, ok := msg.(spinMsg); ok {
				n++
			}
		}
		return n
	}
	if count() != 1 {
		t.Fatalf("%d spinner ticks armed while a run is active, want 1", count())
	}
	hs.press("down", "up") // more updates arm nothing more
	if count() != 1 {
		t.Fatalf("%d spinner ticks armed after more updates, want still 1", count())
	}
	before := hs.screen()
	fire[spinMsg](hs)
	if hs.screen() == before || !strings.Contains(hs.screen(), "● 1 active ⠙") {
		t.Errorf("the spinner did not turn:\n%s", hs.screen())
	}
	if count() != 1 {
		t.Errorf("the spinner did not re-arm while a run is active")
	}
	idle := newHarness(t, graphState(t), 120, 40)
	for _, msg := range idle.timers {
		if _, ok := msg.(spinMsg); ok {
			t.Errorf("a spinner ticks with nothing active: the idle screen would repaint")
		}
	}
}
