package core

import "fmt"

// The end of a mission's running phase: merge or vote, verify the
// merged result, apply, end.

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
