package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
)

// gitInit makes e.ws a git repository with one commit.
func (e *env) gitInit() {
	e.t.Helper()
	e.git("init", "-q")
	e.git("commit", "-q", "--allow-empty", "-m", "initial")
}

func (e *env) git(args ...string) string {
	e.t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	c.Dir = e.ws
	out, err := c.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// missionRun runs a mission command that waits (--wait), with a
// failsafe far above what the work needs, and returns its result.
func (e *env) missionRun(args ...string) result {
	e.t.Helper()
	c := e.cmd(args...)
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute): // failsafe only
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
		e.t.Fatalf("nexus %v did not finish; stdout %s stderr %s", args, so.String(), se.String())
	}
	return result{out: so.String(), err: se.String(), code: c.ProcessState.ExitCode()}
}

func (e *env) mission(id string) cli.MissionView {
	e.t.Helper()
	var v cli.MissionView
	if err := json.Unmarshal([]byte(e.must("mission", "show", id, "--json")), &v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// missionEvents are the journal's mission.updated events of a mission,
// in order.
func (e *env) missionEvents(id string) []core.Mission {
	e.t.Helper()
	var out []core.Mission
	for _, line := range strings.Split(e.must("log", "--json"), "\n") {
		var ev core.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == core.EvMissionUpdated && ev.Payload.Mission != nil && ev.Payload.Mission.ID == id {
			out = append(out, *ev.Payload.Mission)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return string(b)
}

// The offline acceptance: a split plans two tasks, runs them in two
// worktrees at once, merges both, passes verification and leaves both
// files in the workspace; each task's turn was compiled from the goal,
// its task and its dependencies' results, and nothing of the others.
func TestMissionSplitOffline(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	first := strings.Fields(e.missionRun("mission", "new", "write hello to a.txt and write world to b.txt",
		"--strategy", "split", "--verify", "test -f a.txt -a -f b.txt", "--yes", "--wait").out)
	if len(first) == 0 {
		t.Fatal("mission new printed nothing")
	}
	id := first[0]
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 2 || len(m.Checks) != 1 || !m.Checks[0].Passed {
		t.Fatalf("mission: %+v", m)
	}
	if readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" || readFile(t, filepath.Join(e.ws, "b.txt")) != "world\n" {
		t.Fatalf("workspace: a.txt %q b.txt %q", readFile(t, filepath.Join(e.ws, "a.txt")), readFile(t, filepath.Join(e.ws, "b.txt")))
	}
	if m.Tasks[0].Worktree == m.Tasks[1].Worktree || m.Tasks[0].Worktree == "" {
		t.Fatalf("tasks share a worktree: %q %q", m.Tasks[0].Worktree, m.Tasks[1].Worktree)
	}
	// At once: some journaled state has both tasks at work.
	together := false
	for _, s := range e.missionEvents(id) {
		if len(s.Tasks) == 2 && s.Tasks[0].Status == core.TaskRunning && s.Tasks[1].Status == core.TaskRunning {
			together = true
		}
	}
	if !together {
		t.Fatal("the two tasks never ran at the same time")
	}
	if log := e.git("log", "--format=%s"); !strings.Contains(log, "task 1: write hello to a.txt") || !strings.Contains(log, "task 2: write world to b.txt") {
		t.Fatalf("git log of the workspace:\n%s", log)
	}
	if st := e.git("status", "--porcelain"); st != "" {
		t.Fatalf("the workspace is not clean after the apply:\n%s", st)
	}

	// Dependencies: "then" makes task 3 depend on 1 and 2; its turn
	// carries their results, not their transcripts' other text.
	id = strings.Fields(e.missionRun("mission", "new", "write one to c.txt and write two to d.txt then write three to e.txt",
		"--yes", "--wait").out)[0]
	m = e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 3 || strings.Join(m.Tasks[2].Deps, ",") != "1,2" {
		t.Fatalf("mission with dependencies: %+v", m)
	}
	v := e.show(m.Tasks[2].Thread)
	if v.Mission != id || v.Task != "3" || len(v.Runs) != 1 {
		t.Fatalf("task 3's thread: mission %q task %q runs %d", v.Mission, v.Task, len(v.Runs))
	}
	var text strings.Builder
	sources := map[string]bool{}
	for _, s := range v.Runs[0].Context {
		sources[s.Source] = true
		text.WriteString(s.Text + "\n")
	}
	ctx := text.String()
	for _, want := range []string{"Goal: write one to c.txt and write two to d.txt then write three to e.txt", "Task: write three to e.txt",
		"Task 1 (write one to c.txt) is done:", "Task 2 (write two to d.txt) is done:", "wrote 4 bytes to c.txt", "wrote 4 bytes to d.txt"} {
		if !strings.Contains(ctx, want) {
			t.Fatalf("task 3's compiled context lacks %q:\n%s", want, ctx)
		}
	}
	if !sources["project"] || !sources["task"] || v.Runs[0].Text != core.CompileText(v.Runs[0].Context) {
		t.Fatalf("task 3's context sections %v; the run's text is not compiled from them", sources)
	}
	// A mission's result comes out again in one step, newest first: the
	// older one's refuses while the newer one's is on top of it.
	firstID := first[0]
	if r := e.run("mission", "rollback", firstID); r.code != 1 || !strings.Contains(r.err, "moved on from the merged result") {
		t.Fatalf("rollback under a later mission's result: exit %d %q %q", r.code, r.out, r.err)
	}
	if out := e.must("mission", "rollback", id); !strings.Contains(out, "rolled back") {
		t.Fatalf("rollback printed %q", out)
	}
	for _, f := range []string{"c.txt", "d.txt", "e.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, f)); err == nil {
			t.Fatalf("%s is still there after the rollback", f)
		}
	}
	if e.mission(id).Status != string(core.MissionRolledBack) || readFile(t, filepath.Join(e.ws, "a.txt")) != "hello\n" {
		t.Fatal("the rollback took out more (or less) than its mission's result")
	}
	if r := e.run("mission", "rollback", id); r.code != 1 || !strings.Contains(r.err, "already rolled back") {
		t.Fatalf("a second rollback: exit %d %q", r.code, r.err)
	}
	e.must("mission", "rollback", firstID)
	if log := e.git("log", "--format=%s"); log != "initial" || e.git("status", "--porcelain") != "" {
		t.Fatalf("after both rollbacks: log %q status %q", log, e.git("status", "--porcelain"))
	}

	// Task 2 depends on nothing: its turn holds nothing of task 1's.
	two := core.CompileText(e.show(m.Tasks[1].Thread).Runs[0].Context)
	if strings.Contains(two, "is done") || strings.Contains(two, "wrote 4 bytes") || !strings.HasSuffix(two, "Task: write two to d.txt") {
		t.Fatalf("task 2's compiled context holds another task's work:\n%s", two)
	}
}

// A race of three built-in agents, one made to write the wrong thing:
// the passing ones are voted on, only the winner's change is applied,
// the journal shows every vote, the losers' threads are archived.
func TestMissionRaceVotes(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	e.must("agent", "add", "careful")
	e.must("agent", "add", "sloppy", "--instructions", "Work fast. #wrong")
	r := e.missionRun("mission", "new", "write hello to a.txt", "--strategy", "race", "--agents", "builtin,sloppy,careful",
		"--verify", "grep -q hello a.txt", "--attempts", "2", "--yes", "--wait")
	if r.code != 0 {
		t.Fatalf("race: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	id := strings.Fields(r.out)[0]
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 3 {
		t.Fatalf("race: %+v", m)
	}
	bad := m.Tasks[1]
	if bad.Agent != "sloppy" || bad.Status != core.TaskFailed || len(bad.Checks) != 2 || bad.Checks[0].Passed {
		t.Fatalf("the sloppy agent's task: %+v", bad)
	}
	if m.Winner == "" || m.Winner == "2" || len(m.Votes) == 0 || m.Votes[0].Task != m.Winner {
		t.Fatalf("winner %q votes %+v", m.Winner, m.Votes)
	}
	voted := false
	for _, s := range e.missionEvents(id) {
		if len(s.Votes) > 0 && s.Votes[0].Voter == "nexus" {
			voted = true
		}
	}
	if !voted {
		t.Fatal("no journaled mission event holds the vote")
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "hello\n" {
		t.Fatalf("a.txt = %q after the race", got)
	}
	if log := e.git("log", "--format=%s"); strings.Count(log, "nexus mission") != 1 {
		t.Fatalf("more than the winner's commit reached the workspace:\n%s", log)
	}
	for _, tk := range m.Tasks {
		if v := e.show(tk.Thread); (tk.ID != m.Winner) != (v.Status == core.ThreadArchived) {
			t.Fatalf("task %s (winner %s): thread status %s", tk.ID, m.Winner, v.Status)
		}
	}
	// The loser's retry carried the verifier's output.
	runs := e.show(bad.Thread).Runs
	if len(runs) != 2 || !strings.Contains(core.CompileText(runs[1].Context), "`grep -q hello a.txt` exited 1") {
		t.Fatalf("the sloppy task's second run did not carry the verifier's output: %+v", runs)
	}
}

// A failing verification of the merged result goes back to the task's
// thread; the next attempt passes. After the limit, the mission asks.
func TestMissionVerificationRetry(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	flag := filepath.Join(t.TempDir(), "checked")
	check := "if [ -f " + flag + " ]; then test -f a.txt; else touch " + flag + "; echo 'first check: not yet'; exit 3; fi"
	r := e.missionRun("mission", "new", "write hello to a.txt", "--verify", check, "--yes", "--wait")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	m := e.mission(strings.Fields(r.out)[0])
	if m.Status != string(core.MissionCompleted) || len(m.Checks) != 2 || m.Checks[0].Passed || !m.Checks[1].Passed || m.Tasks[0].Attempts != 2 {
		t.Fatalf("mission: %+v", m)
	}
	runs := e.show(m.Tasks[0].Thread).Runs
	if len(runs) != 2 || !strings.Contains(runs[1].Text, "first check: not yet") || !strings.Contains(runs[1].Text, "exited 3") {
		t.Fatalf("the retry's message lacks the verifier's output: %+v", runs)
	}

	r = e.missionRun("mission", "new", "write hello to b.txt", "--verify", "echo nope; exit 1", "--attempts", "2", "--yes", "--wait")
	id := strings.Fields(r.out)[0]
	if r.code != 0 || !strings.Contains(r.out, "the mission asks: the merged result failed verification 2 times") {
		t.Fatalf("after the limit: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	if m := e.mission(id); m.Status != string(core.MissionRunning) || m.Question == "" || len(m.Checks) != 2 {
		t.Fatalf("a mission past its attempts: %+v", m)
	}
	if hs := e.hostStatus(); hs.Live.Runs != 0 {
		t.Fatalf("a mission waiting on the person keeps %d runs live", hs.Live.Runs)
	}
	// The question is a request: listed, and --deny stops the mission.
	var reqs []cli.RequestView
	if err := json.Unmarshal([]byte(e.must("requests", "--json")), &reqs); err != nil || len(reqs) != 1 ||
		reqs[0].ID != "mission:"+id || reqs[0].Kind != "mission" || !strings.Contains(reqs[0].Prompt, "failed verification 2 times") {
		t.Fatalf("requests --json while the mission asks: %+v (%v)", reqs, err)
	}
	e.must("respond", "mission:"+id, "--deny")
	if m := e.mission(id); m.Status != string(core.MissionCancelled) || m.Question != "" {
		t.Fatalf("stopped: %+v", m)
	}
	if r := e.run("respond", "mission:"+id, "--allow"); r.code != 1 || !strings.Contains(r.err, "waits on nothing") {
		t.Fatalf("respond to a stopped mission: exit %d %q", r.code, r.err)
	}
	if got := e.must("requests", "--json"); got != "[]" {
		t.Fatalf("requests after the stop: %s", got)
	}
	// run --mission waits for it.
	r = e.missionRun("run", "--mission", "write hi to c.txt", "--verify", "test -f c.txt", "--yes")
	if r.code != 0 || !strings.Contains(r.out, " completed") {
		t.Fatalf("run --mission: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
}

// Stop on a mission with three running tasks ends all three threads,
// depth first (the tasks, then the planner), and holds their queues.
func TestMissionStopEndsTasks(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	e.must("agent", "add", "slow", "--instructions", "#slow=10m")
	id := e.must("mission", "new", "write a to a.txt and write b to b.txt and write c to c.txt", "--agents", "slow", "--yes")
	eventually(t, "three tasks running", func() bool {
		m := e.mission(id)
		n := 0
		for _, tk := range m.Tasks {
			if tk.Status == core.TaskRunning && tk.Thread != "" && len(e.show(tk.Thread).Runs) == 1 && e.show(tk.Thread).Runs[0].Status == core.RunRunning {
				n++
			}
		}
		return n == 3
	})
	e.must("mission", "stop", id)
	m := e.mission(id)
	if m.Status != string(core.MissionCancelled) {
		t.Fatalf("stopped mission: %+v", m)
	}
	for _, tk := range m.Tasks {
		eventually(t, "task "+tk.ID+"'s run to end", func() bool { return core.Terminal(e.show(tk.Thread).Runs[0].Status) })
		v := e.show(tk.Thread)
		if v.Runs[0].Status != core.RunInterrupted || !v.QueueHeld || tk.Status != core.TaskCancelled {
			t.Fatalf("task %s after stop: run %s queue held %v status %s", tk.ID, v.Runs[0].Status, v.QueueHeld, tk.Status)
		}
	}
	// Depth first: the stop's interrupt requests, in journal order, are
	// the tasks' (last first), then the planner's hold.
	var order []string
	for _, line := range strings.Split(e.must("log", "--json"), "\n") {
		var ev core.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == core.EvThreadUpdated && ev.Payload.Thread != nil && ev.Payload.Thread.QueueHeld &&
			ev.Payload.Thread.Mission == id && (len(order) == 0 || order[len(order)-1] != ev.Payload.Thread.ID) {
			order = append(order, ev.Payload.Thread.ID)
		}
	}
	want := []string{id + "-t3", id + "-t2", id + "-t1", id + "-plan"}
	if strings.Join(order[:min(4, len(order))], " ") != strings.Join(want, " ") {
		t.Fatalf("queues held in the order %v; want %v", order, want)
	}
}

// Without --yes the plan waits; the person edits it (drops a task,
// rewrites one, adds a dependency) and approves the edited plan, which
// is what runs.
func TestMissionPlanEdited(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "1m")
	e.gitInit()
	id := e.must("mission", "new", "write a to a.txt and write b to b.txt and write c to c.txt", "--verify", "test -f a.txt")
	eventually(t, "the plan to wait for approval", func() bool { return e.mission(id).Status == string(core.MissionAwaitPlan) })
	if got := e.must("mission", "show", id, "--plan"); got != "1. write a to a.txt\n2. write b to b.txt\n3. write c to c.txt" {
		t.Fatalf("mission show --plan:\n%s", got)
	}
	if !strings.Contains(e.must("mission", "show", id), "--plan plan.txt") {
		t.Fatal("mission show does not say how to edit the waiting plan")
	}
	plan := filepath.Join(t.TempDir(), "plan.txt")
	os.WriteFile(plan, []byte("1. write a to a.txt\n2. write z to z.txt (after 1)\n"), 0o600)
	if r := e.run("mission", "approve", id, "--plan", filepath.Join(t.TempDir(), "none.txt")); r.code != 2 {
		t.Fatalf("approve with a missing plan file: exit %d %q", r.code, r.err)
	}
	// Without --yes a task's agent asks before it writes: --wait says so
	// (exit 3, the request's id) instead of waiting in silence.
	r := e.missionRun("mission", "approve", id, "--plan", plan, "--wait")
	for r.code == 3 {
		lines := strings.Fields(r.out)
		req := lines[len(lines)-1]
		if !strings.Contains(r.err, "waits on "+req) || !strings.Contains(r.err, "nexus respond "+req+" --allow") {
			t.Fatalf("--wait on a task's approval: %q %q", r.out, r.err)
		}
		e.must("respond", req, "--allow")
		r = e.missionRun("mission", "resume", id, "--wait")
	}
	if r.code != 0 {
		t.Fatalf("approve --plan: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	m := e.mission(id)
	if m.Status != string(core.MissionCompleted) || len(m.Tasks) != 2 || m.Tasks[1].Text != "write z to z.txt" || strings.Join(m.Tasks[1].Deps, ",") != "1" {
		t.Fatalf("the edited plan did not run: %+v", m)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); err == nil {
		t.Fatal("a task the person dropped ran")
	}
	if readFile(t, filepath.Join(e.ws, "z.txt")) != "z\n" {
		t.Fatal("the edited task's file is not in the workspace")
	}
	if r := e.run("mission", "approve", id, "--plan", plan); r.code != 1 || !strings.Contains(r.err, "only a plan waiting for approval can be edited") {
		t.Fatalf("editing a finished mission's plan: exit %d %q", r.code, r.err)
	}
}
