package core

import (
	"fmt"
	"strconv"
	"strings"
)

// EffMission is a mission's step outside the kernel (Effect.Op): make a
// worktree, run the verification, commit a task's work, merge it into
// the mission's worktree, read a change for the reviewer, apply the
// result to the base workspace. Each is journaled before it runs and can
// run again after a crash with the same result (a worktree is finished,
// a commit or merge already made is found), so recovery issues an
// unfinished one again.
const EffMission EffectKind = "mission"

// ObsMission reports how a mission step ended (Key, Mission, Task; Text:
// the worktree's workspace, the verifier's output or the diff; Exit;
// Commit; Changed: paths a commit changed; Error: why it could not be
// done).
const ObsMission ObsKind = "mission"

// Mission steps (Effect.Op).
const (
	OpWorktree = "worktree"
	OpVerify   = "verify"
	OpCommit   = "commit"
	OpMerge    = "merge"
	OpApply    = "apply"
	OpUndo     = "undo"
	// OpDiff reads the change to review: the diff from From (the
	// mission's Base) to Commit (a task's commit; "" for the HEAD of
	// the mission's worktree) in Workspace, bounded by MaxReviewDiff.
	OpDiff = "diff"
)

// EvMissionUpdated carries a mission, whole.
const EvMissionUpdated EventType = "mission.updated"

func (t *tx) putMission(m *Mission) {
	c := m.Clone()
	c.UpdatedAt = t.at
	t.emit(EvMissionUpdated, Event{Payload: Payload{Mission: c}})
}

// updMission changes the mission as it is in the state now and emits it.
func (t *tx) updMission(id string, fn func(m *Mission)) *Mission {
	m := t.st.Missions[id].Clone()
	fn(m)
	t.putMission(m)
	return t.st.Missions[id]
}

// inner runs a step of another command inside this pass (a task's
// thread.create and message.send) with a receipt of its own.
func (t *tx) inner(fn func() *Rejection) *Rejection {
	saved := t.receipt
	t.receipt = &Receipt{}
	rej := fn()
	t.receipt = saved
	return rej
}

func (t *tx) createMission(c *Command) *Rejection {
	m := c.NewMission.Clone()
	m.CreatedAt, m.Tasks, m.Checks, m.Votes, m.Winner = c.At, nil, nil, nil, ""
	m.ReviewThread, m.Review = "", ""
	if m.MaxAttempts <= 0 {
		m.MaxAttempts = DefaultMissionAttempts
	}
	t.receipt.Mission = m.ID
	switch m.Strategy {
	case StrategyRace:
		for i, a := range m.Agents {
			m.Tasks = append(m.Tasks, Task{ID: strconv.Itoa(i + 1), Text: m.Goal, Agent: a.Name, Status: TaskPending})
		}
		m.Status = MissionRunning
		t.putMission(m)
		t.startReady(m.ID)
	default:
		m.Status, m.PlanThread = MissionPlanning, PlanThreadID(m.ID)
		t.putMission(m)
		p := m.Planner
		if rej := t.inner(func() *Rejection {
			if rej := t.createThread(&Command{NewThread: m.PlanThread, Title: "plan: " + clip(m.Goal, 80), Provider: p.Provider, Caps: p.Caps,
				Workspace: m.Workspace, Agent: p.Agent, At: c.At}); rej != nil {
				return rej
			}
			t.linkThread(m.PlanThread, m.ID, "")
			return t.send(&Command{Thread: m.PlanThread, Text: planPrompt(m), At: c.At})
		}); rej != nil {
			return rej
		}
	}
	return nil
}

// linkThread records a thread's mission and task (the lineage both ways:
// the mission names its threads too).
func (t *tx) linkThread(id, mission, task string) {
	th := *t.st.Threads[id]
	th.Mission, th.Task = mission, task
	t.putThread(th)
}

// missionThread follows a mission's thread: when its run has ended, the
// planner's reply becomes the plan, a task's work is verified.
func (t *tx) missionThread(id string) {
	th := t.st.Threads[id]
	m := t.st.Missions[th.Mission]
	if m != nil && !m.Done() && id == ReviewThreadID(m.ID) {
		t.reviewsDone(m.ID)
		return
	}
	if m == nil || m.Done() || t.st.ActiveRun(id) != nil || t.recoverableRun(id) != nil {
		return
	}
	last := lastSettled(t.st.RunsOf(id))
	if last == nil || !Terminal(last.Status) {
		return
	}
	if id == m.PlanThread {
		if m.Status == MissionPlanning {
			t.planned(m, last)
		}
		return
	}
	tk := m.Task(th.Task)
	if tk == nil || tk.Status != TaskRunning || tk.Pending != "" || last.Ordinal < tk.Attempts {
		return
	}
	if last.Status == RunInterrupted || last.Status == RunCancelled || last.Status == RunRolledBack {
		// Someone stopped it: the task is cancelled, no retry behind
		// their back, and the mission goes on without it.
		t.updMission(m.ID, func(m *Mission) {
			tk := m.Task(tk.ID)
			tk.Status, tk.Error = TaskCancelled, fmt.Sprintf("run %d was %s", last.Ordinal, last.Status)
		})
		t.startReady(m.ID)
		return
	}
	if last.Status != RunCompleted {
		t.taskFailed(m.ID, tk.ID, 0, "", fmt.Sprintf("run %d %s: %s", last.Ordinal, last.Status, orDefault(last.Error, "no reason given")))
		return
	}
	if m.Verify == "" || m.Strategy != StrategyRace {
		// A split's task is one part of the goal: the verification
		// runs on the merged result.
		t.missionStep(m.ID, tk.ID, OpCommit)
		return
	}
	t.missionStep(m.ID, tk.ID, OpVerify)
}

// planned turns the planner's reply into the plan.
func (t *tx) planned(m *Mission, r *Run) {
	tasks := ParsePlan(r.Reply)
	if r.Status != RunCompleted || len(tasks) == 0 {
		why := "the planner proposed no tasks"
		if r.Status != RunCompleted {
			why = fmt.Sprintf("the planner's run %s: %s", r.Status, orDefault(r.Error, "no reason given"))
		}
		t.endMission(m.ID, MissionFailed, why+"; see its thread "+m.PlanThread)
		return
	}
	tasks = planTasks(tasks, m.Agents)
	t.updMission(m.ID, func(m *Mission) {
		m.Tasks, m.Status, m.AskedAt = tasks, MissionAwaitPlan, t.at
		if m.AutoApprove {
			m.Status, m.AskedAt = MissionRunning, 0
		}
	})
	if m.AutoApprove {
		t.startReady(m.ID)
	}
}

// startReady starts every pending task whose dependencies passed; when
// no task is left to run, the mission converges.
func (t *tx) startReady(id string) {
	m := t.st.Missions[id]
	if m.Status != MissionRunning || m.Question != "" {
		return
	}
	// A task whose dependency was cancelled cannot run: it is
	// cancelled too (tasks come after their dependencies, so one pass
	// carries it down the graph).
	t.updMissionIf(id, func(m *Mission) bool {
		changed := false
		for i := range m.Tasks {
			tk := &m.Tasks[i]
			for _, d := range tk.Deps {
				if dt := m.Task(d); tk.Status == TaskPending && dt != nil && dt.Status == TaskCancelled {
					tk.Status, tk.Error, changed = TaskCancelled, "task "+d+", which it needs, was cancelled", true
				}
			}
		}
		return changed
	})
	for _, tk := range t.st.Missions[id].Tasks {
		if tk.Status == TaskPending && t.depsPassed(m, &tk) {
			t.missionStep(id, tk.ID, OpWorktree)
		}
	}
	t.converge(id)
}

// updMissionIf is updMission when fn reports a change.
func (t *tx) updMissionIf(id string, fn func(m *Mission) bool) {
	m := t.st.Missions[id].Clone()
	if fn(m) {
		t.putMission(m)
	}
}

func (t *tx) depsPassed(m *Mission, tk *Task) bool {
	for _, d := range tk.Deps {
		if dt := m.Task(d); dt != nil && dt.Status != TaskPassed && dt.Status != TaskMerged {
			return false
		}
	}
	return true
}

// missionKey is a step's effect key.
func missionKey(mission, task, op string, n int) string {
	k := "mission/" + mission + "/"
	if task != "" {
		k += "t" + task + "/"
	}
	k += op
	if n > 0 {
		k += strconv.Itoa(n)
	}
	return k
}

// missionStep journals and issues one step of a task ("" for the
// mission's own steps) and marks it pending.
func (t *tx) missionStep(id, task, op string) {
	m := t.st.Missions[id]
	n := 0
	switch {
	case (op == OpVerify || op == OpDiff) && task != "":
		n = m.Task(task).Attempts
	case op == OpMerge:
		task, n = "", 0
	}
	key := missionKey(id, task, op, n)
	if op == OpMerge {
		key = missionKey(id, "", op, 0) + "/" + t.nextMerge(m)
	}
	t.updMission(id, func(m *Mission) {
		if tk := m.Task(task); tk != nil {
			tk.Pending = key
			switch op {
			case OpWorktree:
				tk.Status = TaskStarting
			case OpVerify, OpDiff:
				tk.Status = TaskVerifying
			}
		} else {
			m.Pending = key
		}
	})
	t.effect(t.missionEffect(t.st.Missions[id], key), true)
}

// nextMerge is the task a split merges next: the first passed task, in
// dependency order (tasks are numbered after their dependencies).
func (t *tx) nextMerge(m *Mission) string {
	for _, tk := range m.Tasks {
		if tk.Status == TaskPassed {
			return tk.ID
		}
	}
	return ""
}

// missionEffect builds the effect of a pending step from its key and
// the state, so recovery can issue it again.
func (t *tx) missionEffect(m *Mission, key string) Effect {
	rest := strings.TrimPrefix(key, "mission/"+m.ID+"/")
	task := ""
	if head, tail, ok := strings.Cut(rest, "/"); ok && len(head) > 1 && head[0] == 't' && strings.Trim(head[1:], "0123456789") == "" {
		task, rest = head[1:], tail
	}
	op, arg, _ := strings.Cut(rest, "/")
	op = strings.TrimRight(op, "0123456789")
	e := Effect{Key: key, Kind: EffMission, Class: ClassIdempotent, Op: op, Mission: m.ID, Task: task, Repo: m.Repo}
	tk := m.Task(task)
	switch op {
	case OpWorktree:
		e.Commit, e.Workspace = m.Base, m.Workspace
		if tk != nil {
			e.Thread, e.Text = TaskThreadID(m.ID, task), "nexus/"+TaskThreadID(m.ID, task)
		} else {
			e.Thread, e.Text = m.ID, "nexus/"+m.ID
		}
	case OpVerify:
		e.Class, e.Text, e.Workspace = ClassIrreversible, m.Verify, m.Worktree
		if tk != nil {
			e.Workspace = tk.Worktree
		}
	case OpCommit:
		// Commit is the base: the files changed are counted from it, so
		// a commit found made (a run again after a crash) counts the same.
		e.Workspace, e.Commit = tk.Worktree, m.Base
		e.Text = "nexus mission " + m.ID + " task " + task + ": " + clip(firstLineOf(tk.Text), 200)
	case OpMerge:
		e.Task, e.Workspace = arg, m.Worktree
		if mt := m.Task(arg); mt != nil {
			e.From = mt.Worktree
		}
	case OpUndo:
		// Commit is the merged result, Text the base it started from,
		// From the branch that was merged.
		e.Class, e.Workspace, e.Commit, e.Text, e.From = ClassReversible, m.Workspace, m.Applied, m.Base, m.Branch
		if w := m.Task(m.Winner); w != nil {
			e.From = w.Branch
		}
	case OpApply:
		e.Class, e.Workspace, e.From = ClassReversible, m.Workspace, m.Worktree
		if w := m.Task(m.Winner); w != nil {
			e.From = w.Worktree
		}
	case OpDiff:
		e.Workspace, e.From = m.Worktree, m.Base
		if tk != nil {
			e.Workspace, e.Commit = tk.Worktree, tk.Commit
		}
	}
	return e
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// observeMission takes a step's outcome.
func (t *tx) observeMission(o *Observation) {
	m := t.st.Missions[o.Mission]
	rec := t.st.Effect(o.Key)
	if m == nil || rec == nil || rec.Status != EffStarted {
		return // unknown, or already taken
	}
	status := EffCompleted
	if o.Error != "" {
		status = EffFailed
	}
	t.completeEffect(o.Key, status, orDefault(o.Error, clip(o.Text, 200)))
	e := t.missionEffect(m, o.Key)
	if e.Op == OpUndo {
		t.updMission(m.ID, func(m *Mission) {
			clearPending(m, o.Key)
			if o.Error != "" {
				m.Result = "the rollback failed: " + o.Error
				return
			}
			m.Status, m.Result = MissionRolledBack, "rolled back: the workspace's branch is at "+shortRef(o.Commit)+" again, as before the mission applied its result"
		})
		return
	}
	if m.Done() {
		t.updMission(m.ID, func(m *Mission) { clearPending(m, o.Key) })
		return
	}
	if e.Task != "" && e.Op != OpMerge {
		t.taskStepDone(m, e, o)
		return
	}
	t.missionStepDone(m, e, o)
}

func clearPending(m *Mission, key string) {
	if m.Pending == key {
		m.Pending = ""
	}
	for i := range m.Tasks {
		if m.Tasks[i].Pending == key {
			m.Tasks[i].Pending = ""
		}
	}
}
