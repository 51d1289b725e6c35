package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Checkpoints below and beside runs. A subagent node that ran a step
// which can change files gets a child-scope checkpoint when it ends
// (scope node/<run>/<attempt>/<node>), and a person can mark the
// workspace of an idle thread at any time (checkpoint.capture, scope
// mark/<k>). Both belong to a run (Checkpoint.Run: the node's run, or
// the newest run the mark follows), and both can be rolled back to:
// rollback.node restores a node's checkpoint, rollback.to_run with
// Command.Checkpoint restores a mark's (or a node's). Such a rollback
// drops the runs after that run like rollback.to_run does, then says
// whether the files now differ from that run's own checkpoint (the
// parent's work after the subagent, or what changed after the mark, is
// undone; `rollback --to-run N` brings it back).

// scope prefixes of child-scope checkpoints and marks.
const (
	nodeScopePrefix = "node/"
	markScopePrefix = "mark/"
)

// NodeScope is the checkpoint scope of a thread's subagent node.
func NodeScope(thread, node string) string {
	return nodeScopePrefix + strings.TrimPrefix(node, thread+"/")
}

// MarkScope is the scope of a thread's k-th marked checkpoint.
func MarkScope(k int) string { return markScopePrefix + itoa(k) }

// MarkCount is how many marks of a thread were asked for: they are
// numbered 1..MarkCount without gaps, each with its capture effect (its
// checkpoint record comes once the capture ends). It probes only the
// thread's own marks.
func (st *State) MarkCount(thread string) int {
	k := 0
	for st.Effect(CheckpointID(thread, MarkScope(k+1))+":capture") != nil {
		k++
	}
	return k
}

// readOnlyActions are the worker actions that never change files.
var readOnlyActions = map[string]bool{"read_file": true, "list_dir": true, "search": true}

// captureNode captures a subagent node's scope when it ends, if a step
// under it may have changed files: a worker step other than a read, or
// any tool call of an external agent (whose effects nexus cannot see).
// The capture's parent is the one the run's own would have, so its files
// are what the run changed up to the node's end.
func (t *tx) captureNode(r *Run, a *Attempt, n *Node) {
	th := t.st.Threads[r.Thread]
	if n.Kind != NodeSubagent || !checkpointsOn(th) || !t.mayWrite(a, n.ID) {
		return
	}
	t.captureEffect(th, r.ID, NodeScope(th.ID, n.ID), r.Ordinal)
}

// mayWrite reports whether a step that may change files ran under node.
func (t *tx) mayWrite(a *Attempt, node string) bool {
	nodes := t.st.NodesOf(a.ID)
	byID := make(map[string]*Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	under := func(n *Node) bool { // bounded: a parent chain has no cycle, but journal bytes are input
		for p, hops := byID[n.Parent], 0; p != nil && hops < len(nodes); p, hops = byID[p.Parent], hops+1 {
			if p.ID == node {
				return true
			}
		}
		return false
	}
	for _, n := range nodes {
		writes := n.Kind == NodeToolCall || n.Kind == NodeWorkerStep && !readOnlyActions[n.Action]
		if writes && under(n) {
			return true
		}
	}
	return false
}

// scopeRun is the run ordinal a node or mark checkpoint belongs to, and
// for a node scope its node id.
func (st *State) scopeRun(thread, scope, run string) (int, string) {
	n := 0
	if r := st.Runs[run]; r != nil {
		n = r.Ordinal
	}
	if rest, ok := strings.CutPrefix(scope, nodeScopePrefix); ok {
		return n, thread + "/" + rest
	}
	return n, ""
}

// mark starts checkpoint.capture: the workspace of an idle thread as it
// is now, into the thread's next mark scope.
func (t *tx) mark(c *Command) *Rejection {
	th := t.st.Threads[c.Thread]
	if !checkpointsOn(th) {
		return reject(ReasonUnsupported, "thread %s has no workspace to checkpoint", th.ID)
	}
	if rej := t.idleForCheckpoints(th, "checkpoint", "its checkpoint is captured when it ends; mark the workspace once the thread is idle"); rej != nil {
		return rej
	}
	k, latest := t.st.MarkCount(th.ID)+1, 0
	for _, r := range t.st.RunsOf(th.ID) {
		if r.Status != RunRolledBack && r.Status != RunCancelled {
			latest = r.Ordinal
		}
	}
	run := ""
	if latest > 0 {
		run = RunID(th.ID, latest)
	}
	scope := MarkScope(k)
	t.captureEffect(th, run, scope, latest+1)
	t.receipt.Checkpoint = CheckpointID(th.ID, scope)
	return nil
}

// idleForCheckpoints refuses a checkpoint command while a run or an
// operation of the thread is in flight; why ends the active-run message.
func (t *tx) idleForCheckpoints(th *Thread, what, why string) *Rejection {
	for _, r := range t.st.RunsOf(th.ID) {
		if r.Status == RunRunning || r.Status == RunWaiting || r.Finishing != "" || r.AwaitBase {
			return reject(ReasonInvalidState, "%s: run %d is active; %s", what, r.Ordinal, why)
		}
		if r.Recoverable {
			return reject(ReasonInvalidState, "%s: run %d was interrupted by a restart; `nexus resume %s` or `nexus interrupt %s` first",
				what, r.Ordinal, th.ID, th.ID)
		}
	}
	for _, op := range t.st.Operations {
		if op.Thread == th.ID && op.Status == OpRunning {
			return reject(ReasonInvalidState, "%s: %s of thread %s is still in progress; finish it with `nexus resume %s`", what, op.ID, th.ID, th.ID)
		}
	}
	if e := t.st.pendingCapture(th.ID); e != "" {
		return reject(ReasonInvalidState, "%s: checkpoint %s is still being captured; try again when it is done", what, e)
	}
	return nil
}

// pendingCapture is the id of the thread's mark whose capture started
// and has not ended, or "": only the newest can be, since a mark is
// refused while one is captured. It runs at every run start. (A node's
// capture cannot be pending while its thread is idle: the host captures
// a workspace's scopes in order, and the run ends only after its own
// capture.)
func (st *State) pendingCapture(thread string) string {
	k := st.MarkCount(thread)
	if k == 0 {
		return ""
	}
	id := CheckpointID(thread, MarkScope(k))
	if st.Effect(id+":capture").Status != EffStarted {
		return ""
	}
	return id
}

// rollbackScope starts rollback.node, and rollback.to_run naming a
// checkpoint: the files go back to that checkpoint and the runs after its
// run are rolled back.
func (t *tx) rollbackScope(c *Command) *Rejection {
	th := t.st.Threads[c.Thread]
	if !checkpointsOn(th) {
		return reject(ReasonUnsupported, "thread %s has no workspace checkpoints to roll back to", th.ID)
	}
	what := "rollback --to-checkpoint " + strings.TrimPrefix(c.Checkpoint, th.ID+"/cp/")
	if c.Kind == CmdRollbackNode {
		what = "rollback --to-node " + c.Node
	}
	if rej := t.idleForCheckpoints(th, what, "interrupt it before rolling back"); rej != nil {
		return rej
	}
	id := c.Checkpoint
	if c.Kind == CmdRollbackNode {
		id = CheckpointID(th.ID, NodeScope(th.ID, c.Node))
	}
	cp := t.st.Checkpoints[id]
	if cp == nil {
		if c.Kind == CmdRollbackNode {
			return reject(ReasonInvalidState, "node %s has no checkpoint: only a subagent node that ran a step which can change files has one", c.Node)
		}
		return reject(ReasonInvalidState, "thread %s has no checkpoint %s: `nexus thread show %s --json` lists them", th.ID, id, th.ID)
	}
	if cp.Status != CkReady {
		return reject(ReasonInvalidState, "%s: %s; nothing was changed", what, t.st.notReady(th.ID, cp.Scope, cp))
	}
	if r := t.st.RunByOrdinal(th.ID, cp.Run); r != nil && r.Status == RunRolledBack {
		return reject(ReasonInvalidState, "%s: it belongs to run %d, which a rollback dropped; `nexus rollback %s --undo` brings the run back",
			what, cp.Run, th.ID)
	}
	t.startRollback(th, cp, c.Force)
	return nil
}

// notReady says why a checkpoint cannot be restored, and what to do.
func (st *State) notReady(thread, scope string, cp *Checkpoint) string {
	switch {
	case cp == nil:
		return "the checkpoint of " + scope + " was never captured"
	case cp.Status == CkStale:
		return fmt.Sprintf("the checkpoint of %s is stale: a rollback dropped its run; `nexus rollback %s --undo` brings it back", scope, thread)
	case cp.Reason != "":
		return fmt.Sprintf("the checkpoint of %s is %s (%s)", scope, cp.Status, cp.Reason)
	}
	return fmt.Sprintf("the checkpoint of %s is %s", scope, cp.Status)
}

// laterRuns reports whether the thread has a run after n that is not
// rolled back.
func (t *tx) laterRuns(thread string, n int) bool {
	for _, r := range t.st.RunsOf(thread) {
		if r.Ordinal > n && r.Status != RunRolledBack && r.Status != RunCancelled {
			return true
		}
	}
	return false
}

// startRollback journals a rollback operation to a checkpoint: the
// provider step first (only when runs after the checkpoint's run leave
// the conversation), then the files.
func (t *tx) startRollback(th *Thread, cp *Checkpoint, force bool) {
	runs := t.st.RunsOf(th.ID)
	op := Operation{ID: t.st.nextOpID(th.ID), Kind: OpRollback, Thread: th.ID, ToRun: cp.Run,
		Step: StepSafety, Status: OpRunning, Commit: cp.Commit, Marks: t.st.MarkCount(th.ID),
		Changes: t.st.rollbackChanges(th.ID, cp.Run), Runs: len(runs), Force: force}
	if cp.Scope != ScopeBase && cp.Scope != RunScope(cp.Run) {
		op.Target = cp.ID
	}
	// The files go back from where the thread left them, and only the
	// paths its undone runs changed.
	if len(runs) > 0 {
		op.From = t.st.ParentCommit(th.ID, runs[len(runs)-1].Ordinal+1)
	}
	afterMark := 0
	if k, ok := strings.CutPrefix(cp.Scope, markScopePrefix); ok {
		afterMark, _ = strconv.Atoi(k)
	}
	op.Only, op.AllPaths = t.st.ownPaths(th.ID, cp.Run, op.Target != "", afterMark)
	t.putOp(op)
	t.receipt.Op = op.ID
	t.captureSafety(&op, th)
}

// sinceOf is the run checkpoint a rollback to another checkpoint compares
// the restored files with: run ToRun's own (the baseline for run 0).
func (st *State) sinceOf(op *Operation) string {
	if op.Target == "" || op.Undoes != "" {
		return ""
	}
	scope := ScopeBase
	if op.ToRun > 0 {
		scope = RunScope(op.ToRun)
	}
	if c := st.Checkpoints[CheckpointID(op.Thread, scope)]; c != nil && c.Status == CkReady {
		return c.Commit
	}
	return ""
}

// targetOutcome is what a rollback to a node's or a mark's checkpoint
// says about the files once they are restored.
func targetOutcome(op *Operation, dirty bool) string {
	if !dirty {
		return fmt.Sprintf("; the files equal run %d's checkpoint", op.ToRun)
	}
	return fmt.Sprintf("; the workspace now differs from run %d's checkpoint (the changes after %s are undone; `nexus rollback %s --to-run %d` brings them back)",
		op.ToRun, op.Target, op.Thread, op.ToRun)
}

// staleScopes marks the node and mark checkpoints of runs after n stale.
func (t *tx) staleScopes(thread string, n int) {
	for _, id := range sortedKeys(t.st.Checkpoints) {
		cp := t.st.Checkpoints[id]
		if cp.Thread != thread || cp.Run <= n || cp.Status == CkStale ||
			!strings.HasPrefix(cp.Scope, nodeScopePrefix) && !strings.HasPrefix(cp.Scope, markScopePrefix) {
			continue
		}
		cc := *cp
		cc.Status = CkStale
		t.emit(EvCheckpoint, Event{Thread: thread, Payload: Payload{Checkpoint: &cc}})
	}
}

// abandonScopeCaptures records, at recovery, the node and mark captures
// the last host left unfinished as errors: the workspace has moved on
// since the node ended or the mark was asked for, so capturing it now
// would record the wrong files.
func (t *tx) abandonScopeCaptures() {
	for _, key := range startedCaptures(t.st) {
		e := t.st.Effects[key]
		id, ok := strings.CutSuffix(key, ":capture")
		if !ok || e.Status != EffStarted || e.Kind != EffCheckpoint {
			continue
		}
		thread, scope, ok := strings.Cut(id, "/cp/")
		if !ok || !strings.HasPrefix(scope, nodeScopePrefix) && !strings.HasPrefix(scope, markScopePrefix) {
			continue
		}
		why := "the host stopped before this checkpoint was captured"
		t.completeEffect(key, captureStatus(CkError), why)
		c := Checkpoint{ID: id, Thread: thread, Scope: scope, Status: CkError, Reason: why}
		c.Run, c.Node = t.st.scopeRun(thread, scope, e.Run)
		t.emit(EvCheckpoint, Event{Thread: thread, Correlation: thread, Payload: Payload{Checkpoint: &c}})
	}
}

// startedCaptures lists the keys of capture effects that started and did
// not end, sorted.
func startedCaptures(st *State) []string {
	var keys []string
	for key, e := range st.Effects {
		if e.Status == EffStarted && e.Kind == EffCheckpoint {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}
