package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
)

// sectionOf is the text of a run's context section of a title.
func sectionOf(ctx []core.Section, title string) string {
	for _, s := range ctx {
		if s.Title == title {
			return s.Text
		}
	}
	return ""
}

// A race of three built-in agents with a reviewer and no command: the
// reviewer fails the one made to write the wrong thing (its reasons
// reach the task's thread as its next message), passes the others and
// votes for them; nexus votes too; the winner is applied.
func TestMissionReviewRace(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	e.must("agent", "add", "careful")
	e.must("agent", "add", "sloppy", "--instructions", "Work fast. #wrong")
	r := e.missionRun("mission", "new", "write hello to a.txt", "--strategy", "race", "--agents", "builtin,sloppy,careful",
		"--reviewer", "builtin", "--attempts", "2", "--yes", "--wait")
	if r.code != 0 {
		t.Fatalf("race: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	id := strings.Fields(r.out)[0]
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 3 || m.Reviewer != "builtin" || m.ReviewThread != core.ReviewThreadID(id) {
		t.Fatalf("race: %+v", m)
	}
	const failed = `the change writes "wrong" instead of what the task asks`
	bad := m.Tasks[1]
	if bad.Agent != "sloppy" || bad.Status != core.TaskFailed || len(bad.Checks) != 2 {
		t.Fatalf("the sloppy agent's task: %+v", bad)
	}
	for _, c := range bad.Checks {
		if !c.Review || c.Passed || c.Command != "@builtin" || c.Exit != 1 || !strings.HasPrefix(c.Output, failed) {
			t.Fatalf("the sloppy task's check: %+v", c)
		}
	}
	// The reviewer's reasons went back to the task's thread as its next
	// message, as a failed command's output does.
	runs := e.show(bad.Thread).Runs
	if len(runs) != 2 || !strings.Contains(sectionOf(runs[1].Context, "Reviewer"), "@builtin's verdict: FAIL: "+failed) ||
		runs[1].Text != core.CompileText(runs[1].Context) {
		t.Fatalf("the sloppy task's second run did not carry the reviewer's reasons: %+v", runs)
	}
	for _, i := range []int{0, 2} {
		tk := m.Tasks[i]
		if tk.Status != core.TaskPassed || len(tk.Checks) != 1 || !tk.Checks[0].Review || !tk.Checks[0].Passed ||
			!strings.HasPrefix(tk.Checks[0].Output, "the change does what the task asks") {
			t.Fatalf("task %s: %+v", tk.ID, tk)
		}
	}
	// The votes: the reviewer's for each task it passed, then nexus's;
	// the winner has the most.
	votes := map[string]bool{}
	for _, v := range m.Votes {
		votes[v.Voter+">"+v.Task] = true
	}
	if len(m.Votes) != 3 || !votes["@builtin>1"] || !votes["@builtin>3"] || !votes["nexus>"+m.Winner] || m.Winner == "2" {
		t.Fatalf("winner %q votes %+v", m.Winner, m.Votes)
	}
	journaled := false
	for _, s := range e.missionEvents(id) {
		if len(s.Votes) == 3 && s.Votes[2].Voter == "nexus" && s.Votes[0].Voter == "@builtin" {
			journaled = true
		}
	}
	if !journaled {
		t.Fatal("no journaled mission event holds the reviewer's and nexus's votes")
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "hello\n" {
		t.Fatalf("a.txt = %q after the race", got)
	}
	if log := e.git("log", "--format=%s"); strings.Count(log, "nexus mission") != 1 {
		t.Fatalf("more than the winner's commit reached the workspace:\n%s", log)
	}
	// The reviewer's thread: one review per result, each compiled from
	// the goal, the task and its change.
	rv := e.show(m.ReviewThread)
	if rv.Mission != id || rv.Task != core.ReviewTask || len(rv.Runs) != 4 {
		t.Fatalf("the reviewer's thread: mission %q task %q, %d runs", rv.Mission, rv.Task, len(rv.Runs))
	}
	wrong := 0
	for _, run := range rv.Runs {
		change := sectionOf(run.Context, "Change")
		if run.Status != core.RunCompleted || !strings.Contains(sectionOf(run.Context, "Mission"), "Goal: write hello to a.txt") ||
			!strings.Contains(sectionOf(run.Context, "Under review"), "write hello to a.txt") || !strings.Contains(change, "A a.txt (+1 -0)") ||
			!strings.HasPrefix(sectionOf(run.Context, "Task"), "Task: "+core.ReviewPrompt) {
			t.Fatalf("a review run: %+v", run)
		}
		if strings.Contains(change, "+wrong") {
			wrong++
			if !strings.HasPrefix(run.Reply, "FAIL: "+failed) {
				t.Fatalf("the review of a wrong change: %q", run.Reply)
			}
		} else if !strings.HasPrefix(run.Reply, "PASS: ") || !strings.Contains(change, "+hello") {
			t.Fatalf("the review of a good change: %q\n%s", run.Reply, change)
		}
	}
	if wrong != 2 {
		t.Fatalf("%d reviews of the wrong change; want 2", wrong)
	}
}

// A split with a reviewer: the merged result of both tasks is reviewed
// and passes, the review is a check of the mission, and the result is
// applied.
func TestMissionReviewSplit(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	r := e.missionRun("mission", "new", "write hello to a.txt and write world to b.txt", "--reviewer", "builtin", "--yes", "--wait")
	if r.code != 0 {
		t.Fatalf("split: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	id := strings.Fields(r.out)[0]
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 2 || len(m.Checks) != 1 {
		t.Fatalf("split: %+v", m)
	}
	if c := m.Checks[0]; !c.Review || !c.Passed || c.Command != "@builtin" || c.Attempt != 0 || !strings.HasPrefix(c.Output, "the change does what the task asks") {
		t.Fatalf("the merged result's check: %+v", c)
	}
	for _, tk := range m.Tasks {
		if tk.Status != core.TaskMerged || len(tk.Checks) != 0 {
			t.Fatalf("task %s: %+v", tk.ID, tk)
		}
	}
	if readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" || readFile(t, filepath.Join(e.ws, "b.txt")) != "world\n" {
		t.Fatal("the merged result was not applied")
	}
	rv := e.show(m.ReviewThread)
	if rv.Mission != id || rv.Task != core.ReviewTask || len(rv.Runs) != 1 {
		t.Fatalf("the reviewer's thread: mission %q task %q, %d runs", rv.Mission, rv.Task, len(rv.Runs))
	}
	ctx := rv.Runs[0].Context
	if under := sectionOf(ctx, "Under review"); !strings.Contains(under, "- task 1, done by builtin: write hello to a.txt") ||
		!strings.Contains(under, "- task 2, done by builtin: write world to b.txt") {
		t.Fatalf("the review's work under review:\n%s", under)
	}
	if change := sectionOf(ctx, "Change"); !strings.HasPrefix(change, "2 files changed, +2 -0 lines:") || !strings.Contains(change, "+hello") || !strings.Contains(change, "+world") {
		t.Fatalf("the review's change:\n%s", change)
	}
	if out := e.must("mission", "show", id); !strings.Contains(out, "reviewer: builtin, thread "+m.ReviewThread) ||
		!strings.Contains(out, "merged result: review by @builtin passed: the change does what the task asks") {
		t.Fatalf("mission show:\n%s", out)
	}
}

// kill -9 at the review's steps (before the diff runs, after it ran but
// before the kernel heard of it, while the reviewer's turn waits for
// its thread's baseline, before its run's checkpoint) and `nexus mission
// resume` finishes the mission: the diff step journaled once, one review
// run, one verdict, the result applied.
func TestMissionReviewCrash(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	// A split of two tasks with a command: the planner's and the tasks'
	// threads capture six checkpoints before the reviewer's baseline
	// (the 7th) and its run's (the 8th); the diff is the 9th step done.
	for _, point := range []string{"mission.diff:1", "mission.done:9", "checkpoint.capture:7", "checkpoint.capture:8"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			e := backgroundEnv(t, "1m")
			e.gitInit()
			crashDuring(t, bin, e, point, "mission", "new", "write hello to a.txt and write world to b.txt",
				"--verify", "test -f a.txt -a -f b.txt", "--reviewer", "builtin", "--yes")
			list := e.must("mission", "list", "--json")
			var ms []struct{ ID string }
			if err := json.Unmarshal([]byte(list), &ms); err != nil || len(ms) != 1 {
				t.Fatalf("mission list after the crash: %s (%v)", list, err)
			}
			id := ms[0].ID
			r := e.missionRun("mission", "resume", id, "--wait")
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.out, r.err)
			}
			m := e.mission(id)
			if m.Status != string(core.MissionCompleted) || len(m.Checks) != 2 || m.Checks[0].Review || !m.Checks[1].Review || !m.Checks[1].Passed {
				t.Fatalf("after the crash at %s: %+v", point, m)
			}
			if readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" || readFile(t, filepath.Join(e.ws, "b.txt")) != "world\n" {
				t.Fatal("the workspace lacks the mission's files")
			}
			diffs := 0
			for _, line := range strings.Split(e.must("log", "--json"), "\n") {
				var ev core.Event
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == core.EvEffectStarted && ev.Payload.Effect != nil &&
					ev.Payload.Effect.Key == "mission/"+id+"/diff" {
					diffs++
				}
			}
			if diffs != 1 {
				t.Fatalf("the diff step journaled %d times", diffs)
			}
			if v := e.show(m.ReviewThread); len(v.Runs) != 1 || v.Runs[0].Status != core.RunCompleted {
				t.Fatalf("the reviewer's thread after the crash: %+v", v.Runs)
			}
		})
	}
}

// A review turn the host's death cuts off (the merged result of a
// split) is resumed by `mission resume`: the same run goes on, its
// verdict is taken, the result applied.
func TestMissionReviewResume(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	e.must("agent", "add", "slowrev", "--instructions", "Take your time. #slow=6s")
	id := e.must("mission", "new", "write hello to a.txt", "--reviewer", "slowrev", "--yes")
	rt := core.ReviewThreadID(id)
	eventually(t, "the reviewer at work", func() bool {
		r := e.run("thread", "show", rt, "--json")
		var v cli.ThreadView
		if r.code != 0 || json.Unmarshal([]byte(r.out), &v) != nil || len(v.Runs) != 1 || v.Runs[0].Status != core.RunRunning {
			return false
		}
		for _, a := range v.Runs[0].Attempts {
			for _, n := range a.Nodes {
				if n.Kind == core.NodeLLMCall {
					return true
				}
			}
		}
		return false
	})
	pid := e.servingPID()
	if pid <= 0 {
		t.Fatal("no background host")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(t, "the killed host to be gone", func() bool { return !alive(pid) })
	r := e.missionRun("mission", "resume", id, "--wait")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Checks) != 1 || !m.Checks[0].Review || !m.Checks[0].Passed {
		t.Fatalf("after resume: %+v", m)
	}
	v := e.show(rt)
	if len(v.Runs) != 1 || v.Runs[0].Status != core.RunCompleted || len(v.Runs[0].Attempts) != 2 || v.Runs[0].Attempts[1].Reason != core.ReasonProviderRecovery {
		t.Fatalf("the reviewer's run after resume: %+v", v.Runs)
	}
	if readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" {
		t.Fatal("the result was not applied")
	}
}
