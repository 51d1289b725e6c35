package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// acpState is a thread of an ACP agent (no PTY of its own) whose session
// runs, selected, with one completed run.
func acpState(t testing.TB) *core.State {
	j := newJournal(t)
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "a1", Payload: core.Payload{Thread: &core.Thread{
		ID: "a1", Title: "gemini work", Provider: "gemini",
		Caps:      core.Capabilities{Interrupt: true, Resume: true, Approvals: true, Plans: true},
		Workspace: "/work/demo", Status: core.ThreadIdle, Runs: 1, CreatedAt: 30 * sec, UpdatedAt: 30 * sec}}})
	r := j.run("a1", 1, core.RunCompleted, "run the tests", 31*sec, 32*sec)
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "reply", "the tests pass")
	j.session("a1", core.SessRunning)
	return j.st
}

// An ACP thread shows its transcript by default and attaches nothing;
// ctrl+s shows the terminal its agent ran a command in, and ctrl+s again
// the transcript, detaching it.
func TestTermACPThreadTogglesToItsTerminal(t *testing.T) {
	hs, ft := newTermHarness(t, acpState(t), 120, 40)
	if hs.m.selected != "a1" {
		t.Fatalf("selected %q, want the ACP thread a1", hs.m.selected)
	}
	hs.expectScreen("the transcript by default", "the tests pass")
	if scr := hs.screen(); strings.Contains(scr, "gemini terminal") || hs.m.terms.panes["a1"] != nil || ft.attaches != 0 {
		t.Fatalf("an ACP thread attached its terminal (%d attaches) unasked:\n%s", ft.attaches, scr)
	}

	hs.press("ctrl+s")
	hs.settle(ft)
	hs.feed(ft, "a1", "$ go test ./...\r\n\x1b[32mok\x1b[0m  example.com/pkg\r\n")
	hs.pumpScreen("example.com/pkg")
	scr := hs.screen()
	for _, want := range []string{"gemini work · gemini terminal", "$ go test ./...", "ctrl+s transcript"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the terminal view lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "the tests pass") {
		t.Errorf("the terminal view still shows the transcript:\n%s", scr)
	}
	hs.checkScreen(120, 40)

	hs.press("ctrl+s")
	hs.expectScreen("the transcript again", "the tests pass")
	if scr := hs.screen(); strings.Contains(scr, "gemini terminal") || hs.m.terms.panes["a1"] != nil {
		t.Fatalf("ctrl+s did not go back to the transcript and detach:\n%s", scr)
	}
}

// When the agent has run no command in a terminal, ctrl+s says so in the
// status line and the transcript stays; nothing retries behind the
// person's back.
func TestTermACPThreadWithoutTerminalSaysSo(t *testing.T) {
	hs, ft := newTermHarness(t, acpState(t), 120, 40)
	ft.noTerm["a1"] = true
	hs.press("ctrl+s")
	hs.pumpScreen("no terminal yet: gemini has run no command in a terminal")
	scr := hs.screen()
	if !strings.Contains(scr, "the tests pass") || strings.Contains(scr, "gemini terminal") || hs.m.terms.shown["a1"] {
		t.Fatalf("after a failed attach the thread does not show its transcript:\n%s", scr)
	}
	for _, msg := range hs.timers {
		if _, ok := msg.(termRetryMsg); ok {
			t.Errorf("a failed attach of an ACP thread armed a retry: %v", hs.timers)
		}
	}
	n := ft.attaches
	hs.send(snapshotMsg{state: acpState(t)})
	if ft.attaches != n {
		t.Errorf("a new state attached again (%d attaches, was %d)", ft.attaches, n)
	}

	// Once there is one, the next ctrl+s shows it; the end of the session
	// takes it away, back to the transcript, saying why.
	ft.mu.Lock()
	delete(ft.noTerm, "a1")
	ft.mu.Unlock()
	hs.press("ctrl+s")
	hs.settle(ft)
	hs.pumpScreen("gemini work · gemini terminal")
	ft.end("a1", core.ErrTerminalExited)
	hs.pumpScreen("terminal closed: the gemini session ended")
	if scr := hs.screen(); !strings.Contains(scr, "the tests pass") {
		t.Fatalf("after the terminal went away the transcript is not shown:\n%s", scr)
	}
}
