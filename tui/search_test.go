package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// searchState is one thread with "needle" three times, each deeper in a
// fold: run 1's reply (open), the 20th line of run 2's long message
// (folded to its first rows), and the 25th line of run 3's command
// output, in a run the person closed (and output cut to its first
// lines). Filler keeps the matches screens apart.
func searchState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "hay", core.ThreadIdle, 3, sec)
	r1 := j.run("t1", 1, core.RunCompleted, "find it", 2*sec, 3*sec)
	j.node(r1, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "here is needle-one, at the top")
	var msg, out []string
	for i := 1; i <= 40; i++ {
		msg = append(msg, "message line "+itoa(i))
		out = append(out, "output line "+itoa(i))
	}
	msg[19] = "the NEEDLE-two hides in a long message"
	out[24] = "needle-three at the bottom of the output"
	j.run("t1", 2, core.RunCompleted, strings.Join(msg, "\n"), 4*sec, 5*sec)
	r3 := j.run("t1", 3, core.RunCompleted, "run it", 6*sec, 7*sec)
	j.node(r3, 2, core.NodeToolCall, core.NodeCompleted, "bash ./gen.sh", strings.Join(out, "\n"))
	j.node(r3, 3, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "done")
	return j.st
}

// highlighted is the plain text of the view's lines that hold the match
// highlight around what.
func (hs *harness) highlighted(what string) []string {
	var out []string
	mark := hs.m.matchStyle().Render(what)
	for _, l := range strings.Split(hs.m.View().Content, "\n") {
		if strings.Contains(l, mark) {
			out = append(out, ansi.Strip(l))
		}
	}
	return out
}

// The acceptance: search finds the third of three matches and scrolls to
// it, unfolding what hid it; next and previous wrap round; esc closes the
// box and typing goes to the composer again.
func TestSearchFindsTheThirdOfThreeMatchesAndScrollsToIt(t *testing.T) {
	hs := newHarness(t, searchState(t), 100, 24)
	hs.m.folds[runItem(core.RunID("t1", 3))] = foldClosed
	hs.m.invalidateAll()
	// From the top of the transcript.
	hs.press("shift+tab", "home", "alt+/")
	hs.typeText("needle")
	hs.expectScreen("after typing the query", "find: needle", "match 1 of 3", "needle-one")
	if h := hs.highlighted("needle"); len(h) != 1 || !strings.Contains(h[0], "needle-one") {
		t.Fatalf("match 1 highlighted on %q, want the line of needle-one", h)
	}
	hs.press("enter")
	hs.expectScreen("the second match", "match 2 of 3", "the NEEDLE-two hides")
	if h := hs.highlighted("NEEDLE"); len(h) != 1 || !strings.Contains(h[0], "NEEDLE-two") {
		t.Fatalf("match 2 highlighted on %q, want the line of NEEDLE-two", h)
	}
	hs.press("enter")
	scr := hs.screen()
	if !strings.Contains(scr, "match 3 of 3") || !strings.Contains(scr, "needle-three at the bottom") {
		t.Fatalf("the third match is not on screen:\n%s", scr)
	}
	if strings.Contains(scr, "needle-one") {
		t.Errorf("the transcript did not scroll to the third match:\n%s", scr)
	}
	if h := hs.highlighted("needle"); len(h) != 1 || !strings.Contains(h[0], "needle-three") {
		t.Fatalf("match 3 highlighted on %q, want the line of needle-three", h)
	}
	// The cursor is on the step that holds it, so the copy key copies it.
	if n := hs.m.state.Node(hs.m.conv.cursor); n == nil || n.Title != "bash ./gen.sh" {
		t.Errorf("the transcript cursor is on %q, want the command's step", hs.m.conv.cursor)
	}

	hs.press("enter")
	hs.expectScreen("next after the last", "match 1 of 3 (wrapped)", "needle-one")
	hs.press("up")
	hs.expectScreen("previous before the first", "match 3 of 3 (wrapped)", "needle-three")
	hs.press("up")
	hs.expectScreen("previous", "match 2 of 3", "NEEDLE-two")

	hs.press("esc")
	if hs.m.search.open || strings.Contains(hs.screen(), "find: ") {
		t.Fatal("esc did not close the search box")
	}
	if h := hs.highlighted("NEEDLE"); len(h) != 0 {
		t.Errorf("a closed search still highlights %q", h)
	}
	hs.expectScreen("after esc: the transcript stays at the match", "NEEDLE-two")
	hs.typeText("after")
	if got := hs.m.composer.value(); got != "after" {
		t.Errorf("typing after the search box closed gave the composer %q", got)
	}
	// Opening again offers the last query.
	hs.press("alt+/")
	if hs.m.search.input.Value() != "needle" {
		t.Errorf("the box reopened with %q, want the last query", hs.m.search.input.Value())
	}
	hs.press("esc")
}

// While the box is open printable keys type into it, not the composer,
// and a query without a match says so.
func TestSearchNoMatch(t *testing.T) {
	hs := newHarness(t, searchState(t), 100, 24)
	hs.typeText("draft")
	hs.press("ctrl+/")
	hs.typeText("haystack")
	hs.expectScreen("a query with no match", "find: haystack", "no match")
	if got := hs.m.composer.value(); got != "draft" {
		t.Errorf("typing into the search box changed the draft to %q", got)
	}
	// ctrl+u clears the query; a paste goes into the box too, on one line.
	hs.press("ctrl+u")
	hs.send(tea.PasteMsg{Content: "needle-\nthree"})
	hs.expectScreen("a pasted query", "find: needle- three")
	hs.m.search.input.SetValue("")
	hs.send(tea.PasteMsg{Content: "needle-three"})
	hs.expectScreen("a pasted query that matches", "match 1 of 1", "needle-three at the bottom")
	if got := hs.m.composer.value(); got != "draft" {
		t.Errorf("pasting into the search box changed the draft to %q", got)
	}
	hs.press("esc")
	hs.checkScreen(100, 24)
}

// A match on the transcript cursor's own line (a step's title, drawn in
// the selection's colours) is still marked.
func TestSearchMarksAMatchOnTheCursorLine(t *testing.T) {
	hs := newHarness(t, searchState(t), 100, 24)
	hs.press("shift+tab", "alt+/")
	hs.typeText("GEN.SH")
	hs.expectScreen("a match in a step's title", "match 1 of 1")
	if n := hs.m.state.Node(hs.m.conv.cursor); n == nil || n.Title != "bash ./gen.sh" {
		t.Fatalf("the cursor is on %q, want the step", hs.m.conv.cursor)
	}
	if h := hs.highlighted("gen.sh"); len(h) != 1 || !strings.Contains(h[0], "bash ./gen.sh") {
		t.Fatalf("the match on the cursor's line is not marked: %q", h)
	}
}
