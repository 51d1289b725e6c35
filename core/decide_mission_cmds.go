package core

import (
	"slices"
	"strings"
)

// The person's mission commands (stop, approve, vote, resume,
// rollback) and the recovery of unfinished steps.

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
