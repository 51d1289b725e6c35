package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func TestForkDialogPicksACompletedRun(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "explore", core.ThreadIdle, 3, sec)
	j.run("t1", 1, core.RunCompleted, "first idea", 2*sec, 3*sec)
	j.run("t1", 2, core.RunFailed, "broken idea", 4*sec, 5*sec)
	j.run("t1", 3, core.RunCompleted, "third idea", 6*sec, 8*sec)
	hs := newHarness(t, j.st, 120, 40)
	hs.press("ctrl+t")
	scr := hs.screen()
	if !strings.Contains(scr, "Fork explore") || !strings.Contains(scr, "run 3: third idea") ||
		!strings.Contains(scr, "run 1: first idea") {
		t.Fatalf("the fork dialog does not list the completed runs:\n%s", scr)
	}
	if d := hs.m.dialogs[0].(*forkDialog); len(d.list.items) != 2 {
		t.Errorf("the fork dialog offers %d runs, want the 2 completed ones: %+v", len(d.list.items), d.list.items)
	}
	hs.press("down", "enter") // newest first: run 3, then run 1
	c := hs.lastCmd()
	if c.Kind != core.CmdThreadFork || c.Thread != "t1" || c.Run != 1 || c.NewThread == "" || c.Source != "run" {
		t.Fatalf("submitted %+v, want thread.fork of t1 at run 1", c)
	}
	if hs.m.pendingSelect != c.NewThread {
		t.Errorf("the new thread %q is not the one selected when it arrives (pending %q)", c.NewThread, hs.m.pendingSelect)
	}
	if len(hs.m.dialogs) != 0 {
		t.Errorf("the dialog stayed open")
	}
}

func TestForkWithoutCompletedRunSaysSo(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "fresh", core.ThreadIdle, 0, sec)
	hs := newHarness(t, j.st, 100, 30)
	hs.press("ctrl+t")
	if len(hs.m.dialogs) != 0 || !strings.Contains(hs.screen(), "no completed run to fork from") {
		t.Errorf("fork of a thread without completed runs:\n%s", hs.screen())
	}
}

func TestSwitchProviderDialog(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("alt+down") // t2, idle
	hs.press("ctrl+p")
	scr := hs.screen()
	if !strings.Contains(scr, "Switch provider of write docs") || !strings.Contains(scr, "builtin · current") {
		t.Fatalf("the switch dialog does not show the profiles and the current one:\n%s", scr)
	}
	hs.press("down", "enter")
	c := hs.lastCmd()
	if c.Kind != core.CmdProviderSwitch || c.Thread != "t2" || c.Provider != "builtin:nosteer" {
		t.Fatalf("submitted %+v, want provider.switch of t2 to builtin:nosteer", c)
	}
	if c.Caps != hs.m.opts.Profiles[1].Caps {
		t.Errorf("caps %+v, want the profile's %+v", c.Caps, hs.m.opts.Profiles[1].Caps)
	}
	hs.press("ctrl+p", "esc")
	if len(hs.m.dialogs) != 0 || len(hs.b.submitted()) != 1 {
		t.Errorf("esc did not cancel the switch dialog")
	}
}
