package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// graphState is one completed run with a model call, a worker step that
// printed a diff of 10 lines, and a subagent with a child step.
func graphState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "graph", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, "fix main.go", 2*sec, 9*sec)
	llm := j.node(r, 2, core.NodeLLMCall, core.NodeCompleted, "sim", `{"toolCalls":[{"name":"edit_file","args":{"path":"main.go","old":"a","new":"b"}}]}`)
	llm.TokensIn, llm.TokensOut, llm.CostUSD, llm.DurationMS = 1200, 300, 0.0125, 420
	j.add(core.Event{Type: core.EvNodeUpdated, Thread: "t1", Run: r.ID, Node: llm.ID, Payload: core.Payload{Node: llm}})
	diff := "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-var a = 1\n+var a = 2\n line 7\n line 8\n line 9\n line 10"
	step := j.node(r, 3, core.NodeWorkerStep, core.NodeCompleted, "main.go", diff)
	step.Action, step.StartedAt, step.EndedAt = "edit_file", 3*sec, 3*sec+1500*int64(1e6)
	j.add(core.Event{Type: core.EvNodeUpdated, Thread: "t1", Run: r.ID, Node: step.ID, Payload: core.Payload{Node: step}})
	sub := j.node(r, 4, core.NodeSubagent, core.NodeCompleted, "subagent: research", "")
	child := j.node(r, 5, core.NodeToolCall, core.NodeFailed, "grep TODO", "no match")
	child.Parent, child.Exit = sub.ID, 1
	j.add(core.Event{Type: core.EvNodeUpdated, Thread: "t1", Run: r.ID, Node: child.ID, Payload: core.Payload{Node: child}})
	j.node(r, 6, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "Changed a to 2.")
	return j.st
}

func TestRunGraphShowsTimingsCostAndArguments(t *testing.T) {
	hs := newHarness(t, graphState(t), 120, 40)
	scr := hs.screen()
	for _, want := range []string{
		"── run 1 · completed · 7s · 1.5k tok · $0.0125", // the run's total
		"sim · 1200 in, 300 out · $0.0125 · 420 ms → edit_file(main.go)",
		"✓ edit_file main.go · 1.5s",
		"+var a = 2", "-var a = 1",
		"… 4 more lines",
		"✓ subagent: research", "  ✗ grep TODO · exit 1", // the child nests under its subagent
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("the transcript does not show %q:\n%s", want, scr)
		}
	}
}

func TestDiffLinesAreColouredFromTheTheme(t *testing.T) {
	hs := newHarness(t, graphState(t), 120, 40)
	out := hs.viewIn(themes.Dark)
	for name, want := range map[string]string{
		"added":   hs.m.st.DiffAdd.Render("    +var a = 2"),
		"removed": hs.m.st.DiffRemove.Render("    -var a = 1"),
		"hunk":    hs.m.st.DiffMeta.Render("    @@ -1,3 +1,3 @@"),
		"context": hs.m.st.Muted.Render("     package main"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the %s line is not drawn with its theme style %q", name, want)
		}
	}
}

func TestTranscriptCursorFoldsNodesAndRuns(t *testing.T) {
	hs := newHarness(t, graphState(t), 120, 40)
	hs.press("shift+tab") // composer -> transcript
	if hs.m.focus != focusMain {
		t.Fatalf("focus %d, want the transcript", hs.m.focus)
	}
	// Up starts on the last item on screen (the subagent's child step),
	// then the subagent.
	hs.press("up")
	if got := hs.m.conv.cursor; !strings.HasSuffix(got, "/n5") {
		t.Fatalf("cursor on %q, want the last step", got)
	}
	hs.press("up")
	if got := hs.m.conv.cursor; !strings.HasSuffix(got, "/n4") {
		t.Fatalf("cursor on %q, want the subagent node", got)
	}
	hs.press("enter")
	scr := hs.screen()
	if strings.Contains(scr, "grep TODO") || !strings.Contains(scr, "▸ 1 line(s) folded") {
		t.Errorf("enter on the subagent did not fold its child:\n%s", scr)
	}
	hs.press("enter")
	if !strings.Contains(hs.screen(), "grep TODO") {
		t.Errorf("enter again did not open the subagent")
	}
	// Up reaches the worker step: its cut output opens in full, then
	// closes.
	hs.press("up")
	hs.press("enter")
	scr = hs.screen()
	if !strings.Contains(scr, "line 10") || strings.Contains(scr, "more lines") {
		t.Errorf("opening the step does not show all its output:\n%s", scr)
	}
	hs.press("enter")
	scr = hs.screen()
	if strings.Contains(scr, "+var a = 2") || !strings.Contains(scr, "folded") {
		t.Errorf("closing the step does not hide its output:\n%s", scr)
	}
	// Up reaches the model call: open, it lists every argument.
	hs.press("up", "enter")
	if !strings.Contains(hs.screen(), `→ edit_file(new="b", old="a", path="main.go")`) {
		t.Errorf("the opened model call does not show the tool arguments:\n%s", hs.screen())
	}
	// Up reaches the run: closed, it folds everything but its rule and
	// the person's text.
	hs.press("up", "enter")
	scr = hs.screen()
	if strings.Contains(scr, "edit_file") || !strings.Contains(scr, "fix main.go") || !strings.Contains(scr, "folded · enter opens") {
		t.Errorf("closing the run does not fold it:\n%s", scr)
	}
	hs.checkScreen(120, 40)
}
