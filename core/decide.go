package core

import (
	"fmt"
	"strconv"
)

// InterruptDeadline is how long a provider has to confirm an interrupt
// before the kernel stops its session and ends the run itself.
const InterruptDeadline int64 = 10e9

// tx is one Decide pass: it emits events, applying each to the state at
// once so later decisions in the same pass see it, and collects effects.
// Decide is deterministic: its output depends only on the state and the
// input (no clock, no randomness, no I/O), and it changes the state only
// by applying what it emits (doc.go, "Invariants"). If the journal append
// of a pass fails, the Runner rebuilds the state from the journal, so
// applying early is safe.
type tx struct {
	st      *State
	cause   string
	at      int64
	events  []Event
	effects []Effect
	receipt *Receipt
	// transfer is a merge-back transfer emitted for the run being created.
	transfer string
}

func (t *tx) emit(typ EventType, ev Event) {
	ev.Seq = t.st.Seq + 1
	ev.ID = "e" + strconv.FormatUint(ev.Seq, 10)
	ev.Type = typ
	ev.Causation = t.cause
	ev.At = t.at
	if err := t.st.Apply(&ev); err != nil {
		// Unreachable: seqs are assigned here. Keep the event anyway so
		// the journal shows it.
		ev.Payload.Note = err.Error()
	}
	t.events = append(t.events, ev)
}

func (t *tx) effect(e Effect, journaled bool) {
	if journaled {
		rec := &EffectRecord{Key: e.Key, Kind: e.Kind, Class: e.Class, Run: e.Run, Status: EffStarted}
		t.emit(EvEffectStarted, Event{Thread: e.Thread, Run: e.Run, Attempt: e.Attempt,
			Correlation: e.Run, Payload: Payload{Effect: rec}})
	}
	t.effects = append(t.effects, e)
}

func (t *tx) completeEffect(key string, status EffectStatus, result string) {
	rec := t.st.Effect(key)
	if rec == nil || rec.Status != EffStarted {
		return
	}
	c := *rec
	c.Status, c.Result = status, result
	t.emit(EvEffectCompleted, Event{Run: c.Run, Payload: Payload{Effect: &c}})
}

// Decide folds one input into the state and returns its events, effects
// and, for a command, its receipt. The events are applied to st as they
// are made; nothing else in st changes (doc.go, "Invariants"). A refused
// input (*InputError) returns no events. A command id seen before returns
// the first receipt and no events.
func Decide(st *State, in Input) ([]Event, []Effect, *Receipt, error) {
	switch {
	case in.Command != nil:
		return decideCommand(st, in.Command)
	case in.Obs != nil:
		t := &tx{st: st, at: in.Obs.At}
		t.observe(in.Obs)
		return t.events, t.effects, nil, nil
	case in.Timer != nil:
		t := &tx{st: st, at: in.Timer.At}
		t.timer(in.Timer)
		return t.events, t.effects, nil, nil
	case in.Recover != nil:
		t := &tx{st: st, at: in.Recover.At}
		if in.Recover.Writer != "" {
			t.emit(EvRuntimeWarning, Event{Payload: Payload{Note: WriterNote + in.Recover.Writer}})
		}
		t.recover()
		if !in.Recover.NoSchedules {
			t.recoverSchedules()
		}
		return t.events, t.effects, nil, nil
	case in.Shutdown != nil:
		t := &tx{st: st, at: in.Shutdown.At}
		t.shutdown()
		return t.events, nil, nil, nil
	}
	return nil, nil, nil, refuse("empty input")
}

func decideCommand(st *State, c *Command) ([]Event, []Effect, *Receipt, error) {
	if r := st.Receipts[c.ID]; r != nil {
		return nil, nil, r, nil
	}
	if err := c.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if err := agentRefs(st, c); err != nil {
		return nil, nil, nil, err
	}
	if err := missionRefs(st, c); err != nil {
		return nil, nil, nil, err
	}
	if err := checkRefs(st, c); err != nil {
		return nil, nil, nil, err
	}
	t := &tx{st: st, cause: c.ID, at: c.At}
	t.receipt = &Receipt{Command: c.ID, Kind: c.Kind, Thread: c.Thread}
	var rej *Rejection
	switch c.Kind {
	case CmdThreadCreate:
		rej = t.createThread(c)
	case CmdThreadRename:
		rej = t.renameThread(c)
	case CmdThreadArchive:
		rej = t.archiveThread(c)
	case CmdThreadStop:
		if m := t.st.Missions[t.st.Threads[c.Thread].Mission]; m != nil && m.PlanThread == c.Thread && !m.Done() {
			// The planner's thread heads its mission: stopping it stops
			// the mission's threads, depth first.
			rej = t.stopMission(&Command{Mission: m.ID})
		} else {
			rej = t.interrupt(c, true, true)
		}
	case CmdMessageSend:
		if rej = t.send(c); rej == nil {
			t.titleFromMessage(c)
		}
	case CmdQueueHold, CmdQueueRelease, CmdQueueRemove:
		rej = t.queueOp(c)
	case CmdRunInterrupt:
		rej = t.interrupt(c, c.HoldQueue, false)
	case CmdRunResume:
		rej = t.resume(c)
	case CmdRequestRespond:
		rej = t.respond(c)
	case CmdThreadFork:
		rej = t.fork(c)
	case CmdProviderSwitch:
		rej = t.switchProvider(c)
	case CmdRollbackToRun:
		rej = t.rollback(c)
	case CmdRollbackNode:
		rej = t.rollbackScope(c)
	case CmdRollbackUndo:
		rej = t.undo(c)
	case CmdCheckpoint:
		rej = t.mark(c)
	case CmdThreadBudget:
		rej = t.setBudget(c)
	case CmdDailyBudget:
		rej = t.setDailyBudget(c)
	case CmdAgentAdd:
		rej = t.addAgent(c)
	case CmdAgentRemove:
		rej = t.removeAgent(c)
	case CmdMissionCreate:
		rej = t.createMission(c)
	case CmdMissionApprove:
		rej = t.approveMission(c)
	case CmdMissionStop:
		rej = t.stopMission(c)
	case CmdMissionResume:
		rej = t.resumeMission(c)
	case CmdMissionVote:
		rej = t.voteMission(c)
	case CmdMissionRollback:
		rej = t.rollbackMission(c)
	case CmdScheduleAdd:
		rej = t.addSchedule(c)
	case CmdScheduleRemove:
		rej = t.removeSchedule(c)
	default:
		return nil, nil, nil, refuse("%s is not available in this version of nexus", c.Kind)
	}
	r := t.receipt
	if rej != nil {
		rej.Command = c.ID
		r = &Receipt{Command: c.ID, Kind: c.Kind, Thread: c.Thread, Agent: t.receipt.Agent, Mission: c.Mission, Reject: rej}
		t.emit(EvCommandRejected, Event{Thread: c.Thread, Payload: Payload{Rejection: rej, Receipt: r}})
	} else {
		t.emit(EvCommandAccepted, Event{Thread: r.Thread, Run: r.Run, Payload: Payload{Receipt: r}})
	}
	// The receipt's seq is the event that recorded it.
	r.Seq = t.st.Seq
	return t.events, t.effects, r, nil
}

// checkRefs refuses commands that name things that do not exist. This is
// the edge's job: such input journals nothing.
func checkRefs(st *State, c *Command) error {
	switch c.Kind {
	case CmdThreadCreate:
		if st.Threads[c.NewThread] != nil {
			return refuse("thread %s already exists", c.NewThread)
		}
		return nil
	case CmdThreadFork:
		if st.Threads[c.NewThread] != nil {
			return refuse("thread %s already exists", c.NewThread)
		}
	case CmdMessageSend:
		if c.MergeBack != "" && st.Threads[c.MergeBack] == nil {
			return refuse("unknown thread %q to merge back: list threads with `nexus thread list`", c.MergeBack)
		}
	case CmdRequestRespond:
		if st.Requests[c.Request] == nil {
			return refuse("unknown request %q: list pending ones with `nexus requests`", c.Request)
		}
		return nil
	case CmdDailyBudget, CmdAgentAdd, CmdAgentRemove, CmdMissionCreate, CmdMissionApprove, CmdMissionStop, CmdMissionResume, CmdMissionVote, CmdMissionRollback:
		return nil
	case CmdScheduleAdd, CmdScheduleRemove:
		return scheduleRefs(st, c)
	case CmdRunResume:
		if c.Thread == "" {
			return nil
		}
	}
	th := st.Threads[c.Thread]
	if th == nil {
		return refuse("unknown thread %q: list threads with `nexus thread list`", c.Thread)
	}
	switch c.Kind {
	case CmdQueueHold, CmdQueueRelease, CmdQueueRemove:
		if st.RunByOrdinal(c.Thread, c.Run) == nil {
			return refuse("thread %s has no run %d", c.Thread, c.Run)
		}
	case CmdThreadFork, CmdRollbackToRun:
		if c.Run > 0 && st.RunByOrdinal(c.Thread, c.Run) == nil {
			return refuse("thread %s has no run %d", c.Thread, c.Run)
		}
		if c.Run < 0 {
			return refuse("run %d is not a run number", c.Run)
		}
		if c.Checkpoint != "" && (st.Checkpoints[c.Checkpoint] == nil || st.Checkpoints[c.Checkpoint].Thread != c.Thread) {
			return refuse("thread %s has no checkpoint %q: `nexus thread show %s --json` lists them", c.Thread, c.Checkpoint, c.Thread)
		}
	case CmdRollbackNode:
		if n := st.Node(c.Node); n == nil || n.Thread != c.Thread {
			return refuse("thread %s has no node %q: `nexus thread show %s --json` lists node ids", c.Thread, c.Node, c.Thread)
		}
	}
	return nil
}

func reject(reason RejectReason, format string, args ...any) *Rejection {
	return &Rejection{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// putThread emits a thread.updated for a changed copy.
func (t *tx) putThread(th Thread) {
	th.UpdatedAt = t.at
	t.emit(EvThreadUpdated, Event{Thread: th.ID, Payload: Payload{Thread: &th}})
}

// putRun emits a run.updated; a reply the run already holds is not
// journaled again (KeepText, as putNode).
func (t *tx) putRun(r Run) {
	keep := false
	if old := t.st.Runs[r.ID]; old != nil && r.Reply != "" && old.Reply == r.Reply {
		r.Reply, keep = "", true
	}
	t.emit(EvRunUpdated, Event{Thread: r.Thread, Run: r.ID, Correlation: r.ID, Payload: Payload{Run: &r, KeepText: keep}})
}

func (t *tx) putAttempt(a Attempt) {
	t.emit(EvAttemptUpdated, Event{Thread: a.Thread, Run: a.Run, Attempt: a.ID, Correlation: a.Run, Payload: Payload{Attempt: &a}})
}

// putNode emits a node.updated. When the node's text is the text it
// already holds, the event carries none (KeepText): a status change or a
// title does not journal a long reply again.
func (t *tx) putNode(n Node) {
	keep := false
	if old := t.st.Node(n.ID); old != nil && n.Text != "" && old.Text == n.Text {
		n.Text, keep = "", true
	}
	t.emit(EvNodeUpdated, Event{Thread: n.Thread, Run: n.Run, Attempt: n.Attempt, Node: n.ID, Correlation: n.Run,
		Payload: Payload{Node: &n, KeepText: keep}})
}

func (t *tx) putRequest(q Request) {
	t.emit(EvRequestUpdated, Event{Thread: q.Thread, Run: q.Run, Attempt: q.Attempt, Node: q.Node, Correlation: q.Run, Payload: Payload{Request: &q}})
}

// setSession moves a thread's session to a state through legal registry
// transitions, one event each. The correlation id is the run it serves.
func (t *tx) setSession(thread string, state SessionState, reason, corr string) {
	id := SessionID(thread)
	cur := t.st.Sessions[id]
	var from SessionState
	if cur != nil {
		from = cur.State
	}
	path := Path(from, state)
	for _, s := range path {
		th := t.st.Threads[thread]
		sess := Session{ID: id, Thread: thread, Provider: th.Provider, State: s, Reason: reason}
		t.emit(EvSessionUpdated, Event{Thread: thread, Correlation: corr, Payload: Payload{Session: &sess}})
	}
}

func (t *tx) sessionState(thread string) SessionState {
	if s := t.st.Sessions[SessionID(thread)]; s != nil {
		return s.State
	}
	return ""
}

// refreshThread recomputes a thread's status from its runs.
func (t *tx) refreshThread(thread string) {
	th := t.st.Threads[thread]
	if th == nil {
		return
	}
	status := ThreadIdle
	if th.Archived {
		status = ThreadArchived
	} else if r := t.st.ActiveRun(thread); r != nil {
		status = ThreadRunning
		if r.Status == RunWaiting {
			status = ThreadWaiting
		}
	} else if runs := t.st.RunsOf(thread); len(runs) > 0 {
		last := lastSettled(runs)
		if last != nil && last.Status == RunFailed {
			status = ThreadFailed
		}
	}
	if th.Status != status {
		c := *th
		c.Status = status
		t.putThread(c)
	}
	if th.Mission != "" {
		t.missionThread(thread)
	}
}

func lastSettled(runs []*Run) *Run {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Status != RunQueued {
			return runs[i]
		}
	}
	return nil
}

// Terminal reports whether a run status is final.
func Terminal(status RunStatus) bool {
	switch status {
	case RunCompleted, RunFailed, RunCancelled, RunRolledBack:
		return true
	case RunInterrupted:
		return true
	}
	return false
}
