package main

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
	// Files first, then the runs are marked (DESIGN.md §3).
	eventually(t, "run 2 rolled_back", func() bool { return e.show(th).Runs[1].Status == "rolled_back" })
	tt.waitFor("↶ rolled back")
	tt.quitIdle()
}
