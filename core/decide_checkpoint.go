package core

import (
	"fmt"
	"slices"
	"strings"
)

// Workspace checkpoints (docs/ARCHITECTURE.md, "Checkpoints and
// rollback"). A thread with a workspace captures a baseline before its
// first turn and a checkpoint at the completion barrier of every run: the
// run becomes terminal only once its checkpoint is captured or recorded
// missing or in error.

// ScopeBase is the scope of the pre-run baseline; runs use RunScope.
const ScopeBase = "base"

// RunScope is the checkpoint scope of run n.
func RunScope(n int) string { return "run" + itoa(n) }

// CheckpointID is the id of a thread's checkpoint for a scope.
func CheckpointID(thread, scope string) string { return thread + "/cp/" + scope }

func checkpointsOn(th *Thread) bool { return th != nil && th.Workspace != "" }

// ParentCommit is the newest ready checkpoint commit of a thread before
// run n (the parent of run n's checkpoint, what `nexus diff --run n`
// compares with), or "": a mark taken after run i is newer than run i's
// own checkpoint, so what a person changed between runs and marked is not
// counted as the next run's; and after a rollback to a node's or a mark's
// checkpoint, that checkpoint is where the next run started.
func (st *State) ParentCommit(thread string, n int) string {
	marks := st.MarkCount(thread)
	newestMark := func(run, after int) string { // a mark numbered above after
		for k := marks; k > after; k-- {
			if c := st.Checkpoints[CheckpointID(thread, MarkScope(k))]; c != nil && c.Run == run && c.Status == CkReady {
				return c.Commit
			}
		}
		return ""
	}
	op := st.lastRollback(thread)
	for i := n - 1; i >= 0; i-- {
		if op != nil && op.Target != "" && op.ToRun == i {
			// The files went back to a node's or a mark's checkpoint
			// after run i: that is where the next run starts, unless a
			// mark was taken since.
			if m := newestMark(i, op.Marks); m != "" {
				return m
			}
			return op.Commit
		}
		if m := newestMark(i, 0); m != "" {
			return m
		}
		scope := ScopeBase
		if i > 0 {
			scope = RunScope(i)
		}
		if c := st.Checkpoints[CheckpointID(thread, scope)]; c != nil && c.Status == CkReady {
			return c.Commit
		}
	}
	return ""
}

// lastRollback is the thread's newest rollback if it completed, else nil.
// Rollbacks are numbered from 1 without gaps.
func (st *State) lastRollback(thread string) *Operation {
	var last *Operation
	for k := 1; ; k++ {
		op := st.Operations[thread+"/rollback"+itoa(k)]
		if op == nil {
			break
		}
		last = op
	}
	if last == nil || last.Status != OpCompleted {
		return nil
	}
	return last
}

// captureStatus is the status a capture's effect record ends with: the
// checkpoint's own (ready, missing, error), with its commit as the
// result, as the journal has always recorded it.
func captureStatus(s CheckpointStatus) EffectStatus { return EffectStatus(s) }

// captureEffect asks for a checkpoint of a thread's workspace.
func (t *tx) captureEffect(th *Thread, run, scope string, ordinal int) {
	e := Effect{Key: CheckpointID(th.ID, scope) + ":capture", Kind: EffCheckpoint, Class: ClassIdempotent,
		Thread: th.ID, Run: run, Scope: scope, Workspace: th.Workspace, Commit: t.st.ParentCommit(th.ID, ordinal)}
	if r := t.st.Runs[run]; r != nil && scope == RunScope(ordinal) {
		e.Own = true
		e.Paths, e.Windows = t.st.ownOf(r, t.at)
	}
	t.effect(e, t.st.Effect(e.Key) == nil)
}

// releaseAwaiting starts the turn of a run that waited for the thread's
// baseline or for a mark, once neither is being captured.
func (t *tx) releaseAwaiting(th *Thread) {
	r := t.st.ActiveRun(th.ID)
	if r == nil || !r.AwaitBase || t.needBase(th) || t.st.pendingCapture(th.ID) != "" || t.st.runningOp(th.ID) != nil {
		return
	}
	rc := *r
	rc.AwaitBase = false
	t.putRun(rc)
	t.startTurnEffect(&rc, t.st.CurrentAttempt(&rc))
}

// needBase reports whether a run must wait for the thread's baseline.
func (t *tx) needBase(th *Thread) bool {
	return checkpointsOn(th) && t.st.Checkpoints[CheckpointID(th.ID, ScopeBase)] == nil
}

// observeCheckpoint records a capture's outcome and releases what waited
// on it: run 1's first turn, or a run's completion barrier.
func (t *tx) observeCheckpoint(o *Observation) {
	th := t.st.Threads[o.Thread]
	if th == nil || o.Key == "" {
		return
	}
	status := orDefault(o.CheckpointStatus, CkReady)
	t.completeEffect(CheckpointID(th.ID, o.Key)+":capture", captureStatus(status), o.Commit)
	c := Checkpoint{ID: CheckpointID(th.ID, o.Key), Thread: th.ID, Scope: o.Key, Status: status,
		Ref: o.Ref, Commit: o.Commit, Reason: o.Error}
	isRun := strings.HasPrefix(o.Key, "run")
	if isRun {
		fmt.Sscanf(o.Key, "run%d", &c.Run)
	} else if o.Key != ScopeBase && !IsSafetyScope(o.Key) {
		c.Run, c.Node = t.st.scopeRun(th.ID, o.Key, o.Run)
	}
	if o.Key != ScopeBase && !IsSafetyScope(o.Key) && c.Status == CkReady {
		c.Files, c.MoreFiles = capFiles(o.Files, o.MoreFiles)
		c.Own, c.Outside = o.Own && isRun, o.Outside
	}
	if cur := t.st.Checkpoints[c.ID]; cur == nil || !cur.same(&c) {
		t.emit(EvCheckpoint, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{Checkpoint: &c}})
	}
	if IsSafetyScope(o.Key) {
		t.safetyCaptured(th, &c)
		return
	}
	if !isRun {
		t.releaseAwaiting(th)
		return
	}
	if r := t.st.RunByOrdinal(th.ID, c.Run); isRun && r != nil && r.Finishing != "" {
		t.finishRun(r)
	}
}

// capFiles sorts a copy of a capture's changed files by path and keeps
// the first MaxCheckpointFiles; more counts the rest, with those the
// executor already left out.
func capFiles(files []FileChange, more int) ([]FileChange, int) {
	if len(files) == 0 {
		return nil, more
	}
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	if len(out) > MaxCheckpointFiles {
		more += len(out) - MaxCheckpointFiles
		out = slices.Clone(out[:MaxCheckpointFiles])
	}
	return out, more
}

// finishRun makes a run terminal once its barrier is through.
func (t *tx) finishRun(r *Run) {
	c := *r
	c.Status, c.Finishing, c.EndedAt = r.Finishing, "", t.at
	t.putRun(c)
	t.refreshThread(r.Thread)
	t.startNext(r.Thread)
}

// rollback starts `rollback.to_run`: a journaled operation that first lets
// the provider side refuse, then restores the files, then marks later runs
// rolled_back and later checkpoints stale. With Command.Checkpoint it
// restores that checkpoint instead (decide_scope.go).
func (t *tx) rollback(c *Command) *Rejection {
	if c.Checkpoint != "" {
		return t.rollbackScope(c)
	}
	th := t.st.Threads[c.Thread]
	if !checkpointsOn(th) {
		return reject(ReasonUnsupported, "thread %s has no workspace checkpoints to roll back to", th.ID)
	}
	if rej := t.idleForCheckpoints(th, fmt.Sprintf("rollback --to-run %d", c.Run), "interrupt it before rolling back"); rej != nil {
		return rej
	}
	scope := ScopeBase
	if c.Run > 0 {
		scope = RunScope(c.Run)
		if r := t.st.RunByOrdinal(th.ID, c.Run); r.Status == RunRolledBack {
			return reject(ReasonInvalidState, "rollback --to-run %d: run %d was rolled back by an earlier rollback; `nexus rollback %s --undo` brings it back",
				c.Run, c.Run, th.ID)
		}
	}
	cp := t.st.Checkpoints[CheckpointID(th.ID, scope)]
	if cp == nil || cp.Status != CkReady {
		return reject(ReasonInvalidState, "rollback --to-run %d: %s; nothing was changed", c.Run, t.st.notReady(th.ID, scope, cp))
	}
	t.startRollback(th, cp, c.Force)
	return nil
}

// rollbackProvider is the provider step of a rollback to run n; it says
// what it did. A provider whose context is the journal (the built-in
// agent: its requests survive its process, DurableRequests) needs
// nothing: rolled-back runs leave the context. A terminal keeps no
// conversation. Any other agent holds the later runs in a conversation
// of its own: it is set aside (the provider thread marked unavailable,
// the live session stopped), and the next turn starts a new one from the
// journal's history up to run n, recorded as a full_thread_summary
// handoff so the person sees what the agent will be given.
func (t *tx) rollbackProvider(th *Thread, n int) string {
	switch {
	case th.Caps.DurableRequests:
		return "provider: context truncated to run " + itoa(n)
	case th.Caps.PTY:
		return "provider: a terminal keeps no conversation; its screen is left as it is"
	}
	if detail := t.revertNative(th, n); detail != "" {
		return detail
	}
	if detail := t.forkBack(th, n); detail != "" {
		return detail
	}
	old := ""
	if pt := t.st.ProviderThreads[th.ID+"/"+th.Provider]; pt != nil && pt.Available {
		c := *pt
		c.Available = false
		old = c.NativeRef
		t.emit(EvProviderThread, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{ProviderThread: &c}})
	}
	t.stopSession(th.ID, "rolled back to run "+itoa(n))
	var b strings.Builder
	fmt.Fprintf(&b, "Rolled back to run %d: the %s conversation %s also held the later runs, so a new one starts from this history:\n",
		n, th.Provider, old)
	for _, m := range t.st.Context(th.ID, n+1) {
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	h := Handoff{ID: th.ID + "/handoff" + itoa(len(t.st.Handoffs)+1), Thread: th.ID, From: th.Provider + ":" + old,
		To: th.Provider, Strategy: HandoffFullSummary, Text: b.String()}
	t.emit(EvHandoffRecorded, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{Handoff: &h}})
	return fmt.Sprintf("provider: %s's conversation set aside; the next turn starts a new one from the history up to run %d (%s)",
		th.Provider, n, h.ID)
}

// revertNative asks a provider that can revert its own conversation
// (Caps.Rollback) to drop the native turns of the runs after n: the first
// of them is recorded on the provider thread, the live session stopped,
// and the next turn resumes the conversation and reverts it before it
// starts. It returns "" when that cannot apply (no such capability, no
// available provider thread, no native turn recorded after run n), and
// the rollback sets the conversation aside instead.
func (t *tx) revertNative(th *Thread, n int) string {
	pt := t.st.ProviderThreads[th.ID+"/"+th.Provider]
	if !th.Caps.Rollback || pt == nil || !pt.Available || pt.NativeRef == "" {
		return ""
	}
	turn := ""
	for _, r := range t.st.RunsOf(th.ID) {
		if r.Ordinal <= n || r.Status == RunRolledBack {
			continue
		}
		for _, a := range t.st.AttemptsOf(r.ID) {
			if a.NativeTurn != "" {
				turn = a.NativeTurn
				break
			}
		}
		if turn != "" {
			break
		}
	}
	if turn == "" {
		return ""
	}
	c := *pt
	c.RevertBefore = turn
	t.emit(EvProviderThread, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{ProviderThread: &c}})
	t.stopSession(th.ID, "rolled back to run "+itoa(n))
	return fmt.Sprintf("provider: %s reverts its conversation %s to before turn %s (the runs after run %d) when the next turn starts",
		th.Provider, c.NativeRef, turn, n)
}

// forkBack rolls back the conversation of a provider that can fork its
// own (Caps.Fork: Claude Code's --fork-session --resume-session-at)
// without reverting it in place: the thread goes on in a fork of its
// conversation through run n's last native turn, opened at the next turn;
// the old conversation is left as it was. "" when that cannot apply.
func (t *tx) forkBack(th *Thread, n int) string {
	pt := t.st.ProviderThreads[th.ID+"/"+th.Provider]
	if !th.Caps.Fork || pt == nil || !pt.Available || pt.NativeRef == "" {
		return ""
	}
	at := t.st.throughTurn(th.ID, n)
	if at == "" {
		return ""
	}
	c := ProviderThread{ID: pt.ID, Thread: th.ID, Provider: th.Provider, Available: true, ForkOf: pt.NativeRef, ForkAt: at}
	t.emit(EvProviderThread, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{ProviderThread: &c}})
	t.stopSession(th.ID, "rolled back to run "+itoa(n))
	return fmt.Sprintf("provider: %s goes on in a fork of its conversation %s through run %d (turn %s); the later runs stay out",
		th.Provider, pt.NativeRef, n, at)
}

// throughTurn is the native turn a conversation is kept through to hold
// run n and nothing later: the last one its attempts reported, "" if none.
func (st *State) throughTurn(thread string, n int) string {
	r := st.RunByOrdinal(thread, n)
	if r == nil {
		return ""
	}
	turn := ""
	for _, a := range st.AttemptsOf(r.ID) {
		if a.NativeTurn != "" {
			turn = a.NativeTurn
		}
	}
	return turn
}

func (t *tx) putOp(op Operation) {
	t.emit(EvOperation, Event{Thread: op.Thread, Correlation: op.ID, Payload: Payload{Operation: &op}})
}

// restoreEffect asks for an operation's files step; it is journaled the
// first time, and issued again as is when resumed.
func (t *tx) restoreEffect(op *Operation, th *Thread) {
	t.effect(Effect{Key: op.ID + ":restore", Kind: EffRestore, Class: ClassIdempotent, Thread: th.ID,
		Workspace: th.Workspace, Commit: op.Commit, Scope: op.ID, Since: t.st.sinceOf(op),
		From: op.From, Only: op.Only, AllPaths: op.AllPaths, Force: op.Force}, t.st.Effect(op.ID+":restore") == nil)
}

// observeRestored finishes a rollback once its files are restored, or
// records the partial outcome.
func (t *tx) observeRestored(o *Observation) {
	op := t.st.Operations[o.Key]
	if op == nil || op.Status != OpRunning || op.Step != StepFiles {
		return
	}
	t.completeEffect(op.ID+":restore", orDefault(o.EffectStatus, EffCompleted), o.Error)
	c := *op
	if o.EffectStatus == EffFailed {
		c.Status = OpPartial
		c.Detail += "; files: " + o.Error + "; later runs were not marked: fix the cause and run `nexus rollback` again"
		t.putOp(c)
		return
	}
	c.Detail += "; files: " + orDefault(o.Text, "restored")
	c.Changed, c.ChangedAll = capPaths(o.Paths), o.PathsAll || len(o.Paths) > maxOpPaths
	if c.ChangedAll {
		c.Changed = nil
	}
	if len(o.Kept) > 0 {
		c.Kept = capPaths(o.Kept)
		c.Detail += fmt.Sprintf("; kept %d path(s) changed since by hand or by another thread: %s (`nexus rollback %s --undo`, then again with --force, overwrites them)",
			len(o.Kept), strings.Join(c.Kept, ", "), op.Thread)
	}
	switch {
	case op.Undoes != "":
		c.Detail += "; the files and runs are as they were before " + op.Undoes
	case op.Target != "":
		c.Dirty = o.Dirty
		c.Detail += targetOutcome(op, o.Dirty)
	}
	if op.Step == StepFiles && (op.Safety != "" || op.Undoes != "") {
		t.applyChanges(op.Thread, op.Changes)
		c.Step, c.Status = StepDone, OpCompleted
		t.putOp(c)
		t.refreshThread(op.Thread)
		t.releaseAwaiting(t.st.Threads[op.Thread])
		return
	}
	// An operation journaled before safety captures decided its
	// statuses only now.
	for _, r := range t.st.RunsOf(op.Thread) {
		if r.Ordinal <= op.ToRun || r.Status == RunRolledBack {
			continue
		}
		rc := *r
		if rc.Status == RunQueued {
			rc.Status = RunCancelled
		} else {
			rc.Status = RunRolledBack
		}
		t.putRun(rc)
		if cp := t.st.Checkpoints[CheckpointID(op.Thread, RunScope(r.Ordinal))]; cp != nil && cp.Status != CkStale {
			cc := *cp
			cc.Status = CkStale
			t.emit(EvCheckpoint, Event{Thread: op.Thread, Payload: Payload{Checkpoint: &cc}})
		}
	}
	t.staleScopes(op.Thread, op.ToRun)
	c.Step, c.Status = StepDone, OpCompleted
	t.putOp(c)
	t.refreshThread(op.Thread)
}

// resumeOps re-issues the current step of a thread's unfinished operations
// (after a crash in the middle of a rollback).
func (t *tx) resumeOps(thread string) bool {
	resumed := false
	for _, id := range sortedKeys(t.st.Operations) {
		op := t.st.Operations[id]
		if op.Thread != thread || op.Status != OpRunning {
			continue
		}
		switch op.Step {
		case StepSafety:
			t.captureSafety(op, t.st.Threads[thread])
			t.receipt.Op = op.ID
			resumed = true
		case StepFiles:
			t.restoreEffect(op, t.st.Threads[thread])
			t.receipt.Op = op.ID
			resumed = true
		}
	}
	return resumed
}

// same reports whether two checkpoint records say the same thing.
func (c *Checkpoint) same(o *Checkpoint) bool {
	return c.ID == o.ID && c.Thread == o.Thread && c.Run == o.Run && c.Scope == o.Scope && c.Status == o.Status &&
		c.Ref == o.Ref && c.Reason == o.Reason && c.Commit == o.Commit && c.MoreFiles == o.MoreFiles &&
		slices.Equal(c.Files, o.Files)
}
