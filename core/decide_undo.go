package core

import (
	"fmt"
	"strings"
)

// Every rollback can be undone. A rollback (and an undo) first captures
// the workspace as it is into a safety checkpoint (scope
// SafetyScope(op)), then does its provider step, then restores the files,
// then sets the run and checkpoint statuses it decided when it started
// (Operation.Changes). rollback.undo undoes the thread's newest operation
// while no run came after it: it captures its own safety checkpoint,
// puts the provider record back, restores the undone operation's safety
// checkpoint (hand edits and other threads' files included) and sets each
// changed status back. Undoing an undo is a redo. Checkpoints are never
// deleted, so the stale ones an undo needs are still there.

// safetyPrefix is the scope prefix of safety checkpoints.
const safetyPrefix = "safety/"

// SafetyScope is the checkpoint scope of an operation's safety capture.
func SafetyScope(op string) string {
	if i := strings.LastIndexByte(op, '/'); i >= 0 {
		op = op[i+1:]
	}
	return safetyPrefix + op
}

// IsSafetyScope reports whether a scope is an operation's safety capture.
func IsSafetyScope(scope string) bool { return strings.HasPrefix(scope, safetyPrefix) }

// runningOp is the thread's operation in progress, or nil.
func (st *State) runningOp(thread string) *Operation {
	for _, op := range st.Operations {
		if op.Thread == thread && op.Status == OpRunning {
			return op
		}
	}
	return nil
}

// newestOp is the thread's newest operation (they are numbered from 1
// without gaps), or nil.
func (st *State) newestOp(thread string) *Operation {
	var last *Operation
	for k := 1; ; k++ {
		op := st.Operations[thread+"/rollback"+itoa(k)]
		if op == nil {
			return last
		}
		last = op
	}
}

// nextOpID is the id of the thread's next operation.
func (st *State) nextOpID(thread string) string {
	n := 1
	for _, op := range st.Operations {
		if op.Thread == thread {
			n++
		}
	}
	return fmt.Sprintf("%s/rollback%d", thread, n)
}

// rollbackChanges are the statuses a rollback to run n sets: later runs
// rolled back (a queued one cancelled), their checkpoints and their
// nodes' and marks' stale.
func (st *State) rollbackChanges(thread string, n int) []OpChange {
	var out []OpChange
	for _, r := range st.RunsOf(thread) {
		if r.Ordinal <= n || r.Status == RunRolledBack {
			continue
		}
		to := RunRolledBack
		if r.Status == RunQueued {
			to = RunCancelled
		}
		out = append(out, OpChange{ID: r.ID, From: string(r.Status), To: string(to)})
	}
	for _, id := range sortedKeys(st.Checkpoints) {
		cp := st.Checkpoints[id]
		if cp.Thread != thread || cp.Run <= n || cp.Status == CkStale || IsSafetyScope(cp.Scope) {
			continue
		}
		if cp.Scope == RunScope(cp.Run) || strings.HasPrefix(cp.Scope, nodeScopePrefix) || strings.HasPrefix(cp.Scope, markScopePrefix) {
			out = append(out, OpChange{ID: id, From: string(cp.Status), To: string(CkStale)})
		}
	}
	return out
}

// applyChanges sets each status an operation changes.
func (t *tx) applyChanges(thread string, changes []OpChange) {
	for _, ch := range changes {
		if r := t.st.Runs[ch.ID]; r != nil {
			if r.Status != RunStatus(ch.To) {
				rc := *r
				rc.Status = RunStatus(ch.To)
				t.putRun(rc)
			}
			continue
		}
		if cp := t.st.Checkpoints[ch.ID]; cp != nil && cp.Status != CheckpointStatus(ch.To) {
			cc := *cp
			cc.Status = CheckpointStatus(ch.To)
			t.emit(EvCheckpoint, Event{Thread: thread, Payload: Payload{Checkpoint: &cc}})
		}
	}
}

// statusOf is the current status of a run or checkpoint id.
func (st *State) statusOf(id string) string {
	if r := st.Runs[id]; r != nil {
		return string(r.Status)
	}
	if cp := st.Checkpoints[id]; cp != nil {
		return string(cp.Status)
	}
	return ""
}

// captureSafety asks for an operation's safety checkpoint; it is
// journaled the first time, and issued again as is when resumed.
func (t *tx) captureSafety(op *Operation, th *Thread) {
	key := CheckpointID(th.ID, SafetyScope(op.ID)) + ":capture"
	t.effect(Effect{Key: key, Kind: EffCheckpoint, Class: ClassIdempotent, Thread: th.ID,
		Scope: SafetyScope(op.ID), Workspace: th.Workspace}, t.st.Effect(key) == nil)
}

// undo starts rollback.undo: the thread's newest operation, if it
// completed and no run came after it, is undone by a new operation.
func (t *tx) undo(c *Command) *Rejection {
	th := t.st.Threads[c.Thread]
	if !checkpointsOn(th) {
		return reject(ReasonUnsupported, "rollback --undo: thread %s has no workspace checkpoints", th.ID)
	}
	if rej := t.idleForCheckpoints(th, "rollback --undo", "interrupt it before undoing a rollback"); rej != nil {
		return rej
	}
	last := t.st.newestOp(th.ID)
	switch {
	case last == nil:
		return reject(ReasonInvalidState, "rollback --undo: thread %s has no rollback to undo", th.ID)
	case last.Status != OpCompleted:
		return reject(ReasonInvalidState, "rollback --undo: %s is %s (%s); nothing to undo", last.ID, last.Status, last.Detail)
	case last.Safety == "":
		return reject(ReasonInvalidState, "rollback --undo: %s kept no copy of the workspace it replaced, so it cannot be undone; `nexus rollback %s --to-run N` goes to a run",
			last.ID, th.ID)
	}
	if runs := t.st.RunsOf(th.ID); len(runs) > last.Runs {
		return reject(ReasonInvalidState, "rollback --undo: run %d started after %s, and undo only reverses the thread's last step; `nexus rollback %s --to-run N` goes to a run",
			runs[last.Runs].Ordinal, last.ID, th.ID)
	}
	op := Operation{ID: t.st.nextOpID(th.ID), Kind: OpRollback, Thread: th.ID, Step: StepSafety, Status: OpRunning,
		Undoes: last.ID, Commit: last.Safety, Target: CheckpointID(th.ID, SafetyScope(last.ID)),
		Marks: t.st.MarkCount(th.ID), Runs: len(t.st.RunsOf(th.ID)), Force: c.Force}
	if last.From != "" {
		// Only what the undone operation changed goes back, from where it
		// left those paths.
		op.From, op.Only, op.AllPaths = last.Commit, last.Changed, last.ChangedAll
	}
	for _, ch := range last.Changes {
		op.Changes = append(op.Changes, OpChange{ID: ch.ID, From: t.st.statusOf(ch.ID), To: ch.From})
	}
	// The run the next one follows once the statuses are back.
	for _, r := range t.st.RunsOf(th.ID) {
		st := string(r.Status)
		for _, ch := range op.Changes {
			if ch.ID == r.ID {
				st = ch.To
			}
		}
		if RunStatus(st) != RunRolledBack && RunStatus(st) != RunCancelled {
			op.ToRun = r.Ordinal
		}
	}
	t.putOp(op)
	t.receipt.Op = op.ID
	t.captureSafety(&op, th)
	return nil
}

// safetyCaptured goes on with an operation once its safety checkpoint is
// captured: the provider step, then the files. A failed capture refuses
// the operation before anything changed.
func (t *tx) safetyCaptured(th *Thread, cp *Checkpoint) {
	op := t.st.Operations[th.ID+"/"+strings.TrimPrefix(cp.Scope, safetyPrefix)]
	if op == nil || op.Status != OpRunning || op.Step != StepSafety {
		return
	}
	c := *op
	if cp.Status != CkReady {
		c.Status, c.Step = OpRefused, StepDone
		c.Detail = "the workspace could not be saved before changing it, so nothing was changed: " + orDefault(cp.Reason, string(cp.Status))
		t.putOp(c)
		t.releaseAwaiting(th)
		return
	}
	c.Safety = cp.Commit
	var before *ProviderThread
	if pt := t.st.ProviderThreads[th.ID+"/"+th.Provider]; pt != nil {
		p := *pt
		before = &p
	}
	if c.Undoes != "" {
		c.Detail = t.undoProvider(th, t.st.Operations[c.Undoes])
	} else if c.Target != "" && !t.laterRuns(th.ID, c.ToRun) {
		c.Detail = fmt.Sprintf("provider: the conversation is kept (no run after run %d to drop)", c.ToRun)
	} else {
		c.Detail = t.rollbackProvider(th, c.ToRun)
	}
	if pt := t.st.ProviderThreads[th.ID+"/"+th.Provider]; before != nil && (pt == nil || *pt != *before) {
		c.Provider = before
	}
	c.Step = StepFiles
	t.putOp(c)
	t.restoreEffect(&c, th)
}

// undoProvider puts back the provider record the undone operation
// replaced; it says what it did.
func (t *tx) undoProvider(th *Thread, last *Operation) string {
	if last == nil || last.Provider == nil {
		return "provider: unchanged"
	}
	p := *last.Provider
	t.emit(EvProviderThread, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{ProviderThread: &p}})
	t.stopSession(th.ID, "undo of "+last.ID)
	return fmt.Sprintf("provider: %s's conversation is back as it was before %s", p.Provider, last.ID)
}
