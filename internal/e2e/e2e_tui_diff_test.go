package e2e

import (
	"strings"
	"testing"
)

// TestTUIDiffView opens a run's unified diff in the UI: run 1 wrote
// a.txt, run 2 edited it and added b.txt. ctrl+d from the composer shows
// the latest run's diff (run 2: the file list, the - and + lines of the
// edit); esc closes it; with the transcript cursor on run 1, ctrl+d shows
// run 1's.
func TestTUIDiffView(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	th := e.must("thread", "new", "--yes", "--title", "df")
	e.must("send", th, "write one to a.txt")
	e.must("send", th, "replace one with two in a.txt and write bee to b.txt")

	tt := e.startTUI(t)
	tt.waitFor("Threads (1)")
	tt.waitForAll("1 file +1", "2 files +2 -1")
	tt.keys("C-d")
	scr := tt.waitForAll("Diff · run 2 · df", "M a.txt | +1 -1", "A b.txt | +1 -0",
		"diff --git a/a.txt b/a.txt", "-one", "+two", "+bee", "esc close")
	if strings.Contains(scr, "Threads (1)") {
		t.Fatalf("the diff view does not cover the panes:\n%s", scr)
	}
	// The same text as `nexus diff T --run 2`, line for line.
	for _, l := range strings.Split(strings.TrimSpace(e.must("diff", th, "--run", "2")), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(scr, l) {
			t.Errorf("the view lacks %q of `nexus diff --run 2`:\n%s", l, scr)
		}
	}

	tt.keys("Escape")
	tt.waitFor("Threads (1)")
	if scr := tt.screen(); strings.Contains(scr, "Diff · run") {
		t.Fatalf("esc did not close the diff view:\n%s", scr)
	}

	// The transcript cursor picks the run: shift+tab focuses the
	// transcript, home goes to its top, down puts the cursor on run 1.
	tt.keys("BTab")
	tt.keys("Home")
	tt.keys("Down")
	tt.keys("C-d")
	scr = tt.waitForAll("Diff · run 1 · df", "A a.txt | +1 -0", "+one")
	if strings.Contains(scr, "+two") || strings.Contains(scr, "b.txt") {
		t.Fatalf("the diff of run 1 shows run 2's changes:\n%s", scr)
	}
	tt.keys("Escape")
	tt.waitFor("Threads (1)")
	tt.quitIdle()
}

// TestTUIDiffViewAsClient shows a diff in a UI that is a client of
// `nexus serve`: the diff is computed in the client's process from its
// copy of the state.
func TestTUIDiffViewAsClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	e.serve()
	th := e.must("thread", "new", "--yes", "--title", "remote")
	e.must("send", th, "write one to a.txt")
	e.waitRun(th, 1, "completed")
	e.must("send", th, "replace one with two in a.txt")
	e.waitRun(th, 2, "completed")

	tt := e.startTUI(t)
	tt.waitForAll("client of pid", "remote")
	tt.keys("C-d")
	tt.waitForAll("Diff · run 2 · remote", "M a.txt | +1 -1", "-one", "+two")
	tt.keys("Escape")
	tt.waitFor("Threads (1)")
	tt.quitIdle()
}
