package e2e

import (
	"strings"
	"testing"
)

// TestTUIRollbackDialog rolls a thread back from the UI: run 1 wrote
// a.txt, run 2 edited it and added b.txt. The transcript shows each run's
// file stats; ctrl+z opens the rollback dialog, run 1 previews run 2 as
// rolled back with b.txt removed and a.txt restored, and confirming it
// puts the files back as after run 1, with run 2 marked in the
// transcript.
func TestTUIRollbackDialog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	th := e.must("thread", "new", "--yes", "--title", "rb")
	e.must("send", th, "write one to a.txt")
	e.must("send", th, "replace one with two in a.txt and write bee to b.txt")

	tt := e.startTUI(t)
	tt.waitFor("Threads (1)")
	tt.waitForAll("1 file +1", "2 files +2 -1")
	tt.keys("C-z")
	tt.waitFor("Roll back rb")
	tt.keys("Down") // newest first: run 2, then run 1
	scr := tt.waitForAll("marks run 2 rolled back", "b.txt", "a.txt")
	if !strings.Contains(scr, "remove") || !strings.Contains(scr, "restore") {
		t.Fatalf("the preview does not say b.txt is removed and a.txt restored:\n%s", scr)
	}
	if a, _ := e.readWS("a.txt"); a != "two\n" {
		t.Fatalf("a.txt = %q before confirming, want it untouched", a)
	}
	tt.keys("Enter")
	tt.waitFor("now?")
	tt.keys("Enter")
	tt.waitFor("rolled back")
	eventually(t, "a.txt as after run 1 and no b.txt", func() bool {
		a, _ := e.readWS("a.txt")
		_, b := e.readWS("b.txt")
		return a == "one\n" && !b
	})
	// Files first, then the runs are marked (docs/ARCHITECTURE.md,
	// "Checkpoints and rollback").
	eventually(t, "run 2 rolled_back", func() bool { return e.show(th).Runs[1].Status == "rolled_back" })
	tt.waitFor("↶ rolled back")
	tt.quitIdle()
}

// TestTUIRollbackToAMark marks the workspace from the rollback dialog (m)
// after the person's own edit, and later rolls back to that mark from the
// dialog: the edit is back and the run after the mark is rolled back.
func TestTUIRollbackToAMark(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes", "--title", "mk")
	e.must("send", th, "write one to a.txt")
	e.writeWS(map[string]string{"mine.txt": "my own edit\n"})

	tt := e.startTUI(t)
	tt.waitFor("Threads (1)")
	tt.keys("C-z")
	tt.waitFor("Roll back mk")
	tt.keys("m")
	tt.waitFor("mark/1, your mark after run 1")
	tt.keys("Escape")
	// The dialog is gone before the next key (an esc followed at once by
	// ctrl+z would read as alt+ctrl+z).
	eventually(t, "the rollback dialog closed", func() bool { return !strings.Contains(tt.screen(), "Roll back mk") })
	e.must("send", th, "write two to b.txt")
	// Run 2 changed b.txt only: mine.txt was the mark's.
	tt.waitFor("run 2 · completed")
	tt.keys("C-z")
	tt.waitFor("run 2: write two to b.txt · 1 file +1")
	// Newest first: run 2, then the mark. Keys are read in order, so
	// the cursor is on the mark when enter arrives, whatever the screen
	// showed in between.
	tt.keys("Up", "Up", "Down")
	tt.waitFor("Goes back to mark/1")
	tt.keys("Enter")
	tt.waitFor("now?")
	tt.keys("Enter")
	eventually(t, "mine.txt back and no b.txt", func() bool {
		m, _ := e.readWS("mine.txt")
		_, b := e.readWS("b.txt")
		return m == "my own edit\n" && !b
	})
	tt.waitFor("rolled the workspace back to mark/1")
	if v := e.show(th); v.Runs[1].Status != "rolled_back" {
		t.Fatalf("run 2 is %s after the rollback to the mark", v.Runs[1].Status)
	}
	tt.quitIdle()
}
