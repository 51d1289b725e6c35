package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// missionState is a race of two tasks, one passed and one failed, and a
// split waiting for its plan to be approved.
func missionState(t *testing.T) *journal {
	j := newJournal(t)
	j.thread("m1-t1", "task 1: write hello", core.ThreadIdle, 1, 1*sec)
	j.thread("m1-t2", "task 2: write hello", core.ThreadIdle, 1, 2*sec)
	j.usage("m1-t1", 1, 1000, 200, 0.25, false)
	j.mission(&core.Mission{ID: "m1", Goal: "write hello to a.txt", Strategy: core.StrategyRace, Status: core.MissionRunning, MaxAttempts: 2,
		CreatedAt: 1 * sec, Tasks: []core.Task{
			{ID: "1", Text: "write hello to a.txt", Agent: "builtin", Thread: "m1-t1", Status: core.TaskPassed, Attempts: 1,
				Checks: []core.Check{{Attempt: 1, Exit: 0, Passed: true}}},
			{ID: "2", Text: "write hello to a.txt", Agent: "sloppy", Thread: "m1-t2", Status: core.TaskRunning, Attempts: 2,
				Checks: []core.Check{{Attempt: 1, Exit: 1}}},
		}})
	j.mission(&core.Mission{ID: "m2", Goal: "split this goal", Strategy: core.StrategySplit, Status: core.MissionAwaitPlan, CreatedAt: 5 * sec,
		Tasks: []core.Task{{ID: "1", Text: "first part", Agent: "builtin", Status: core.TaskPending},
			{ID: "2", Text: "second part", Deps: []string{"1"}, Agent: "builtin", Status: core.TaskPending}}})
	return j
}

func (j *journal) mission(m *core.Mission) {
	j.add(core.Event{Type: core.EvMissionUpdated, Payload: core.Payload{Mission: m}})
}

// TestMissionsView: the missions key opens the task graph of every
// mission (status, agent, attempt, last check, cost); a approves a
// waiting plan, v votes in a race, x asks before it stops anything,
// enter opens a task's thread; the draft is untouched.
func TestMissionsView(t *testing.T) {
	j := missionState(t)
	hs := newHarness(t, j.st, 120, 40)
	hs.typeText("dr")
	if scr := hs.screen(); !strings.Contains(scr, "◈ 1 mission needs you (f3)") {
		t.Errorf("the status line does not say a mission waits:\n%s", scr)
	}
	hs.press("f3")
	scr := hs.screen()
	for _, want := range []string{"Missions", "m2 awaiting_plan_approval · split", "the plan waits for you", "second part (after 1)",
		"m1 running · race", "t1   builtin", "passed", "✓ passed", "$0.25", "t2   sloppy", "att 2", "✗ exit 1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the missions view lacks %q:\n%s", want, scr)
		}
	}
	// The newest mission is first: a on its row approves its plan.
	hs.press("a")
	if c := hs.lastCmd(); c.Kind != core.CmdMissionApprove || c.Mission != "m2" {
		t.Fatalf("a on m2: last command %+v; want mission.approve m2", c)
	}
	// Down to m1's task 1: v votes for it.
	for range 4 {
		hs.press("down")
	}
	hs.press("v")
	if c := hs.lastCmd(); c.Kind != core.CmdMissionVote || c.Mission != "m1" || c.Task != "1" {
		t.Fatalf("v on m1's task 1: last command %+v", c)
	}
	// x asks first; n keeps everything running.
	hs.press("x")
	if scr := hs.screen(); !strings.Contains(scr, "Stop task 1?") {
		t.Fatalf("x did not ask before stopping:\n%s", scr)
	}
	hs.press("n")
	if c := hs.lastCmd(); c.Kind == core.CmdThreadStop {
		t.Fatal("n still stopped the task")
	}
	hs.press("x")
	hs.press("y")
	if c := hs.lastCmd(); c.Kind != core.CmdThreadStop || c.Thread != "m1-t1" {
		t.Fatalf("y on the stop question: last command %+v", c)
	}
	// Enter opens the task's thread and closes the view.
	hs.press("enter")
	if hs.m.selected != "m1-t1" || strings.Contains(hs.screen(), "the plan waits for you") {
		t.Fatalf("enter on task 1: selected %q", hs.m.selected)
	}
	if got := hs.m.composer.value(); got != "" && got != "dr" {
		t.Errorf("composer = %q after the missions view", got)
	}
}

// A mission's threads stay together in the thread list (planner, then
// tasks by number), each marked with its mission, whatever their
// creation order among other threads.
func TestThreadListGroupsMissions(t *testing.T) {
	j := newJournal(t)
	j.thread("m1-t2", "task 2: b", core.ThreadIdle, 0, 1*sec)
	j.thread("a", "other work", core.ThreadIdle, 0, 2*sec)
	j.thread("m1-plan", "plan: goal", core.ThreadIdle, 0, 3*sec)
	j.thread("m1-t1", "task 1: a", core.ThreadIdle, 0, 4*sec)
	for id, task := range map[string]string{"m1-t2": "2", "m1-plan": "", "m1-t1": "1"} {
		th := *j.st.Threads[id]
		th.Mission, th.Task = "m1", task
		j.add(core.Event{Type: core.EvThreadUpdated, Thread: id, Payload: core.Payload{Thread: &th}})
	}
	hs := newHarness(t, j.st, 120, 40)
	var order []string
	for _, r := range hs.m.rows {
		order = append(order, r.th.ID)
	}
	if got := strings.Join(order, " "); got != "m1-plan m1-t1 m1-t2 a" {
		t.Fatalf("thread list order %q; want the mission's threads together, planner first", got)
	}
	if scr := hs.screen(); !strings.Contains(scr, "◈ m1 task 1") || !strings.Contains(scr, "◈ m1 planner") {
		t.Fatalf("the rows do not name their mission:\n%s", scr)
	}
}
