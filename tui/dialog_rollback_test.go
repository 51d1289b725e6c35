package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

func TestRollbackPlanFromLaterCheckpoints(t *testing.T) {
	st := rollbackState(t)
	p := planRollback(st, "t1", 1)
	want := []fileUndo{
		{path: "assets/logo.png", remove: true, binary: true}, // added by run 3
		{path: "go.mod", added: 1, deleted: 1},
		{path: "main.go", added: 12, deleted: 4}, // runs 2 and 3, summed
		{path: "main_test.go", remove: true, added: 30},
		{path: "old.go", deleted: 15}, // deleted by run 2: restored
		// util.go: added by run 2 and deleted by run 3, so nothing to do.
	}
	if !reflect.DeepEqual(p.files, want) {
		t.Errorf("files of a rollback to run 1:\n got %+v\nwant %+v", p.files, want)
	}
	var runs []int
	for _, r := range p.runs {
		runs = append(runs, r.Ordinal)
	}
	if !reflect.DeepEqual(runs, []int{2, 3, 4, 5}) {
		t.Errorf("runs marked rolled back %v, want 2 to 5", runs)
	}
	if p.more != 2 {
		t.Errorf("more %d, want run 5's 2 unlisted files", p.more)
	}
	if len(p.unknown) != 1 || !strings.Contains(p.unknown[0], "run 4: checkpoint error (git: index.lock exists)") {
		t.Errorf("unknown %q, want run 4's failed capture", p.unknown)
	}
	if p := planRollback(st, "t1", 5); len(p.runs) != 0 || len(p.files) != 0 {
		t.Errorf("a rollback to the last run plans %+v, want nothing", p)
	}
}

func TestRollbackDialogListsRunsAndWhatChanges(t *testing.T) {
	hs := newHarness(t, rollbackState(t), 120, 40)
	hs.press("ctrl+z")
	d, ok := hs.m.dialogs[0].(*rollbackDialog)
	if !ok {
		t.Fatalf("ctrl+z opened %T, want the rollback dialog:\n%s", hs.m.dialogs[0], hs.screen())
	}
	var labels []string
	for _, it := range d.list.items {
		labels = append(labels, it.label)
	}
	// Newest first; run 4's checkpoint failed, so it is no place to go
	// back to; the baseline comes last.
	want := []string{"run 5: rename the module", "run 3: add tests", "run 2: fix main.go",
		"run 1: write hello to notes.txt", "before run 1"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("runs offered %q, want %q", labels, want)
	}
	hs.press("down", "down", "down")
	hs.expectScreen("the preview of a rollback to run 1",
		"Rolling back to run 1 marks runs 2, 3, 4, 5 rolled back.",
		"… and 2 more",
		"! run 4: checkpoint error (git: index.lock exists); its changes can't be",
		"7 files put back as at run 1",
		"remove  assets/logo.png  binary",
		"restore go.mod           +1 -1",
		"restore main.go          +12 -4",
		"remove  main_test.go     +30",
		"restore old.go           -15")
	if scr := hs.screen(); strings.Contains(scr, "util.go") {
		t.Errorf("util.go (added, then deleted) is listed:\n%s", scr)
	}
	hs.checkScreen(120, 40)
}

func TestRollbackConfirmSubmitsOneCommand(t *testing.T) {
	hs := newHarness(t, rollbackState(t), 120, 40)
	hs.press("ctrl+z", "down", "down", "down", "enter")
	if n := len(hs.b.submitted()); n != 0 {
		t.Fatalf("the first enter submitted %d command(s); it must ask first", n)
	}
	if !strings.Contains(hs.screen(), "Roll back tidy the repo to run 1 now? This rewrites files in /work/demo.") {
		t.Fatalf("enter did not ask for confirmation:\n%s", hs.screen())
	}
	hs.press("enter")
	cmds := hs.b.submitted()
	if len(cmds) != 1 {
		t.Fatalf("submitted %d commands, want one: %+v", len(cmds), cmds)
	}
	if c := cmds[0]; c.Kind != core.CmdRollbackToRun || c.Thread != "t1" || c.Run != 1 || c.ID == "" {
		t.Errorf("submitted %+v, want rollback.to_run of t1 to run 1", c)
	}
	if len(hs.m.dialogs) != 0 {
		t.Errorf("the dialog stayed open after the rollback was submitted")
	}
	if !strings.Contains(hs.screen(), "rolling back to run 1…") {
		t.Errorf("the status line does not say the rollback started:\n%s", hs.screen())
	}
	// y confirms too, and the baseline is run 0.
	hs.press("ctrl+z", "down", "down", "down", "down", "enter", "y")
	if c := hs.lastCmd(); len(hs.b.submitted()) != 2 || c.Run != 0 || c.Thread != "t1" {
		t.Errorf("y after picking the baseline submitted %+v, want rollback.to_run of t1 to run 0", c)
	}
}

func TestRollbackEscSubmitsNothing(t *testing.T) {
	hs := newHarness(t, rollbackState(t), 120, 40)
	hs.press("ctrl+z", "esc")
	if len(hs.m.dialogs) != 0 {
		t.Fatalf("esc did not close the rollback dialog")
	}
	hs.press("ctrl+z", "enter", "esc")
	d := hs.m.dialogs[0].(*rollbackDialog)
	if d.armed || len(hs.m.dialogs) != 1 {
		t.Errorf("esc on the question did not go back to the list (armed %v)", d.armed)
	}
	// A move after enter drops the question: it was about another run.
	hs.press("enter", "down")
	if d.armed {
		t.Errorf("moving to another run kept the question armed")
	}
	hs.press("enter", "n", "esc")
	if len(hs.m.dialogs) != 0 || len(hs.b.submitted()) != 0 {
		t.Errorf("esc and n submitted %+v (dialogs open: %d)", hs.b.submitted(), len(hs.m.dialogs))
	}
}

func TestRollbackWithoutReadyCheckpointSaysSo(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "no checkpoints", core.ThreadIdle, 2, sec)
	j.run("t1", 1, core.RunCompleted, "one", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkMissing, 0)
	j.run("t1", 2, core.RunCompleted, "two", 4*sec, 5*sec)
	hs := newHarness(t, j.st, 100, 30)
	hs.press("ctrl+z")
	if len(hs.m.dialogs) != 0 || !strings.Contains(hs.screen(), "no run with a ready checkpoint to roll back to") {
		t.Errorf("ctrl+z on a thread without ready checkpoints:\n%s", hs.screen())
	}
	if len(hs.b.submitted()) != 0 {
		t.Errorf("submitted %+v", hs.b.submitted())
	}
}

// refusingBackend refuses rollbacks the way the kernel does while a run
// is active.
type refusingBackend struct{ *stubBackend }

func (r refusingBackend) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	rec, err := r.stubBackend.Submit(ctx, cmd)
	if err == nil && cmd.Kind == core.CmdRollbackToRun {
		rec.Reject = &core.Rejection{Reason: core.ReasonInvalidState, Detail: "run 2 is active; interrupt it before rolling back"}
	}
	return rec, err
}

func TestRollbackRefusedWhileARunIsActive(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "busy", core.ThreadRunning, 2, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	j.run("t1", 1, core.RunCompleted, "one", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "a.txt", 1, 0))
	j.run("t1", 2, core.RunRunning, "two", 4*sec, 0)
	b := newStub()
	hs := newHarnessOn(t, b, refusingBackend{b}, j.st, 120, 40)
	hs.press("ctrl+z")
	if !strings.Contains(hs.screen(), "Run 2 is active: interrupt it first, or the host refuses.") {
		t.Errorf("the dialog does not warn about the active run:\n%s", hs.screen())
	}
	hs.press("enter", "enter")
	if len(b.submitted()) != 1 {
		t.Fatalf("submitted %d commands, want the one the kernel refuses", len(b.submitted()))
	}
	if scr := hs.screen(); !strings.Contains(scr, "rolling back refused (invalid_state): run 2 is active") {
		t.Errorf("the status line does not say why the rollback was refused:\n%s", scr)
	}
}

func TestRollbackOutcomeShowsWhenItsEventsArrive(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 2, sec)
	j.run("t1", 1, core.RunCompleted, "one", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "a.txt", 1, 0))
	r2 := j.run("t1", 2, core.RunCompleted, "two", 4*sec, 5*sec)
	j.checkpoint("t1", 2, core.CkReady, 0, fc("M", "a.txt", 3, 1))
	hs := newHarness(t, j.st.Clone(), 120, 40)
	from := len(j.events)
	op := core.Operation{ID: "t1/rollback1", Kind: "rollback", Thread: "t1", ToRun: 1, Step: core.StepFiles,
		Status: core.OpRunning, Detail: "provider: context truncated to run 1"}
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &op}})
	hs.send(frameMsg{journal: j.events[from:]})
	if scr := hs.screen(); !strings.Contains(scr, "↶ rolling the workspace back to run 1 · step files") {
		t.Errorf("the transcript does not show the rollback in progress:\n%s", scr)
	}
	from = len(j.events)
	rb := *r2
	rb.Status = core.RunRolledBack
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t1", Run: rb.ID, Payload: core.Payload{Run: &rb}})
	done := op
	done.Step, done.Status, done.Detail = core.StepDone, core.OpCompleted, op.Detail+"; files: restored"
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &done}})
	hs.send(frameMsg{journal: j.events[from:]})
	hs.expectScreen("the screen after the rollback completed",
		"rollback of tidy the repo to run 1 completed: provider: context truncated to run 1; files: restored",
		"↶ rolled the workspace back to run 1 · provider: context truncated",
		"run 2 · ↶ rolled back",
		"↶ rolled back: its file changes were undone")
	// A partial outcome is an error in the status line.
	from = len(j.events)
	bad := core.Operation{ID: "t1/rollback2", Kind: "rollback", Thread: "t1", ToRun: 1, Step: core.StepFiles,
		Status: core.OpPartial, Detail: "files: permission denied"}
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &bad}})
	hs.send(frameMsg{journal: j.events[from:]})
	if !hs.m.flash.isErr || !strings.Contains(hs.m.flash.text, "partial: files: permission denied") {
		t.Errorf("a partial rollback shows %+v, want an error naming the cause", hs.m.flash)
	}
	// A rollback that kept a file someone changed since says so first,
	// where a narrow status line still shows it.
	from = len(j.events)
	kept := core.Operation{ID: "t1/rollback3", Kind: "rollback", Thread: "t1", ToRun: 1, Step: core.StepDone,
		Status: core.OpCompleted, Detail: "provider: context truncated to run 1; files: 0 file(s) restored, 1 removed; kept 1 path(s) ...",
		Kept: []string{"notes.txt"}}
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &kept}})
	hs.send(frameMsg{journal: j.events[from:]})
	if !hs.m.flash.isErr || !strings.HasPrefix(hs.m.flash.text, "rolled back tidy the repo to run 1 but kept notes.txt") {
		t.Errorf("a rollback that kept a file shows %+v, want it to lead with the kept file", hs.m.flash)
	}
}

func TestRunHeaderAndBodyShowCheckpointFiles(t *testing.T) {
	hs := newHarness(t, rolledBackState(t), 120, 40)
	hs.expectScreen("the transcript",
		"── run 1 · completed · 1s · 1 file +1 ─",
		"A notes.txt  +1",
		"── run 2 · ↶ rolled back · 2s · 2 files +30 -3 ─",
		"↶ rolled the workspace back to run 1 · provider: context truncated to run 1;",
		"↶ rolled back: its file changes were undone",
		"── run 4 · completed · 2s · 3 files +121 -7 ─",
		"D TODO")
}

func TestRunFileListIsCutUntilOpened(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "many files", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, "touch everything", 2*sec, 3*sec)
	var files []core.FileChange
	for i := range 9 {
		files = append(files, fc("M", "f"+itoa(i)+".go", 1, 1))
	}
	j.checkpoint("t1", 1, core.CkReady, 3, files...)
	hs := newHarness(t, j.st, 120, 40)
	scr := hs.screen()
	if !strings.Contains(scr, "12 files ─") || strings.Contains(scr, "f6.go") ||
		!strings.Contains(scr, "… 3 more files · enter on the run shows all") {
		t.Errorf("a run of 12 files does not list the first %d with a hint:\n%s", maxRunFiles, scr)
	}
	if !strings.Contains(scr, "3 more files not recorded · `nexus diff t1 --run 1 --stat` lists them") {
		t.Errorf("the files the checkpoint did not list are not counted:\n%s", scr)
	}
	hs.press("shift+tab", "up")
	for i := 0; i < 20 && hs.m.conv.cursor != runItem(r.ID); i++ {
		hs.press("up")
	}
	hs.press("enter")
	if scr := hs.screen(); !strings.Contains(scr, "M f8.go") || strings.Contains(scr, "enter on the run shows all") {
		t.Errorf("enter on the run did not list all its files:\n%s", scr)
	}
	hs.press("enter")
	if scr := hs.screen(); strings.Contains(scr, "f0.go") {
		t.Errorf("enter again did not close the run:\n%s", scr)
	}
}

func TestRollbackDialogFitsEverySize(t *testing.T) {
	hs := newHarness(t, rollbackState(t), 80, 24)
	hs.press("ctrl+z", "down", "enter")
	hs.checkSizes(append(resizeSizes, [2]int{60, 16}))
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	hs.expectScreen("the dialog resized back to 80x24", "Roll back tidy the repo to run 3 now?")
}

func TestRollbackDialogFollowsTheJournal(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadRunning, 2, sec)
	j.run("t1", 1, core.RunCompleted, "one", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "a.txt", 1, 0))
	r2 := j.run("t1", 2, core.RunRunning, "two", 4*sec, 0)
	hs := newHarness(t, j.st.Clone(), 120, 40)
	hs.press("ctrl+z", "enter")
	d := hs.m.dialogs[0].(*rollbackDialog)
	// Run 2 ends with a checkpoint while the question about run 1 is open.
	from := len(j.events)
	done := *r2
	done.Status, done.EndedAt = core.RunCompleted, 5*sec
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t1", Run: done.ID, Payload: core.Payload{Run: &done}})
	j.checkpoint("t1", 2, core.CkReady, 0, fc("M", "a.txt", 2, 1))
	hs.send(frameMsg{journal: j.events[from:]})
	if len(d.list.items) != 2 || d.targets[d.list.cursor].run != 1 || !d.armed {
		t.Fatalf("after run 2 ended the dialog offers %+v with the cursor on run %d (armed %v); want runs 2 and 1, still asking about run 1",
			d.list.items, d.targets[d.list.cursor].run, d.armed)
	}
	if scr := hs.screen(); !strings.Contains(scr, "marks run 2 rolled back") || strings.Contains(scr, "is active") {
		t.Errorf("the preview did not follow run 2's end:\n%s", scr)
	}
	hs.press("enter")
	if c := hs.lastCmd(); c.Run != 1 {
		t.Errorf("submitted %+v, want the rollback to run 1 that was asked about", c)
	}
}

func TestRunFilesAreColouredFromTheTheme(t *testing.T) {
	hs := newHarness(t, rolledBackState(t), 120, 40)
	out := hs.viewIn(themes.Dark)
	st := &hs.m.st
	for name, want := range map[string]string{
		"an added file's letter":  st.DiffAdd.Render("A"),
		"a deleted file's letter": st.DiffRemove.Render("D"),
		"added lines":             st.DiffAdd.Render("+120"),
		"deleted lines":           st.DiffRemove.Render("-7"),
		"a rolled-back run's row": st.Muted.Render("  M main.go  +10 -3"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%s is not drawn with its theme style %q", name, want)
		}
	}
}

func TestRollbackOutcomeBeforeReceiptStays(t *testing.T) {
	// The journal and the receipt travel apart: when the rollback's end
	// arrived first, the receipt must not replace it with "rolling back".
	hs := newHarness(t, rolledBackState(t), 120, 40)
	hs.send(submitResultMsg{cmd: core.Command{Kind: core.CmdRollbackToRun, Thread: "t1", Run: 1},
		rec: &core.Receipt{Kind: core.CmdRollbackToRun, Thread: "t1", Op: "t1/rollback1"}})
	if !strings.Contains(hs.m.flash.text, "to run 1 completed") {
		t.Errorf("status line %q, want the outcome that already arrived", hs.m.flash.text)
	}
}

// After a rollback, the dialog's first item undoes it: enter shows what
// it does, a second enter submits rollback.undo; after an undo the item
// is a redo.
func TestRollbackDialogOffersUndo(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 2, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	j.run("t1", 1, core.RunCompleted, "write hello to notes.txt", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "notes.txt", 1, 0))
	j.run("t1", 2, core.RunRolledBack, "fix main.go", 4*sec, 6*sec)
	op := core.Operation{ID: "t1/rollback1", Kind: core.OpRollback, Thread: "t1", ToRun: 1, Step: core.StepDone,
		Status: core.OpCompleted, Safety: "abc", Runs: 2, Changes: []core.OpChange{{ID: "t1/2", From: "completed", To: "rolled_back"}}}
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &op}})
	hs := newHarness(t, j.st, 120, 40)
	hs.press("ctrl+z")
	d := hs.m.dialogs[0].(*rollbackDialog)
	if d.list.items[0].label != "undo the last rollback" {
		t.Fatalf("first item %q, want the undo:\n%s", d.list.items[0].label, hs.screen())
	}
	if scr := hs.screen(); !strings.Contains(scr, "Puts the files the rollback to run 1 (rollback1) changed") || !strings.Contains(scr, "hand edits") {
		t.Fatalf("the undo item does not say what it does:\n%s", scr)
	}
	hs.press("enter", "enter")
	if c := hs.lastCmd(); len(hs.b.submitted()) != 1 || c.Kind != core.CmdRollbackUndo || c.Thread != "t1" {
		t.Fatalf("submitted %+v, want one rollback.undo of t1", hs.b.submitted())
	}

	undo := core.Operation{ID: "t1/rollback2", Kind: core.OpRollback, Thread: "t1", ToRun: 2, Step: core.StepDone, Target: "t1/cp/safety/rollback1",
		Status: core.OpCompleted, Safety: "def", Undoes: "t1/rollback1", Runs: 2}
	j2 := newJournal(t)
	j2.thread("t1", "tidy the repo", core.ThreadIdle, 2, sec)
	j2.checkpoint("t1", 1, core.CkReady, 0)
	j2.run("t1", 1, core.RunCompleted, "write hello to notes.txt", 2*sec, 3*sec)
	j2.run("t1", 2, core.RunCompleted, "fix main.go", 4*sec, 6*sec)
	j2.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &op}})
	j2.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &undo}})
	hs2 := newHarness(t, j2.st, 120, 40)
	hs2.press("ctrl+z")
	if l := hs2.m.dialogs[0].(*rollbackDialog).list.items[0].label; l != "redo the rollback the last undo reversed" {
		t.Fatalf("after an undo the first item is %q, want the redo", l)
	}
}

// A run's file list holds its own changes and says how many others
// happened in the directory meanwhile; the rollback preview says it
// leaves those alone.
func TestRollbackPreviewLeavesOthersChanges(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 2, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	j.run("t1", 1, core.RunCompleted, "write hello to notes.txt", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "notes.txt", 1, 0))
	j.run("t1", 2, core.RunCompleted, "fix main.go", 4*sec, 6*sec)
	cp := core.Checkpoint{ID: core.CheckpointID("t1", core.RunScope(2)), Thread: "t1", Run: 2, Scope: core.RunScope(2),
		Status: core.CkReady, Commit: "c2", Own: true, Outside: 3,
		Files: []core.FileChange{{Path: "main.go", Status: "M", Added: 2, Deleted: 1, By: core.ByAgent}}}
	j.add(core.Event{Type: core.EvCheckpoint, Thread: "t1", Payload: core.Payload{Checkpoint: &cp}})
	hs := newHarness(t, j.st, 120, 40)
	if scr := hs.screen(); !strings.Contains(scr, "+ 3 other changes in the directory meanwhile") {
		t.Fatalf("run 2 does not say that other changes happened meanwhile:\n%s", scr)
	}
	hs.press("ctrl+z", "down")
	if scr := hs.screen(); !strings.Contains(scr, "3 other changes in the directory during those runs") || !strings.Contains(scr, "left as they are") {
		t.Fatalf("the rollback preview does not say it leaves the others' changes:\n%s", scr)
	}
}
