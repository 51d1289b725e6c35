package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// numbered is n lines "pasted line 0" to "pasted line n-1".
func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "pasted line " + itoa(i)
	}
	return strings.Join(lines, "\n")
}

// longMessageState is one thread whose run was sent a 400-line message
// and steered with a 30-line one.
func longMessageState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "big paste", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, numbered(400), 2*sec, 3*sec)
	steered := *j.st.Runs[r.ID]
	steered.Steers = []string{"steer " + numbered(30)}
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t1", Run: r.ID, Payload: core.Payload{Run: &steered}})
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "read all 400 lines")
	return j.st
}

// transcript is every line of the selected thread's transcript.
func (hs *harness) transcript() string {
	w, _ := hs.m.mainSize()
	var out []string
	for _, b := range hs.m.blocks(hs.m.selectedThread(), w) {
		out = append(out, b.lines...)
	}
	return stripLines(out)
}

func stripLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " ") + "\n")
	}
	return b.String()
}

// A long message shows folded in the transcript: its first rows and how
// long it is. Enter on it shows it all, and enter again folds it.
func TestLongMessageFoldsInTheTranscript(t *testing.T) {
	hs := newHarness(t, longMessageState(t), 120, 40)
	msg := numbered(400)
	folded := hs.transcript()
	marker := "… 400 lines · " + sizeLabel(len(msg)) + " in all · enter or click shows all"
	for _, want := range []string{"› pasted line 0\n", "  pasted line 3\n", marker, "read all 400 lines", "30 lines"} {
		if !strings.Contains(folded, want) {
			t.Errorf("the folded transcript lacks %q:\n%s", want, folded)
		}
	}
	for _, hidden := range []string{"pasted line 4\n", "pasted line 399", "pasted line 29"} {
		if strings.Contains(folded, hidden) {
			t.Errorf("the folded transcript shows %q:\n%s", hidden, folded)
		}
	}
	if !strings.Contains(hs.screen(), marker) {
		t.Errorf("the screen does not show the folded message:\n%s", hs.screen())
	}

	hs.press("shift+tab") // the transcript
	for range 5 {
		if hs.m.conv.cursor == msgItem(core.RunID("t1", 1)) {
			break
		}
		hs.press("up")
	}
	if hs.m.conv.cursor != msgItem(core.RunID("t1", 1)) {
		t.Fatalf("the transcript cursor never reached the message (at %q)", hs.m.conv.cursor)
	}
	hs.press("enter")
	open := hs.transcript()
	if !strings.Contains(open, "  pasted line 399\n") || strings.Contains(open, marker) {
		t.Errorf("enter on the folded message did not show it all:\n%.2000s", open)
	}
	hs.press("enter")
	if got := hs.transcript(); got != folded {
		t.Errorf("enter again did not fold the message:\n%.2000s", got)
	}
}

// A click on a folded message opens it; a second click folds it.
func TestClickOpensAFoldedMessage(t *testing.T) {
	hs := newHarness(t, longMessageState(t), 120, 40)
	click := func(want string) {
		t.Helper()
		for y, l := range strings.Split(hs.screen(), "\n") {
			if x := strings.Index(l, want); x >= 0 {
				hs.send(tea.MouseClickMsg{X: hs.m.lay.main.x + 4, Y: y, Button: tea.MouseLeft})
				return
			}
		}
		t.Fatalf("%q is not on the screen:\n%s", want, hs.screen())
	}
	click("enter or click shows all")
	if !strings.Contains(hs.transcript(), "pasted line 399") {
		t.Fatalf("a click on the folded message did not open it:\n%s", hs.screen())
	}
	hs.press("home")
	click("pasted line 1")
	if strings.Contains(hs.transcript(), "pasted line 399") {
		t.Errorf("a click on the open message did not fold it:\n%s", hs.screen())
	}
}
