package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// goModDiff is what `nexus diff t1 --run 5` prints for rollbackState's
// run 5 (it changed go.mod).
const goModDiff = ` M go.mod | +1 -1
 1 file(s) changed, 1 insertion(s), 1 deletion(s)

diff --git a/go.mod b/go.mod
index 1111111..2222222 100644
--- a/go.mod
+++ b/go.mod
@@ -1,3 +1,3 @@
-module example.com/old
+module example.com/new
 
 go 1.22
`

// fakeDiff is an Options.Diff that records its calls and answers from a
// table of run -> text (or err).
type fakeDiff struct {
	mu    sync.Mutex
	calls []string // "thread/run"
	texts map[int]string
	err   error
	// ctxs are the contexts of the calls, to see them cancelled.
	ctxs []context.Context
}

func (f *fakeDiff) diff(ctx context.Context, thread string, run int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("%s/%d", thread, run))
	f.ctxs = append(f.ctxs, ctx)
	if f.err != nil {
		return "", f.err
	}
	return f.texts[run], nil
}

func (f *fakeDiff) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// diffHarness is rollbackState at w x h with a fake Options.Diff.
func diffHarness(t *testing.T, st *core.State, w, h int, texts map[int]string) (*harness, *fakeDiff) {
	t.Helper()
	hs := newHarness(t, st, w, h)
	hs.m.opts.Workspace = "/work/demo"
	f := &fakeDiff{texts: texts}
	hs.m.opts.Diff = f.diff
	return hs, f
}

// pressAsync delivers a key and returns its Cmd without running it, so a
// test sees the screen while the Cmd would be running.
func (hs *harness) pressAsync(name string) tea.Cmd {
	hs.t.Helper()
	_, cmd := hs.m.Update(keyMsg(name))
	return cmd
}

func TestDiffViewShowsTheLatestRunsPatch(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	cmd := hs.pressAsync("ctrl+d")
	hs.expectScreen("the diff view while the diff loads", "Diff · run 5 · tidy the repo", "loading diff of run 5…")
	if len(f.called()) != 0 {
		t.Fatalf("Diff ran in Update (calls %v); it must run in the Cmd", f.called())
	}
	hs.run(cmd)
	if got := f.called(); len(got) != 1 || got[0] != "t1/5" {
		t.Fatalf("Diff calls %v, want t1/5 (the latest run with a ready checkpoint)", got)
	}
	hs.expectScreen("the diff of run 5",
		"M go.mod | +1 -1",
		"1 file(s) changed, 1 insertion(s), 1 deletion(s)",
		"diff --git a/go.mod b/go.mod",
		"@@ -1,3 +1,3 @@",
		"-module example.com/old",
		"+module example.com/new",
		" go 1.22",
		"esc close")
	if scr := hs.screen(); strings.Contains(scr, "loading diff") || strings.Contains(scr, "Threads (1)") {
		t.Errorf("the view still loads, or does not cover the panes:\n%s", scr)
	}
	hs.checkScreen(120, 40)
	hs.checkSizes(resizeSizes)
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	hs.expectScreen("the diff after resizing", "+module example.com/new")
}

func TestDiffViewColoursLinesWithTheThemesDiffStyles(t *testing.T) {
	hs, _ := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	hs.press("ctrl+d")
	view := hs.viewIn(themes.Dark)
	st := hs.m.st
	for _, want := range []struct{ what, styled string }{
		{"the added line in DiffAdd", st.DiffAdd.Render("+module example.com/new")},
		{"the removed line in DiffRemove", st.DiffRemove.Render("-module example.com/old")},
		{"the hunk header in DiffMeta", st.DiffMeta.Render("@@ -1,3 +1,3 @@")},
		{"the file header dimmed", st.Muted.Render("diff --git a/go.mod b/go.mod")},
		{"the index line dimmed", st.Muted.Render("index 1111111..2222222 100644")},
		{"--- a/go.mod dimmed", st.Muted.Render("--- a/go.mod")},
		{"+++ b/go.mod dimmed", st.Muted.Render("+++ b/go.mod")},
		{"the stat's added count in DiffAdd", st.DiffAdd.Render("+1")},
		{"a context line as text", st.Text.Render(" go 1.22")},
	} {
		if !strings.Contains(view, want.styled) {
			t.Errorf("%s: %q is not in the view", want.what, want.styled)
		}
	}
}

// longDiff is a diff of one file with n added lines "+line 1" ... .
func longDiff(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, " A long.txt | +%d -0\n 1 file(s) changed, %d insertion(s), 0 deletion(s)\n\n", n, n)
	fmt.Fprintf(&b, "diff --git a/long.txt b/long.txt\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/long.txt\n@@ -0,0 +1,%d @@\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

// diffRows are the lines of the diff on screen (the lines of the frame's
// body, without the borders).
func diffRows(hs *harness) []string {
	var out []string
	for _, l := range strings.Split(hs.screen(), "\n") {
		if strings.HasPrefix(l, "│ ") {
			out = append(out, strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│"), " "))
		}
	}
	return out
}

func TestDiffViewScrolls(t *testing.T) {
	hs, _ := diffHarness(t, rollbackState(t), 80, 24, map[int]string{5: longDiff(100)})
	hs.press("ctrl+d")
	_, h := hs.m.diffSize()
	total := 3 + 6 + 100 // stat, total and blank; headers; lines
	first := func() string { return diffRows(hs)[0] }
	if got := first(); got != " A long.txt | +100 -0" {
		t.Fatalf("the view opens at %q, want the top of the diff:\n%s", got, hs.screen())
	}
	hs.expectScreen("the footer of a long diff", "lines 1-"+itoa(h)+" of "+itoa(total))
	hs.press("down", "down")
	if got := first(); got != "" {
		t.Errorf("two lines down the first line is %q, want the blank after the total", got)
	}
	hs.press("up")
	if got := first(); got != " 1 file(s) changed, 100 insertion(s), 0 deletion(s)" {
		t.Errorf("one line up the first line is %q, want the total", got)
	}
	hs.press("pgdown")
	if top := hs.m.diff.top; top != 1+h-1 {
		t.Errorf("pgdown: top %d, want %d (a page less a line)", top, h)
	}
	hs.press("end")
	rows := diffRows(hs)
	if last := rows[len(rows)-1]; last != "+line 100" {
		t.Errorf("end: the last line on screen is %q, want +line 100", last)
	}
	hs.expectScreen("the footer at the end", "lines "+itoa(total-h+1)+"-"+itoa(total)+" of "+itoa(total))
	hs.press("down", "pgdown")
	if top := hs.m.diff.top; top != total-h {
		t.Errorf("scrolling past the end: top %d, want %d", top, total-h)
	}
	hs.press("home")
	if got := first(); got != " A long.txt | +100 -0" {
		t.Errorf("home: first line %q, want the top", got)
	}
	hs.press("G", "g", "j", "j", "k")
	if top := hs.m.diff.top; top != 1 {
		t.Errorf("G g j j k: top %d, want 1", top)
	}
	hs.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if top := hs.m.diff.top; top != 1+wheelLines {
		t.Errorf("the wheel: top %d, want %d", top, 1+wheelLines)
	}
	hs.checkScreen(80, 24)
}

func TestDiffViewWrapsLongLines(t *testing.T) {
	long := "+" + strings.Repeat("x", 140) + "END" // 76 cells a line at 80x24
	text := " M w.txt | +1 -0\n 1 file(s) changed, 1 insertion(s), 0 deletion(s)\n\ndiff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1 +1,2 @@\n a\n" + long + "\n"
	hs, _ := diffHarness(t, rollbackState(t), 80, 24, map[int]string{5: text})
	hs.press("ctrl+d")
	hs.expectScreen("the end of a line longer than the view", "END")
	hs.checkScreen(80, 24)
	view := hs.viewIn(themes.Dark)
	if !strings.Contains(view, hs.m.st.DiffAdd.Render(strings.Repeat("x", 65)+"END")) {
		t.Errorf("the wrapped part of an added line is not in DiffAdd")
	}
}

func TestDiffViewClosesWithEsc(t *testing.T) {
	hs, _ := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	for _, closeKey := range []string{"esc", "ctrl+d"} {
		hs.press("ctrl+d")
		if !hs.m.diff.open {
			t.Fatalf("ctrl+d did not open the diff view")
		}
		hs.press(closeKey)
		if hs.m.diff.open {
			t.Fatalf("%s did not close the diff view", closeKey)
		}
		scr := hs.screen()
		if strings.Contains(scr, "+module example.com/new") || !strings.Contains(scr, "Threads (1)") {
			t.Fatalf("after %s the screen is not the normal view:\n%s", closeKey, scr)
		}
		hs.checkScreen(120, 40)
	}
	hs.press("ctrl+d", "q")
	if hs.quit || !hs.m.diff.open {
		t.Errorf("q in the diff view quit nexus or closed the view; it does nothing there")
	}
}

func TestDiffViewShowsAnErrorAsOneLine(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 80, 24, nil)
	f.err = errors.New("diff of run 5: git: fatal: bad object c5\nsecond line")
	hs.press("ctrl+d")
	hs.expectScreen("a failed diff", "✗ diff of run 5: git: fatal: bad object c5 second line")
	if rows := diffRows(hs); len(rows) == 0 || rows[1] != "" {
		t.Errorf("the error takes more than one line: %q", rows)
	}
	hs.press("esc")
	if hs.m.diff.open {
		t.Errorf("esc did not close the view that shows an error")
	}
}

func TestDiffOfTheRunAtTheCursor(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 120, 40, map[int]string{2: goModDiff})
	hs.m.setFocus(focusMain)
	hs.m.conv.cursor = runItem(core.RunID("t1", 2))
	hs.press("ctrl+d")
	if got := f.called(); len(got) != 1 || got[0] != "t1/2" {
		t.Fatalf("Diff calls %v, want t1/2 (the run at the cursor)", got)
	}
	hs.expectScreen("the diff of run 2", "Diff · run 2 · tidy the repo")
	hs.press("esc")

	// On a step of a run: that run.
	j := &journal{t: t, st: hs.m.state}
	n := j.node(hs.m.state.Runs[core.RunID("t1", 3)], 2, core.NodeToolCall, core.NodeCompleted, "write_file a", "ok")
	hs.m.conv.cursor = n.ID
	hs.press("ctrl+d")
	if got := f.called(); len(got) != 2 || got[1] != "t1/3" {
		t.Errorf("Diff calls %v, want t1/3 for a step of run 3", got)
	}
	hs.press("esc")

	// The cursor counts only while the transcript has the focus.
	hs.m.setFocus(focusComposer)
	hs.press("ctrl+d")
	if got := f.called(); len(got) != 3 || got[2] != "t1/5" {
		t.Errorf("Diff calls %v, want t1/5 (the latest) from the composer", got)
	}
}

func TestDiffOfARunWithoutACheckpointSaysWhy(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 120, 40, nil)
	hs.m.setFocus(focusMain)
	hs.m.conv.cursor = runItem(core.RunID("t1", 4))
	hs.press("ctrl+d")
	if hs.m.diff.open || len(f.called()) != 0 {
		t.Fatalf("a run whose capture failed opened the view (calls %v)", f.called())
	}
	hs.expectScreen("the status line on run 4", "run 4 has no ready checkpoint (error: git: index.lock exists)")

	hs, f = diffHarness(t, rolledBackState(t), 120, 40, nil)
	hs.m.setFocus(focusMain)
	hs.m.conv.cursor = runItem(core.RunID("t1", 2))
	hs.press("ctrl+d")
	if hs.m.diff.open || len(f.called()) != 0 {
		t.Fatalf("a rolled-back run opened the view (calls %v)", f.called())
	}
	hs.expectScreen("the status line on a rolled-back run", "run 2 has no ready checkpoint (stale)")

	// A thread with no run checkpointed yet.
	j := newJournal(t)
	j.thread("t1", "fresh", core.ThreadRunning, 1, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	j.run("t1", 1, core.RunRunning, "write hello to a.txt", 2*sec, 0)
	hs, f = diffHarness(t, j.st, 120, 40, nil)
	hs.press("ctrl+d")
	hs.expectScreen("a thread without a run checkpoint", "no run of this thread has a ready checkpoint yet")
	hs.m.setFocus(focusMain)
	hs.m.conv.cursor = runItem(core.RunID("t1", 1))
	hs.press("ctrl+d")
	hs.expectScreen("a running run", "run 1 has no checkpoint yet (running)")
	if hs.m.diff.open || len(f.called()) != 0 {
		t.Errorf("the view opened (calls %v)", f.called())
	}
}

func TestDiffWithoutADiffSource(t *testing.T) {
	hs := newHarness(t, rollbackState(t), 120, 40)
	hs.press("ctrl+d")
	if hs.m.diff.open {
		t.Fatalf("the view opened with no Options.Diff")
	}
	hs.expectScreen("the status line", "this UI cannot show diffs")
}

func TestDiffThatArrivesAfterTheViewClosedIsDropped(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	cmd := hs.pressAsync("ctrl+d")
	hs.press("esc")
	hs.run(cmd)
	if hs.m.diff.open || strings.Contains(hs.screen(), "example.com") {
		t.Fatalf("a diff that arrived after esc reopened the view:\n%s", hs.screen())
	}
	if ctxs := f.ctxs; len(ctxs) != 1 || ctxs[0].Err() == nil {
		t.Errorf("closing the view did not cancel the fetch's context")
	}
	// Reopened: only the newest fetch counts.
	old := hs.pressAsync("ctrl+d")
	hs.press("esc", "ctrl+d")
	f.mu.Lock()
	f.texts[5] = "stale"
	f.mu.Unlock()
	hs.run(old)
	if strings.Contains(hs.screen(), "stale") {
		t.Errorf("an older fetch's diff replaced the newer view's")
	}
}

func TestDiffViewKeepsTheOtherKeysAway(t *testing.T) {
	hs, _ := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	hs.press("ctrl+d")
	hs.typeText("hello")
	hs.send(tea.PasteMsg{Content: "pasted"})
	hs.press("enter", "ctrl+z", "tab")
	if n := len(hs.b.submitted()); n != 0 || len(hs.m.dialogs) != 0 || hs.m.composer.value() != "" {
		t.Errorf("keys leaked out of the diff view: %d submits, %d dialogs, composer %q", n, len(hs.m.dialogs),
			hs.m.composer.value())
	}
	hs.press("f1")
	if _, ok := hs.m.dialogs[0].(*helpDialog); !ok {
		t.Fatalf("f1 did not open help over the diff")
	}
	hs.press("esc")
	if !hs.m.diff.open {
		t.Errorf("closing help closed the diff view too")
	}
}

func TestClassifyDiff(t *testing.T) {
	text := ` M a.txt | +2 -2
 1 file(s) changed, 2 insertion(s), 2 deletion(s)

diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@ func x
--- a removed line that looks like a header
+++ an added line that looks like one
 kept
-old
\ No newline at end of file
+new
diff --git a/b.bin b/b.bin
Binary files a/b.bin and b/b.bin differ
diff --git a/c.txt b/c.txt
@@ -1 +1,40 @@
+cut here
[diff truncated]`
	want := []diffKind{diffStat, diffSummary, diffText, diffHeader, diffHeader, diffHeader, diffHeader, diffHunk,
		diffRemove, diffAdd, diffText, diffRemove, diffNote, diffAdd, diffHeader, diffHeader, diffHeader, diffHunk,
		diffAdd, diffNote}
	got := classifyDiff(text)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i, l := range got {
		if l.kind != want[i] {
			t.Errorf("line %d %q: kind %d, want %d", i, l.text, l.kind, want[i])
		}
	}
	if old, nw := hunkCounts("@@ -5 +7,0 @@"); old != 1 || nw != 0 {
		t.Errorf("hunkCounts: %d %d, want 1 0", old, nw)
	}
}

func TestDiffViewGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			hs, _ := diffHarness(t, rollbackState(t), sz[0], sz[1], map[int]string{5: goModDiff})
			hs.press("ctrl+d")
			hs.checkScreen(sz[0], sz[1])
			checkGolden(t, fmt.Sprintf("diff_%dx%d", sz[0], sz[1]), hs.screen())
		})
	}
}

func TestDiffFromTheGrid(t *testing.T) {
	hs, f := diffHarness(t, rollbackState(t), 120, 40, map[int]string{5: goModDiff})
	hs.press("ctrl+g", "ctrl+d")
	if got := f.called(); len(got) != 1 || got[0] != "t1/5" {
		t.Fatalf("ctrl+d in the grid: Diff calls %v, want t1/5", got)
	}
	hs.expectScreen("the diff over the grid", "+module example.com/new")
	hs.checkScreen(120, 40)
	hs.press("esc")
	if hs.m.diff.open || !hs.m.gridShown() {
		t.Errorf("esc did not go back to the grid (diff open %v, grid %v)", hs.m.diff.open, hs.m.gridShown())
	}
}
