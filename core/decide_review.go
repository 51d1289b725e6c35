package core

import (
	"fmt"
	"strings"
)

// A mission's reviewer (doc.go, "Missions"): once a result to verify
// passed its verification command, or has none, the diff step (OpDiff)
// reads its change and the reviewer's thread gets a compiled review; the
// verdict in its reply is journaled as a check and decides as a
// verification command's exit would.

// reviewStepDone takes the change the diff step read and sends it to
// the reviewer: a race task's (task) or the merged result's ("").
func (t *tx) reviewStepDone(id, task string, o *Observation) {
	if o.Error != "" {
		if task != "" {
			t.taskFailed(id, task, 0, "", "cannot read its change for the review: "+o.Error)
			return
		}
		t.endMission(id, MissionFailed, "cannot read the merged change for the review: "+o.Error)
		return
	}
	t.sendReview(id, task, o.Text)
}

// sendReview sends the reviewer its compiled review, on its thread
// (made at the first review), queued behind the reviews before it, and
// records the run as the review in flight.
func (t *tx) sendReview(id, task, diff string) {
	m := t.st.Missions[id]
	rv, thread := m.Reviewer, ReviewThreadID(id)
	if t.st.Threads[thread] == nil {
		if rej := t.inner(func() *Rejection {
			if rej := t.createThread(&Command{NewThread: thread, Title: "review: " + clip(m.Goal, 80), Provider: rv.Provider, Caps: rv.Caps,
				Workspace: m.Workspace, Agent: rv.Agent, At: t.at}); rej != nil {
				return rej
			}
			t.linkThread(thread, id, ReviewTask)
			return nil
		}); rej != nil {
			t.verdict(id, task, false, "cannot make the reviewer's thread: "+rej.Detail)
			return
		}
	}
	if m.ReviewThread != thread {
		m = t.updMission(id, func(m *Mission) { m.ReviewThread = thread })
	}
	secs := t.compileReview(m, task, diff)
	run := ""
	if rej := t.inner(func() *Rejection {
		rej := t.send(&Command{Thread: thread, Text: CompileText(secs), Mode: ModeQueue, At: t.at})
		if rej == nil && t.receipt.Run != "" {
			r := *t.st.Runs[t.receipt.Run]
			r.Context = secs
			t.putRun(r)
			run = r.ID
		}
		return rej
	}); rej != nil || run == "" {
		why := "the reviewer's thread took no review"
		if rej != nil {
			why = "cannot send the reviewer its review: " + rej.Detail
		}
		t.verdict(id, task, false, why)
		return
	}
	t.updMission(id, func(m *Mission) {
		if tk := m.Task(task); tk != nil {
			tk.Review = run
		} else {
			m.Review = run
		}
	})
}

// compileReview is a review's context: agent (the reviewer's identity
// when it is one), project (where the change is, the conventions), task
// (the goal, the work under review), runtime (the change), and last the
// instruction (ReviewPrompt).
func (t *tx) compileReview(m *Mission, task, diff string) []Section {
	var secs []Section
	if a := m.Reviewer; a.Agent != "" {
		if ag := t.st.AgentByAlias(a.Agent); ag != nil {
			secs = append(secs, Section{Source: "agent", Title: "Agent", Text: "You are @" + ag.Alias + " (" + ag.Profile + "), the mission's reviewer."})
		}
	}
	tk := m.Task(task)
	where, branch := m.Worktree, "nexus/"+m.ID
	if tk != nil {
		where, branch = tk.Worktree, tk.Branch
	}
	proj := "The change is on branch " + branch + " (worktree " + where + ") of " + m.Repo + ", from commit " + shortRef(m.Base) + "."
	if m.Conventions != "" {
		proj += "\nConventions:\n" + m.Conventions
	}
	secs = append(secs, Section{Source: "project", Title: "Project", Text: proj})
	var b strings.Builder
	fmt.Fprintf(&b, "Mission %s (%s). Goal: %s", m.ID, m.Strategy, m.Goal)
	if m.Verify != "" {
		fmt.Fprintf(&b, "\nThe change passed the verification command: %s", m.Verify)
	}
	secs = append(secs, Section{Source: "task", Title: "Mission", Text: b.String()})
	b.Reset()
	if tk != nil {
		fmt.Fprintf(&b, "Task %s of %d, done by %s (attempt %d): %s", tk.ID, len(m.Tasks), tk.Agent, tk.Attempts, tk.Text)
	} else {
		b.WriteString("The merged result of the mission's tasks:")
		for _, tk := range m.Tasks {
			if tk.Status == TaskMerged {
				fmt.Fprintf(&b, "\n- task %s, done by %s: %s", tk.ID, tk.Agent, clip(tk.Text, 1<<10))
			}
		}
	}
	secs = append(secs, Section{Source: "task", Title: "Under review", Text: b.String()})
	secs = append(secs, Section{Source: "runtime", Title: "Change", Text: orDefault(clip(diff, MaxReviewDiff), "(no change)")})
	return append(secs, Section{Source: "task", Title: "Task", Text: "Task: " + ReviewPrompt + " " + reviewFormat})
}

// reviewsDone takes the verdict of every review of the mission whose
// run has ended (one a restart cut off waits for mission resume).
// Reviews queue on one thread, so the one that ended need not be its
// latest run.
func (t *tx) reviewsDone(id string) {
	for _, tk := range t.st.Missions[id].Tasks {
		m := t.st.Missions[id]
		if cur := m.Task(tk.ID); cur == nil || cur.Review == "" || m.Done() {
			continue
		}
		if r := t.endedReview(m.Task(tk.ID).Review); r != nil {
			pass, reasons := reviewOutcome(r)
			t.verdict(id, tk.ID, pass, reasons)
		}
	}
	if m := t.st.Missions[id]; m.Review != "" && !m.Done() {
		if r := t.endedReview(m.Review); r != nil {
			pass, reasons := reviewOutcome(r)
			t.verdict(id, "", pass, reasons)
		}
	}
}

// endedReview is a review's run once it has ended, or nil.
func (t *tx) endedReview(run string) *Run {
	r := t.st.Runs[run]
	if r == nil || r.Status == RunQueued || !Terminal(r.Status) || r.Recoverable {
		return nil
	}
	return r
}

// reviewOutcome is a reviewer's verdict from its run: a run that did not
// complete is a FAIL that says why.
func reviewOutcome(r *Run) (bool, string) {
	if r.Status == RunCompleted {
		return ParseVerdict(r.Reply)
	}
	return false, fmt.Sprintf("the reviewer's run %d %s: %s", r.Ordinal, r.Status, orDefault(r.Error, "no reason given"))
}

// verdict journals a reviewer's verdict as a check of the task ("" for
// the merged result) and moves on as the verification command's exit
// would: PASS passes the task (in a race, the reviewer's vote for it) or
// applies the merged result; FAIL goes back to the task's thread, or to
// every task's, with the reasons.
func (t *tx) verdict(id, task string, pass bool, reasons string) {
	m := t.st.Missions[id]
	name := "@" + m.Reviewer.Name
	check := Check{Command: name, Passed: pass, Output: clipOutput(reasons), Review: true}
	if !pass {
		check.Exit = 1
	}
	if tk := m.Task(task); tk != nil {
		check.Attempt = tk.Attempts
		t.updMission(id, func(m *Mission) {
			tk := m.Task(task)
			tk.Review, tk.Checks = "", append(tk.Checks, check)
			if pass {
				tk.Status, tk.Error = TaskPassed, ""
				if m.Strategy == StrategyRace {
					why := "passed its review"
					if r := firstLineOf(check.Output); r != "" {
						why += ": " + clip(r, 200)
					}
					m.Votes = append(m.Votes, Vote{Voter: name, Task: task, Reason: why})
				}
			}
		})
		if pass {
			t.startReady(id)
			return
		}
		why := "the reviewer " + name + " failed it"
		text := fmt.Sprintf("Attempt %d failed: %s.\n%s's verdict: FAIL: %s\nFix it and do the task again.", tk.Attempts, why, name, check.Output)
		t.taskRetry(id, task, why+": "+clip(firstLineOf(check.Output), 200), Section{Source: "runtime", Title: "Reviewer", Text: text})
		return
	}
	m = t.updMission(id, func(m *Mission) { m.Review, m.Checks = "", append(m.Checks, check) })
	if pass {
		t.missionStep(id, "", OpApply)
		return
	}
	t.mergedFailed(m, check)
}

// verifiedMerged moves the merged result on once its verification
// command passed or when it has none: to the reviewer when the mission
// has one, else to the apply.
func (t *tx) verifiedMerged(id string) {
	if m := t.st.Missions[id]; m.Reviewer != nil && m.Strategy != StrategyRace {
		t.missionStep(id, "", OpDiff)
		return
	}
	t.missionStep(id, "", OpApply)
}

// failedChecks counts the failed checks: one per failed round of the
// merged result, whether its command or its reviewer failed it.
func failedChecks(cs []Check) int {
	n := 0
	for _, c := range cs {
		if !c.Passed {
			n++
		}
	}
	return n
}
