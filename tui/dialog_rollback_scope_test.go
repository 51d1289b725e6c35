package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// scopesState is a thread whose run 1 had a subagent that wrote a file
// (a node checkpoint), and a mark taken after run 2.
func scopesState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 2, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	r1 := j.run("t1", 1, core.RunCompleted, "write a", 2*sec, 3*sec)
	sub := j.node(r1, 2, core.NodeSubagent, core.NodeCompleted, "subagent: write a", "")
	j.add(core.Event{Type: core.EvCheckpoint, Thread: "t1", Payload: core.Payload{Checkpoint: &core.Checkpoint{
		ID: core.CheckpointID("t1", core.NodeScope("t1", sub.ID)), Thread: "t1", Run: 1, Scope: core.NodeScope("t1", sub.ID),
		Status: core.CkReady, Commit: "cn", Node: sub.ID, Files: []core.FileChange{fc("A", "a.txt", 1, 0)}}}})
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "a.txt", 1, 0))
	j.run("t1", 2, core.RunCompleted, "write b", 4*sec, 5*sec)
	j.checkpoint("t1", 2, core.CkReady, 0, fc("A", "b.txt", 1, 0))
	for _, k := range []int{1, 2} {
		// As the kernel journals a mark: its capture effect (which ends
		// with the checkpoint's status), then its checkpoint.
		key := core.CheckpointID("t1", core.MarkScope(k)) + ":capture"
		j.add(core.Event{Type: core.EvEffectStarted, Thread: "t1", Payload: core.Payload{Effect: &core.EffectRecord{
			Key: key, Kind: core.EffCheckpoint, Class: core.ClassIdempotent, Status: core.EffStarted}}})
		j.add(core.Event{Type: core.EvEffectCompleted, Thread: "t1", Payload: core.Payload{Effect: &core.EffectRecord{
			Key: key, Kind: core.EffCheckpoint, Class: core.ClassIdempotent, Status: core.EffectStatus(core.CkReady)}}})
		j.add(core.Event{Type: core.EvCheckpoint, Thread: "t1", Payload: core.Payload{Checkpoint: &core.Checkpoint{
			ID: core.CheckpointID("t1", core.MarkScope(k)), Thread: "t1", Run: 2, Scope: core.MarkScope(k),
			Status: core.CkReady, Commit: "cm" + itoa(k), Files: []core.FileChange{fc("A", "mine.txt", k, 0)}}}})
	}
	return j.st
}

func TestRollbackDialogOffersMarksAndSubagents(t *testing.T) {
	hs := newHarness(t, scopesState(t), 120, 40)
	hs.press("ctrl+z")
	d := hs.m.dialogs[0].(*rollbackDialog)
	var labels []string
	for _, it := range d.list.items {
		labels = append(labels, it.label)
	}
	// Newest first: the marks taken after run 2 above it, the subagent
	// inside run 1 below run 1.
	want := []string{"  ↳ mark/2, your mark after run 2", "  ↳ mark/1, your mark after run 2", "run 2: write b",
		"run 1: write a", "  ↳ subagent: write a", "before run 1"}
	if !reflect.DeepEqual(labels, want) {
		t.Fatalf("targets offered %q, want %q", labels, want)
	}
	hs.press("down", "down", "down", "down")
	hs.expectScreen("the preview of a rollback to the subagent",
		"Goes back to the end of this subagent, inside run 1: what run 1 did",
		"Rolling back to the subagent in run 1 marks run 2 rolled back.")
	hs.press("enter")
	if !strings.Contains(hs.screen(), "Roll back tidy the repo to the subagent in run 1 now?") {
		t.Fatalf("enter did not ask about the subagent:\n%s", hs.screen())
	}
	hs.press("y")
	if c := hs.lastCmd(); c.Kind != core.CmdRollbackNode || c.Node != "t1/1/a1/n2" || c.Thread != "t1" {
		t.Fatalf("submitted %+v, want rollback.node of t1/1/a1/n2", c)
	}
}

func TestRollbackDialogToAMark(t *testing.T) {
	hs := newHarness(t, scopesState(t), 120, 40)
	hs.press("ctrl+z", "down")
	hs.expectScreen("the preview of a rollback to mark/1",
		"Goes back to mark/1, taken after run 2: edits made since are undone")
	if strings.Contains(hs.screen(), "rolled back.") {
		t.Errorf("a mark after the last run rolls back no run, but the preview says so:\n%s", hs.screen())
	}
	hs.press("enter", "enter")
	if c := hs.lastCmd(); c.Kind != core.CmdRollbackToRun || c.Checkpoint != "t1/cp/mark/1" {
		t.Fatalf("submitted %+v, want rollback.to_run to checkpoint t1/cp/mark/1", c)
	}
}

func TestRollbackDialogMarksTheWorkspace(t *testing.T) {
	hs := newHarness(t, scopesState(t), 120, 40)
	hs.press("ctrl+z", "m")
	if c := hs.lastCmd(); c.Kind != core.CmdCheckpoint || c.Thread != "t1" {
		t.Fatalf("m submitted %+v, want checkpoint.capture of t1", c)
	}
	if len(hs.m.dialogs) != 1 {
		t.Fatalf("m closed the dialog; it stays open to show the new mark")
	}
}

func TestTranscriptNamesTheRollbackTarget(t *testing.T) {
	st := scopesState(t)
	ev := core.Event{Seq: st.Seq + 1, ID: "e-op", Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &core.Operation{
		ID: "t1/rollback1", Kind: "rollback", Thread: "t1", ToRun: 2, Step: core.StepDone, Status: core.OpCompleted,
		Target: "t1/cp/mark/1", Dirty: true, Detail: "files: 1 file(s) restored, 0 removed"}}}
	if err := st.Apply(&ev); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, st, 120, 40)
	hs.expectScreen("the rollback in the transcript", "rolled the workspace back to mark/1")
}

func TestSubagentLineShowsItsCheckpoint(t *testing.T) {
	hs := newHarness(t, scopesState(t), 120, 40)
	hs.expectScreen("the subagent's checkpoint in the transcript", "subagent: write a · checkpoint: 1 file +1")
}
