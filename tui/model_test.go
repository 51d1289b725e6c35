package tui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

func TestNewThreadDialogSubmitsThreadCreate(t *testing.T) {
	hs := newHarness(t, core.NewState(), 120, 40)
	hs.press("ctrl+n")
	if !strings.Contains(hs.screen(), "New thread") {
		t.Fatalf("ctrl+n did not open the new thread dialog:\n%s", hs.screen())
	}
	hs.typeText("refactor the lexer")
	hs.press("shift+tab", "down", "enter") // provider field, second profile, create
	c := hs.lastCmd()
	if c.Kind != core.CmdThreadCreate {
		t.Fatalf("submitted %s, want thread.create", c.Kind)
	}
	if c.Provider != "builtin:nosteer" || c.Title != "refactor the lexer" || c.NewThread == "" || c.ID == "" {
		t.Errorf("thread.create = %+v; want provider builtin:nosteer, the typed title, new ids", c)
	}
	if c.Workspace != hs.ws {
		t.Errorf("workspace = %q, want the default %q", c.Workspace, hs.ws)
	}
	if strings.Contains(hs.screen(), "New thread") {
		t.Errorf("the dialog is still open after enter:\n%s", hs.screen())
	}
	if hs.m.focus != focusComposer {
		t.Errorf("focus = %d after creating a thread, want the composer", hs.m.focus)
	}
}

func TestNewThreadDialogRejectsMissingWorkspace(t *testing.T) {
	hs := newHarness(t, core.NewState(), 120, 40)
	hs.press("ctrl+n", "tab") // to the workspace field
	for range len(hs.ws) + 5 {
		hs.press("backspace")
	}
	hs.typeText("/no/such/dir")
	hs.press("enter")
	if n := len(hs.b.submitted()); n != 0 {
		t.Fatalf("%d commands submitted for a workspace that does not exist", n)
	}
	if !strings.Contains(hs.screen(), "not a directory") {
		t.Errorf("no error shown for a missing workspace:\n%s", hs.screen())
	}
}

func TestEnterSendsMessageModeAuto(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	// t1 waits on an approval: alt+m sets it aside to write to the run.
	hs.press("alt+m")
	hs.typeText("hello")
	if !strings.Contains(hs.screen(), "hello") {
		t.Fatalf("typed text not in the composer:\n%s", hs.screen())
	}
	hs.press("enter")
	c := hs.lastCmd()
	if c.Kind != core.CmdMessageSend || c.Mode != core.ModeAuto || c.Text != "hello" || c.Thread != "t1" {
		t.Fatalf("sent %+v; want message.send mode auto \"hello\" to t1", c)
	}
	if hs.m.composer.value() != "" {
		t.Errorf("composer not cleared after send: %q", hs.m.composer.value())
	}
	// The mode is shown next to the input: t1 has an active run and steers.
	if !strings.Contains(hs.screen(), "auto: steer the active run") {
		t.Errorf("send mode not shown:\n%s", hs.screen())
	}
}

func TestQueueRestartAndNewlineKeys(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("later")
	hs.press("ctrl+q")
	if c := hs.lastCmd(); c.Mode != core.ModeQueue || c.Text != "later" {
		t.Errorf("ctrl+q sent %+v, want mode queue_after_active", c)
	}
	hs.typeText("again")
	hs.press("alt+r")
	if c := hs.lastCmd(); c.Mode != core.ModeRestart {
		t.Errorf("alt+r sent mode %q, want restart_active", c.Mode)
	}
	hs.typeText("one")
	hs.press("ctrl+j")
	hs.typeText("two")
	if got := hs.m.composer.value(); got != "one\ntwo" {
		t.Errorf("ctrl+j: composer = %q, want two lines", got)
	}
	if n := len(hs.b.submitted()); n != 2 {
		t.Errorf("%d commands after a newline key, want 2 (newline must not send)", n)
	}
}

func TestComposerHistory(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	// t1 waits on an approval: alt+m sets it aside to write to the run.
	hs.press("alt+m")
	hs.typeText("first")
	hs.press("enter")
	hs.typeText("second")
	hs.press("enter")
	hs.press("up")
	if got := hs.m.composer.value(); got != "second" {
		t.Fatalf("up on an empty input = %q, want the last sent message", got)
	}
	hs.press("up")
	if got := hs.m.composer.value(); got != "first" {
		t.Fatalf("up again = %q, want the one before", got)
	}
	hs.press("down", "down")
	if got := hs.m.composer.value(); got != "" {
		t.Fatalf("down past the newest = %q, want empty", got)
	}
}

func TestRequestBoxLeavesWhenAnsweredElsewhere(t *testing.T) {
	st := demoState(t)
	hs := newHarness(t, st.Clone(), 120, 40)
	hs.press("ctrl+o")
	q := *st.Requests["R1"]
	q.Status, q.Response = core.RequestResolved, core.RespDeny
	hs.send(frameMsg{journal: []core.Event{{Seq: st.Seq + 1, Type: core.EvRequestUpdated, Thread: "t1",
		Run: q.Run, Payload: core.Payload{Request: &q}}}})
	scr := hs.screen()
	if strings.Contains(scr, "Approval R1") {
		t.Errorf("the request box of a request answered elsewhere stayed")
	}
	if strings.Contains(strings.SplitN(scr, "\n", 2)[0], "waiting for you") {
		t.Errorf("the banner stayed after the last request was answered:\n%s", scr)
	}
	if !strings.Contains(scr, "denied") {
		t.Errorf("the transcript does not show the answer:\n%s", scr)
	}
}

func TestQuitConfirmsWhileRunsAreActive(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("ctrl+c")
	if hs.quit || !strings.Contains(hs.screen(), "Quit nexus?") {
		t.Fatalf("ctrl+c with an active run quit without asking:\n%s", hs.screen())
	}
	if !strings.Contains(hs.screen(), "stops it") {
		t.Errorf("a host's quit dialog does not say that the host stops")
	}
	hs.press("n")
	if hs.quit || strings.Contains(hs.screen(), "Quit nexus?") {
		t.Fatalf("n did not cancel quitting")
	}
	hs.press("ctrl+c", "y")
	if !hs.quit {
		t.Fatalf("y in the quit dialog did not quit")
	}

	idle := newHarness(t, core.NewState(), 80, 24)
	idle.press("ctrl+c")
	if !idle.quit {
		t.Errorf("ctrl+c with nothing running and no draft did not quit")
	}
	// A UI that hosts its own kernel ends its live terminals when it
	// quits: it asks first, and says so.
	shells := newHarness(t, core.NewState(), 120, 40)
	shells.m.opts.LiveTerminals = func() int { return 2 }
	shells.press("ctrl+c")
	if shells.quit || !strings.Contains(shells.screen(), "2 live terminal(s)") {
		t.Errorf("ctrl+c with two live terminals in a UI host quit without asking:\n%s", shells.screen())
	}
}

// No printable key is a command outside a dialog, a terminal or the
// thread search: on the thread list, after esc, in the transcript,
// "quick question" and "read README.md and summarize it" type into the
// composer whole, and nothing quits.
func TestPrintableKeysTypeIntoTheComposer(t *testing.T) {
	for _, start := range [][]string{nil, {"esc"}, {"esc", "down"}, {"shift+tab"}, {"tab"}, {"f1", "esc"}, {"ctrl+n", "esc"}} {
		for _, text := range []string{"quick question", "read README.md and summarize it", "q?/jkgGi "} {
			hs := newHarness(t, demoState(t), 120, 40)
			hs.press(start...)
			hs.typeText(text)
			if hs.quit || len(hs.m.dialogs) > 0 {
				t.Fatalf("after %v, typing %q quit or opened a dialog", start, text)
			}
			if got := hs.m.composer.value(); got != text {
				t.Errorf("after %v, typing %q left the composer with %q", start, text, got)
			}
		}
	}
}

// ctrl+c clears a draft first; a second one asks or quits.
func TestCtrlCClearsTheDraftFirst(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("half a thought")
	hs.press("ctrl+c")
	if hs.quit || hs.m.composer.value() != "" {
		t.Fatalf("ctrl+c on a draft: quit %v, composer %q; want the draft cleared and nexus running", hs.quit, hs.m.composer.value())
	}
	hs.press("ctrl+c")
	if !hs.quit && len(hs.m.dialogs) == 0 {
		t.Fatal("ctrl+c on an empty composer neither quit nor asked")
	}
}

// Each thread keeps its own draft across a switch.
func TestDraftsStayWithTheirThread(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	first := hs.m.selected
	hs.typeText("for the first thread")
	hs.press("alt+down")
	if hs.m.selected == first {
		t.Fatal("alt+down did not switch threads")
	}
	if got := hs.m.composer.value(); got != "" {
		t.Fatalf("the other thread shows the first one's draft %q", got)
	}
	hs.typeText("for the second")
	hs.press("alt+up")
	if got := hs.m.composer.value(); got != "for the first thread" {
		t.Fatalf("back on the first thread the composer holds %q", got)
	}
	hs.press("alt+down")
	if got := hs.m.composer.value(); got != "for the second" {
		t.Fatalf("back on the second thread the composer holds %q", got)
	}
}

func TestQIsTextInTheComposer(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("quit?")
	if hs.quit || len(hs.m.dialogs) > 0 {
		t.Fatalf("typing q or ? in the composer acted as a key")
	}
	if hs.m.composer.value() != "quit?" {
		t.Errorf("composer = %q", hs.m.composer.value())
	}
}

func TestThreadsFilter(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("esc", "alt+k")
	hs.typeText("docs")
	hs.press("enter")
	scr := hs.screen()
	if !strings.Contains(scr, "write docs") || strings.Contains(scr, "flaky test") {
		t.Fatalf("filter \"docs\" does not show only the matching thread:\n%s", scr)
	}
	if hs.m.selected != "t2" {
		t.Errorf("selected %q, want the one match t2", hs.m.selected)
	}
	hs.press("alt+k", "esc")
	if !strings.Contains(hs.screen(), "flaky test") {
		t.Errorf("esc did not clear the filter")
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	hs := newHarness(t, demoState(t), 200, 60)
	hs.press("f1")
	// The help scrolls: collect every page.
	scr := hs.screen()
	for range 120 {
		hs.press("down")
		scr += hs.screen()
	}
	for _, g := range hs.m.keys.groups() {
		for _, b := range g.bindings {
			if !strings.Contains(scr, b.Help().Desc) {
				t.Errorf("help does not list %q (%s)", b.Help().Key, b.Help().Desc)
			}
		}
	}
	hs.press("esc")
	if len(hs.m.dialogs) != 0 {
		t.Errorf("esc did not close help")
	}
}

// Each context of the help lists each key once, with what it does there:
// no transcript or thread keys under the grid, the diff view or the
// rollback dialog.
func TestHelpSaysWhatEachKeyDoesWhereItIsListed(t *testing.T) {
	keys := DefaultKeyMap()
	mainView := map[string]bool{}
	for _, b := range []key.Binding{keys.Up, keys.Down, keys.PageUp, keys.PageDown, keys.Top, keys.Bottom, keys.Open, keys.Toggle} {
		mainView[b.Help().Desc] = true
	}
	for _, g := range keys.groups() {
		seen := map[string]bool{}
		for _, b := range g.bindings {
			for _, k := range b.Keys() {
				if seen[k] {
					t.Errorf("%s: key %q listed twice", g.title, k)
				}
				seen[k] = true
			}
			other := strings.HasPrefix(g.title, "Grid") || strings.HasPrefix(g.title, "Diff") || strings.HasPrefix(g.title, "Rollback")
			if d := b.Help().Desc; other && mainView[d] {
				t.Errorf("%s: %s says %q, what it does in the threads and transcript", g.title, b.Help().Key, d)
			}
		}
	}
}

func TestResizeNeverOverflows(t *testing.T) {
	hs := newHarness(t, demoState(t), 80, 24)
	for _, open := range []string{"", "ctrl+o", "f1", "ctrl+n"} {
		if open != "" {
			hs.press(open)
		}
		hs.checkSizes(resizeSizes)
		hs.press("esc")
	}
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(hs.screen(), "fix the parser") {
		t.Errorf("after resizing back to 80x24 the screen lost its content:\n%s", hs.screen())
	}
}

func TestScrollShowsOnlyTheVisibleWindow(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "long", core.ThreadIdle, 200, sec)
	for i := 1; i <= 200; i++ {
		r := j.run("t1", i, core.RunCompleted, "message number "+itoa(i), int64(i)*sec, int64(i)*sec+sec/2)
		j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "reply number "+itoa(i))
	}
	hs := newHarness(t, j.st, 100, 30)
	if scr := hs.screen(); !strings.Contains(scr, "reply number 200") || strings.Contains(scr, "reply number 1 ") {
		t.Fatalf("the transcript does not follow the newest run:\n%s", scr)
	}
	hs.press("pgup", "pgup")
	scr := hs.screen()
	if strings.Contains(scr, "reply number 200") {
		t.Errorf("pgup did not scroll up:\n%s", scr)
	}
	if !strings.Contains(scr, "more lines") {
		t.Errorf("no hint that lines lie below:\n%s", scr)
	}
	hs.send(tea.MouseWheelMsg{X: 60, Y: 10, Button: tea.MouseWheelDown})
	for range 20 {
		hs.press("pgdown")
	}
	if !strings.Contains(hs.screen(), "reply number 200") {
		t.Errorf("pgdown back to the end does not show the newest run")
	}
	hs.press("shift+tab", "home") // composer -> transcript; home goes to the top
	if !strings.Contains(hs.screen(), "message number 1 ") {
		t.Errorf("home did not go to the top:\n%s", hs.screen())
	}
}

func TestPasteLargeTextIntoComposer(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	// t1 waits on an approval: alt+m sets it aside to write to the run.
	hs.press("alt+m")
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("pasted line " + itoa(i) + "\n")
	}
	text := strings.TrimSuffix(b.String(), "\n")
	hs.send(tea.PasteMsg{Content: text})
	if got := hs.m.composer.value(); got != text {
		t.Fatalf("the composer holds %d bytes of a %d-byte paste", len(got), len(text))
	}
	hs.checkScreen(120, 40) // the input grows to its cap, not past the screen
	hs.press("enter")
	if c := hs.lastCmd(); c.Text != text {
		t.Errorf("sent %d bytes, want the whole %d-byte paste", len(c.Text), len(text))
	}
}

func TestUnreadMarker(t *testing.T) {
	st := demoState(t)
	hs := newHarness(t, st.Clone(), 120, 40)
	if strings.Contains(hs.screen(), "•") {
		t.Fatalf("threads are unread right after start:\n%s", hs.screen())
	}
	t2 := *st.Threads["t2"]
	t2.Title = "write docs v2"
	hs.send(frameMsg{journal: []core.Event{{Seq: st.Seq + 1, Type: core.EvThreadUpdated, Thread: "t2",
		Payload: core.Payload{Thread: &t2}}}})
	if !strings.Contains(hs.screen(), "• write docs v2") {
		t.Fatalf("a thread that changed while another was shown has no unread marker:\n%s", hs.screen())
	}
	hs.press("alt+down")
	if hs.m.selected != "t2" || strings.Contains(hs.screen(), "•") {
		t.Errorf("showing the thread did not clear its unread marker:\n%s", hs.screen())
	}
}

func TestMouseClickSelectsThreadAndFocusesPanes(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	// Row layout: banner (y=0), threads box top border (y=1), then
	// three rows per thread from y=2: t1 at 2-4, t2 at 5-7, t3 at 8-10.
	hs.send(tea.MouseClickMsg{X: 5, Y: 9, Button: tea.MouseLeft})
	if hs.m.selected != "t3" || hs.m.focus != focusThreads {
		t.Errorf("click on the third thread: selected %q focus %d, want t3 and the threads pane", hs.m.selected, hs.m.focus)
	}
	hs.send(tea.MouseClickMsg{X: 80, Y: 10, Button: tea.MouseLeft})
	if hs.m.focus != focusMain {
		t.Errorf("click on the transcript: focus %d, want the transcript", hs.m.focus)
	}
	hs.send(tea.MouseClickMsg{X: 10, Y: 37, Button: tea.MouseLeft})
	if hs.m.focus != focusComposer {
		t.Errorf("click on the composer: focus %d, want the composer", hs.m.focus)
	}
}

// The todos pane never passes one run's list off as another's: a new run
// without a list shows none (not the previous run's), and a step in
// progress when its run was interrupted shows as stopped, not going on,
// and a failed step as failed, not done.
func TestTodosBelongToTheirRun(t *testing.T) {
	plan := func(j *journal, run *core.Run, items ...core.PlanItem) {
		j.add(core.Event{Type: core.EvPlanUpdated, Thread: run.Thread, Run: run.ID, Payload: core.Payload{Plan: &core.Plan{
			ID: core.PlanID(run.ID), Run: run.ID, Kind: "todo_list", Items: items}}})
	}
	j := newJournal(t)
	j.thread("t1", "work", core.ThreadRunning, 2, sec)
	r1 := j.run("t1", 1, core.RunCompleted, "first", 2*sec, 3*sec)
	plan(j, r1, core.PlanItem{Text: "old step", Status: "completed"})
	j.run("t1", 2, core.RunRunning, "second", 4*sec, 0)
	hs := newHarness(t, j.st, 120, 40)
	if scr := hs.screen(); strings.Contains(scr, "old step") || !strings.Contains(scr, "no todo list") {
		t.Fatalf("a new run without a list shows the old run's:\n%s", scr)
	}

	j2 := newJournal(t)
	j2.thread("t1", "work", core.ThreadIdle, 1, sec)
	r := j2.run("t1", 1, core.RunInterrupted, "stopped", 2*sec, 3*sec)
	plan(j2, r, core.PlanItem{Text: "first step", Status: "failed"}, core.PlanItem{Text: "second step", Status: "in_progress"})
	scr := newHarness(t, j2.st, 120, 40).screen()
	if strings.Contains(scr, "▸ second step") || !strings.Contains(scr, "– second step") {
		t.Fatalf("an interrupted run's step in progress still shows as going on:\n%s", scr)
	}
	if strings.Contains(scr, "✓ first step") || !strings.Contains(scr, "✗ first step") || !strings.Contains(scr, "Todos 0/2") {
		t.Fatalf("a failed step shows as done:\n%s", scr)
	}
}

// A cut tool output says how many of its lines are left out, counting the
// text's lines, not the rows they wrap to.
func TestCutOutputCountsLines(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "long", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, "read it", 2*sec, 3*sec)
	var b strings.Builder
	for i := 1; i <= 243; i++ {
		fmt.Fprintf(&b, "line %03d %s\n", i, strings.Repeat("x", 150)) // wraps at this width
	}
	j.node(r, 2, core.NodeToolCall, core.NodeCompleted, "read_file big.txt", b.String())
	scr := newHarness(t, j.st, 120, 40).screen()
	shown := 0
	for i := 1; i <= 243; i++ {
		if strings.Contains(scr, fmt.Sprintf("line %03d", i)) {
			shown++
		}
	}
	if want := fmt.Sprintf("… %d more lines", 243-shown); shown == 0 || !strings.Contains(scr, want) {
		t.Fatalf("%d lines shown; want %q on screen:\n%s", shown, want, scr)
	}
}

// On the first screen, with no thread, a message and enter start a thread
// (the first profile, the default workspace, titled by the message) and
// send the message to it.
func TestEnterWithNoThreadStartsOne(t *testing.T) {
	hs := newHarness(t, core.NewState(), 120, 40)
	hs.typeText("read README.md and summarize it")
	hs.press("enter")
	cmds := hs.b.submitted()
	if len(cmds) != 2 || cmds[0].Kind != core.CmdThreadCreate || cmds[1].Kind != core.CmdMessageSend {
		t.Fatalf("submitted %+v; want a thread.create then a message.send", cmds)
	}
	if cmds[0].Provider != "builtin" || cmds[0].Title != "read README.md and summarize it" || cmds[0].Workspace != hs.ws {
		t.Errorf("thread.create %+v; want the builtin profile, titled by the message, in %s", cmds[0], hs.ws)
	}
	if cmds[1].Thread != cmds[0].NewThread || cmds[1].Text != "read README.md and summarize it" {
		t.Errorf("message.send %+v; want the message sent to the new thread %s", cmds[1], cmds[0].NewThread)
	}
	if hs.m.composer.value() != "" {
		t.Errorf("the composer still holds %q", hs.m.composer.value())
	}
}

// The dialog opens on the title; up and down pick the provider from
// there (as its hint says) without moving the focus, so a title typed
// next still lands in the title.
func TestNewThreadDialogArrowsPickTheProvider(t *testing.T) {
	hs := newHarness(t, core.NewState(), 120, 40)
	hs.press("ctrl+n", "down")
	hs.typeText("lexer")
	hs.press("down", "up", "down", "enter")
	c := hs.lastCmd()
	if c.Kind != core.CmdThreadCreate || c.Provider != "builtin:nosteer" || c.Title != "lexer" {
		t.Fatalf("ctrl+n, down, a title, down up down, enter: %s %q %q; want builtin:nosteer titled lexer", c.Kind, c.Provider, c.Title)
	}
}
