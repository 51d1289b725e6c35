package core

import (
	"fmt"
	"strconv"
	"strings"
)

// A task's steps: its thread, its compiled turn, its verification's
// outcome, its retries.

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
