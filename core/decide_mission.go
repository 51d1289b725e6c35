package core

import (
	"fmt"
	"slices"
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

// taskStepDone moves a task on after one of its steps.
func (t *tx) taskStepDone(m *Mission, e Effect, o *Observation) {
	id, task := m.ID, e.Task
	t.updMission(id, func(m *Mission) { clearPending(m, e.Key) })
	tk := t.st.Missions[id].Task(task)
	switch e.Op {
	case OpWorktree:
		if o.Error != "" {
			t.taskFailed(id, task, 0, "", "cannot make its worktree: "+o.Error)
			return
		}
		t.startTask(id, task, o.Text)
	case OpVerify:
		check := Check{Attempt: tk.Attempts, Command: e.Text, Exit: o.Exit, Passed: o.Error == "" && o.Exit == 0, Output: clipOutput(o.Text)}
		if o.Error != "" {
			check.Exit, check.Output = -1, clipOutput(o.Error)
		}
		t.updMission(id, func(m *Mission) {
			m.Task(task).Checks = append(m.Task(task).Checks, check)
		})
		if check.Passed {
			t.missionStep(id, task, OpCommit)
			return
		}
		t.taskFailed(id, task, check.Exit, check.Output, "verification failed")
	case OpCommit:
		if o.Error != "" {
			t.taskFailed(id, task, 0, "", "cannot commit its work: "+o.Error)
			return
		}
		if m.Reviewer != nil && m.Strategy == StrategyRace {
			// The reviewer passes it (or not) once it has read the
			// committed change.
			t.updMission(id, func(m *Mission) {
				tk := m.Task(task)
				tk.Commit, tk.Files = o.Commit, o.Changed
			})
			t.missionStep(id, task, OpDiff)
			return
		}
		t.updMission(id, func(m *Mission) {
			tk := m.Task(task)
			tk.Status, tk.Commit, tk.Files, tk.Error = TaskPassed, o.Commit, o.Changed, ""
		})
		t.startReady(id)
	case OpDiff:
		t.reviewStepDone(id, task, o)
	}
}

// startTask makes the task's thread in its worktree and sends it the
// compiled task.
func (t *tx) startTask(id, task, workspace string) {
	m := t.st.Missions[id]
	tk := m.Task(task)
	a := m.AgentNamed(tk.Agent)
	thread := TaskThreadID(id, task)
	t.updMission(id, func(m *Mission) {
		tk := m.Task(task)
		tk.Thread, tk.Worktree, tk.Branch, tk.Status, tk.Attempts = thread, workspace, "nexus/"+thread, TaskRunning, 1
	})
	if t.st.Threads[thread] == nil {
		t.inner(func() *Rejection {
			return t.createThread(&Command{NewThread: thread, Title: "task " + task + ": " + clip(firstLineOf(tk.Text), 60), Provider: a.Provider,
				Caps: a.Caps, Workspace: workspace, Worktree: workspace, Repo: m.Repo, Branch: "nexus/" + thread, Agent: a.Agent,
				Allow: m.Allow, BudgetUSD: m.BudgetUSD, At: t.at})
		})
		t.linkThread(thread, id, task)
	}
	t.sendTask(id, task, nil)
}

// sendTask sends the task's compiled context to its thread: the first
// attempt, or (runtime) a retry with the verifier's output.
func (t *tx) sendTask(id, task string, runtime []Section) {
	m := t.st.Missions[id]
	tk := m.Task(task)
	secs := t.compileTask(m, tk, runtime)
	t.inner(func() *Rejection {
		rej := t.send(&Command{Thread: tk.Thread, Text: CompileText(secs), Mode: ModeQueue, At: t.at})
		if rej == nil && t.receipt.Run != "" {
			r := *t.st.Runs[t.receipt.Run]
			r.Context = secs
			t.putRun(r)
		}
		return rej
	})
}

// compileTask is a task turn's context: agent, project, task (the goal,
// the task, what its dependencies did), runtime.
func (t *tx) compileTask(m *Mission, tk *Task, runtime []Section) []Section {
	var secs []Section
	if a := m.AgentNamed(tk.Agent); a != nil && a.Agent != "" {
		if ag := t.st.AgentByAlias(a.Agent); ag != nil {
			secs = append(secs, Section{Source: "agent", Title: "Agent", Text: "You are @" + ag.Alias + " (" + ag.Profile + ")."})
		}
	}
	proj := "Workspace: " + tk.Worktree + ", your own git worktree of " + m.Repo + ", from commit " + shortRef(m.Base) + ", on branch nexus/" + TaskThreadID(m.ID, tk.ID) + "."
	if m.Conventions != "" {
		proj += "\nConventions:\n" + m.Conventions
	}
	secs = append(secs, Section{Source: "project", Title: "Project", Text: proj})
	var b strings.Builder
	fmt.Fprintf(&b, "Mission %s (%s, task %s of %d). Goal: %s", m.ID, m.Strategy, tk.ID, len(m.Tasks), m.Goal)
	for _, d := range tk.Deps {
		if dt := m.Task(d); dt != nil && dt.Thread != "" {
			reply := ""
			if r := lastSettled(t.st.RunsOf(dt.Thread)); r != nil {
				reply = clip(r.Reply, 2<<10)
			}
			fmt.Fprintf(&b, "\nTask %s (%s) is done: %s", d, clip(firstLineOf(dt.Text), 200), reply)
		}
	}
	if m.Verify != "" {
		fmt.Fprintf(&b, "\nYour work is checked with: %s", m.Verify)
	}
	secs = append(secs, Section{Source: "task", Title: "Mission", Text: b.String()})
	secs = append(secs, runtime...)
	return append(secs, Section{Source: "task", Title: "Task", Text: "Task: " + tk.Text})
}

func shortRef(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// taskFailed retries a task with what went wrong while it has attempts
// left; then a race goes on without it, and a split asks the person.
func (t *tx) taskFailed(id, task string, exit int, output, why string) {
	m := t.st.Missions[id]
	text := "Attempt " + strconv.Itoa(m.Task(task).Attempts) + " failed: " + why + "."
	if output != "" || exit != 0 {
		text += fmt.Sprintf("\n`%s` exited %d:\n%s", m.Verify, exit, output)
	}
	t.taskRetry(id, task, why, Section{Source: "runtime", Title: "Verifier", Text: text + "\nFix it and do the task again."})
}

// taskRetry sends a failed task's thread what went wrong (runtime) as
// its next run while it has attempts left; then it gives up.
func (t *tx) taskRetry(id, task, why string, runtime Section) {
	m := t.st.Missions[id]
	tk := m.Task(task)
	if tk.Attempts < m.MaxAttempts && tk.Thread != "" {
		t.updMission(id, func(m *Mission) {
			tk := m.Task(task)
			tk.Status, tk.Attempts, tk.Error = TaskRunning, tk.Attempts+1, why
		})
		t.sendTask(id, task, []Section{runtime})
		return
	}
	t.taskGaveUp(id, task, why)
}

// taskGaveUp fails a task for good: a race goes on without it, a split
// asks the person.
func (t *tx) taskGaveUp(id, task, why string) {
	t.updMission(id, func(m *Mission) {
		tk := m.Task(task)
		tk.Status, tk.Error = TaskFailed, why
		if m.Strategy != StrategyRace {
			m.AskedAt = t.at
			m.Question = fmt.Sprintf("task %s failed %d times (%s): approve to give it one more attempt, or stop the mission", task, tk.Attempts, why)
		}
	})
	t.converge(id)
}

// converge ends the running phase once every task is settled: a split
// merges its tasks, a race votes.
func (t *tx) converge(id string) {
	m := t.st.Missions[id]
	if m.Status != MissionRunning || m.Question != "" || m.Pending != "" {
		return
	}
	var passed []Task
	for _, tk := range m.Tasks {
		switch tk.Status {
		case TaskPassed, TaskMerged:
			passed = append(passed, tk)
		case TaskFailed, TaskCancelled:
		default:
			return // still working
		}
	}
	if len(passed) == 0 {
		t.endMission(id, MissionFailed, "no task passed")
		return
	}
	if m.Strategy == StrategyRace {
		t.vote(id, passed)
		return
	}
	t.updMission(id, func(m *Mission) { m.Status = MissionConverging })
	if m.Worktree != "" {
		t.mergeNext(id) // a retry: the worktree holds the earlier merges
		return
	}
	t.missionStep(id, "", OpWorktree)
}

// vote chooses a race's winner: each vote is journaled; nexus votes
// for the passing task with the smallest diff, and the person's vote
// (mission vote) counts the same; ties go to the smaller diff.
func (t *tx) vote(id string, passed []Task) {
	best := passed[0]
	for _, tk := range passed[1:] {
		if tk.Files < best.Files {
			best = tk
		}
	}
	m := t.updMission(id, func(m *Mission) {
		m.Status = MissionConverging
		m.Votes = append(m.Votes, Vote{Voter: "nexus", Task: best.ID, Reason: fmt.Sprintf("passed verification with the smallest diff (%d files)", best.Files)})
	})
	count := map[string]int{}
	for _, v := range m.Votes {
		count[v.Task]++
	}
	winner := best
	for _, tk := range passed {
		if count[tk.ID] > count[winner.ID] || count[tk.ID] == count[winner.ID] && tk.Files < winner.Files {
			winner = tk
		}
	}
	t.updMission(id, func(m *Mission) { m.Winner = winner.ID })
	t.missionStep(id, "", OpApply)
}

// missionStepDone moves the mission on after one of its own steps.
func (t *tx) missionStepDone(m *Mission, e Effect, o *Observation) {
	id := m.ID
	t.updMission(id, func(m *Mission) { clearPending(m, e.Key) })
	switch e.Op {
	case OpWorktree:
		if o.Error != "" {
			t.endMission(id, MissionFailed, "cannot make the mission's worktree: "+o.Error)
			return
		}
		t.updMission(id, func(m *Mission) { m.Worktree, m.Branch = o.Text, "nexus/"+id })
		t.mergeNext(id)
	case OpMerge:
		if o.Error != "" {
			// A conflict (or any failed merge) is the person's to
			// settle: fix it in the mission's worktree and approve (the
			// merge runs again), or stop the mission.
			t.updMission(id, func(m *Mission) {
				m.AskedAt = t.at
				m.Question = "merging task " + e.Task + " into the mission's worktree " + m.Worktree + " failed (" + clip(o.Error, 500) +
					"): merge it there by hand and approve, or stop the mission"
			})
			return
		}
		t.updMission(id, func(m *Mission) { m.Task(e.Task).Status = TaskMerged })
		t.mergeNext(id)
	case OpVerify:
		check := Check{Command: e.Text, Exit: o.Exit, Passed: o.Error == "" && o.Exit == 0, Output: clipOutput(orDefault(o.Error, o.Text))}
		m := t.updMission(id, func(m *Mission) { m.Checks = append(m.Checks, check) })
		if !check.Passed {
			t.mergedFailed(m, check)
			return
		}
		t.verifiedMerged(id)
	case OpDiff:
		t.reviewStepDone(id, "", o)
	case OpApply:
		if o.Error != "" {
			t.endMission(id, MissionFailed, "applying the result to "+m.Workspace+" failed: "+o.Error)
			return
		}
		t.updMission(id, func(m *Mission) { m.Applied = o.Commit })
		what := "the merged tasks"
		if m.Winner != "" {
			what = "task " + m.Winner + "'s result"
		}
		t.endMission(id, MissionCompleted, what+" applied to "+m.Workspace)
	}
}

// mergedFailed sends the verifier's output to every task's thread for
// another attempt while the mission has attempts left; then it asks the
// person.
func (t *tx) mergedFailed(m *Mission, check Check) {
	if n := failedChecks(m.Checks); n >= m.MaxAttempts {
		last := fmt.Sprintf("exit %d", check.Exit)
		if check.Review {
			last = "the last by the reviewer " + check.Command
		}
		t.updMission(m.ID, func(m *Mission) {
			m.Status, m.AskedAt = MissionRunning, t.at
			m.Question = fmt.Sprintf("the merged result failed verification %d times (%s; the mission's worktree %s keeps it): approve to give every task one more attempt, or stop the mission",
				n, last, m.Worktree)
		})
		return
	}
	text := fmt.Sprintf("The merged result of all tasks failed verification: `%s` exited %d:\n%s\nFix your part and do the task again.", check.Command, check.Exit, check.Output)
	title := "Verifier"
	if check.Review {
		text = fmt.Sprintf("The reviewer %s failed the merged result of all tasks: FAIL: %s\nFix your part and do the task again.", check.Command, check.Output)
		title = "Reviewer"
	}
	t.retryAll(m.ID, []Section{{Source: "runtime", Title: title, Text: text}})
}

// retryAll gives every task with a thread one more attempt.
func (t *tx) retryAll(id string, runtime []Section) {
	t.updMission(id, func(m *Mission) {
		m.Status, m.Question = MissionRunning, ""
		for i := range m.Tasks {
			if tk := &m.Tasks[i]; tk.Thread != "" {
				tk.Status, tk.Attempts = TaskRunning, tk.Attempts+1
			} else if tk.Status == TaskFailed {
				tk.Status, tk.Attempts = TaskPending, 0
			}
		}
	})
	for _, tk := range t.st.Missions[id].Tasks {
		if tk.Thread != "" {
			t.sendTask(id, tk.ID, runtime)
		}
	}
	t.startReady(id)
}

// mergeNext merges the next passed task into the mission's worktree, or
// verifies the merged result once all are in.
func (t *tx) mergeNext(id string) {
	m := t.st.Missions[id]
	if t.nextMerge(m) != "" {
		t.missionStep(id, "", OpMerge)
		return
	}
	t.updMission(id, func(m *Mission) { m.Status = MissionVerifying })
	if m.Verify == "" || m.Strategy == StrategyRace {
		t.verifiedMerged(id)
		return
	}
	t.missionStep(id, "", OpVerify)
}

// endMission ends a mission; its threads stay (race losers archived).
func (t *tx) endMission(id string, status MissionStatus, result string) {
	m := t.updMission(id, func(m *Mission) { m.Status, m.Result, m.Question, m.EndedAt = status, result, "", t.at })
	if status != MissionCompleted || m.Winner == "" {
		return
	}
	for _, tk := range m.Tasks {
		if tk.ID != m.Winner && tk.Thread != "" && !t.st.Threads[tk.Thread].Archived && t.st.ActiveRun(tk.Thread) == nil {
			t.inner(func() *Rejection { return t.archiveThread(&Command{Thread: tk.Thread}) })
		}
	}
}

// stopMission cancels a mission: every thread of it is stopped depth
// first (its tasks, then the planner), each holding its queue.
func (t *tx) stopMission(c *Command) *Rejection {
	m := t.st.Missions[c.Mission]
	if m.Done() {
		return reject(ReasonInvalidState, "mission %s is already %s", m.ID, m.Status)
	}
	threads := []string{}
	for i := len(m.Tasks) - 1; i >= 0; i-- {
		if th := m.Tasks[i].Thread; th != "" {
			threads = append(threads, th)
		}
	}
	if m.ReviewThread != "" {
		threads = append(threads, m.ReviewThread)
	}
	if m.PlanThread != "" {
		threads = append(threads, m.PlanThread)
	}
	t.updMission(m.ID, func(m *Mission) {
		m.Status, m.Result, m.Question, m.EndedAt = MissionCancelled, "stopped by the person", "", t.at
		for i := range m.Tasks {
			if tk := &m.Tasks[i]; tk.Status != TaskPassed && tk.Status != TaskMerged && tk.Status != TaskFailed {
				tk.Status = TaskCancelled
			}
		}
	})
	for _, th := range threads {
		if t.st.Threads[th] != nil {
			t.inner(func() *Rejection { return t.interrupt(&Command{Thread: th}, true, true) })
		}
	}
	return nil
}

// approveMission starts a proposed plan, or answers the mission's
// question with one more attempt of each failed task.
func (t *tx) approveMission(c *Command) *Rejection {
	m := t.st.Missions[c.Mission]
	switch {
	case m.Status == MissionConverging && m.Question != "":
		t.updMission(m.ID, func(m *Mission) { m.Question = "" })
		t.mergeNext(m.ID) // a merge the person settled is found merged
	case m.Status == MissionAwaitPlan:
		t.updMission(m.ID, func(m *Mission) {
			m.Status = MissionRunning
			if c.NewMission != nil {
				// The person edited the plan: their tasks, assigned to
				// the agents in turn as a proposed plan's are.
				m.Tasks = planTasks(c.NewMission.Tasks, m.Agents)
			}
		})
		t.startReady(m.ID)
	case c.NewMission != nil:
		return reject(ReasonInvalidState, "mission %s is %s: only a plan waiting for approval can be edited", m.ID, m.Status)
	case m.Question != "" && failedChecks(m.Checks) >= m.MaxAttempts && !slices.ContainsFunc(m.Tasks, func(tk Task) bool { return tk.Status == TaskFailed }):
		t.updMission(m.ID, func(m *Mission) { m.MaxAttempts = failedChecks(m.Checks) + 1 })
		t.retryAll(m.ID, []Section{{Source: "runtime", Title: "Person", Text: "The person asked for one more attempt after the merged result failed verification:\n" + m.Checks[len(m.Checks)-1].Output}})
	case m.Question != "":
		t.updMission(m.ID, func(m *Mission) { m.Question = "" })
		for _, tk := range m.Tasks {
			if tk.Status != TaskFailed {
				continue
			}
			t.updMission(m.ID, func(m *Mission) {
				tk := m.Task(tk.ID)
				tk.Status, tk.Attempts = TaskRunning, tk.Attempts+1
			})
			if tk.Thread == "" {
				t.updMission(m.ID, func(m *Mission) { m.Task(tk.ID).Status, m.Task(tk.ID).Attempts = TaskPending, 0 })
				continue
			}
			t.sendTask(m.ID, tk.ID, []Section{{Source: "runtime", Title: "Person", Text: "The person asked for one more attempt after: " + tk.Error}})
		}
		t.startReady(m.ID)
	default:
		return reject(ReasonInvalidState, "mission %s is %s: nothing to approve", m.ID, m.Status)
	}
	return nil
}

// voteMission records the person's vote for a race's task; it counts
// when the race converges.
func (t *tx) voteMission(c *Command) *Rejection {
	m := t.st.Missions[c.Mission]
	if m.Strategy != StrategyRace || m.Done() {
		return reject(ReasonInvalidState, "mission %s is a %s mission, %s: only a running race takes votes", m.ID, m.Strategy, m.Status)
	}
	if m.Task(c.Task) == nil {
		return reject(ReasonInvalidState, "mission %s has no task %q", m.ID, c.Task)
	}
	t.updMission(m.ID, func(m *Mission) { m.Votes = append(m.Votes, Vote{Voter: "person", Task: c.Task}) })
	return nil
}

// resumeMission continues a mission's threads a restart cut off.
func (t *tx) resumeMission(c *Command) *Rejection {
	m := t.st.Missions[c.Mission]
	threads := []string{m.PlanThread}
	for _, tk := range m.Tasks {
		threads = append(threads, tk.Thread)
	}
	threads = append(threads, m.ReviewThread)
	n := 0
	for _, th := range threads {
		if th != "" && t.st.Threads[th] != nil && t.recoverableRun(th) != nil {
			if t.inner(func() *Rejection { return t.resume(&Command{Thread: th}) }) == nil {
				n++
			}
		}
	}
	if n == 0 && m.Pending == "" && !slices.ContainsFunc(m.Tasks, func(tk Task) bool { return tk.Pending != "" }) {
		t.missionThreadsAll(m.ID)
	}
	return nil
}

// missionThreadsAll looks at every thread of a mission again.
func (t *tx) missionThreadsAll(id string) {
	m := t.st.Missions[id]
	if m.PlanThread != "" && t.st.Threads[m.PlanThread] != nil {
		t.missionThread(m.PlanThread)
	}
	for _, tk := range t.st.Missions[id].Tasks {
		if tk.Thread != "" && t.st.Threads[tk.Thread] != nil {
			t.missionThread(tk.Thread)
		}
	}
	if rt := t.st.Missions[id].ReviewThread; rt != "" && t.st.Threads[rt] != nil {
		t.missionThread(rt)
	}
	t.startReady(id)
}

// recoverMissions issues again every mission step a restart cut off
// (each is idempotent).
func (t *tx) recoverMissions() {
	for _, id := range sortedKeys(t.st.Missions) {
		m := t.st.Missions[id]
		if m.Done() && !strings.HasSuffix(m.Pending, "/"+OpUndo) {
			continue
		}
		keys := []string{m.Pending}
		for _, tk := range m.Tasks {
			keys = append(keys, tk.Pending)
		}
		for _, k := range keys {
			if rec := t.st.Effect(k); k != "" && rec != nil && rec.Status == EffStarted {
				t.effect(t.missionEffect(m, k), false)
			}
		}
	}
}

// rollbackMission takes a completed mission's result out of its base
// workspace: one step (OpUndo) that moves the branch back to where it
// was before the apply. It refuses what it cannot do.
func (t *tx) rollbackMission(c *Command) *Rejection {
	m := t.st.Missions[c.Mission]
	switch {
	case m.Status == MissionRolledBack:
		return reject(ReasonInvalidState, "mission %s is already rolled back", m.ID)
	case m.Status != MissionCompleted || m.Applied == "":
		return reject(ReasonInvalidState, "mission %s is %s: only a completed mission's result can be rolled back", m.ID, m.Status)
	case m.Pending != "":
		return reject(ReasonInvalidState, "mission %s is rolling back already", m.ID)
	}
	t.missionStep(m.ID, "", OpUndo)
	return nil
}
