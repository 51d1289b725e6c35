package core

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseVerdict(t *testing.T) {
	for _, c := range []struct {
		reply   string
		pass    bool
		reasons string
	}{
		{"PASS: the change does what the task asks", true, "the change does what the task asks"},
		{"FAIL: a.txt holds \"wrong\"\nand b.txt is missing\n", false, "a.txt holds \"wrong\"\nand b.txt is missing"},
		{"\n\n  **PASS** — fine", true, "fine"},
		{"## fail\nthe tests do not cover it", false, "the tests do not cover it"},
		{"pass", true, ""},
		{"FAIL", false, "the reviewer gave no reasons"},
		{"Fail - no", false, "no"},
		// Anything else is a FAIL that says so.
		{"PASSED: looks good", false, notAVerdict},
		{"I think it should PASS", false, notAVerdict},
		{"", false, notAVerdict},
		{"FAILURE", false, notAVerdict},
		{"PAß", false, notAVerdict},
	} {
		pass, reasons := ParseVerdict(c.reply)
		if pass != c.pass || reasons != c.reasons {
			t.Errorf("ParseVerdict(%q) = %v %q; want %v %q", c.reply, pass, reasons, c.pass, c.reasons)
		}
	}
	long := "FAIL: " + strings.Repeat("x", 3*MaxCheckOutput)
	if _, reasons := ParseVerdict(long); len(reasons) > MaxCheckOutput+64 {
		t.Fatalf("reasons of %d bytes", len(reasons))
	}
}

// FuzzParseVerdict: any reply is a verdict with bounded reasons, valid
// UTF-8 when the reply is; PASS only when its first non-blank line
// starts with the word.
func FuzzParseVerdict(f *testing.F) {
	f.Add("PASS: fine")
	f.Add("**FAIL**: no\nmore")
	f.Add("\n\t pass")
	f.Add("PASSED")
	f.Add("FAIL — é\xff")
	f.Fuzz(func(t *testing.T, reply string) {
		pass, reasons := ParseVerdict(reply)
		if again, r2 := ParseVerdict(reply); again != pass || r2 != reasons {
			t.Fatal("not deterministic")
		}
		if len(reasons) > MaxCheckOutput+64 {
			t.Fatalf("reasons of %d bytes", len(reasons))
		}
		if utf8.ValidString(reply) && !utf8.ValidString(reasons) {
			t.Fatalf("reasons not UTF-8: %q", reasons)
		}
		if !pass && reasons == "" {
			t.Fatal("a FAIL without reasons")
		}
		first := strings.TrimLeft(strings.TrimLeft(reply, " \t\r\n"), "*_`#> \t")
		if pass && !strings.EqualFold(first[:4], "pass") {
			t.Fatalf("PASS from %q", reply)
		}
	})
}

// missionSim drives a mission through Decide, answering every effect as
// a host would: checkpoints are ready, worktrees made, commands pass,
// commits and merges made, and each turn replies what answer says.
type missionSim struct {
	t      *testing.T
	st     *State
	at     int64
	n      int
	queue  []Effect
	answer func(e Effect) string // a turn's reply
	diff   func(e Effect) string // a diff step's text
	hold   func(e Effect) bool   // leave this effect unanswered
	held   []Effect
}

func newMissionSim(t *testing.T) *missionSim {
	return &missionSim{t: t, st: NewState(), answer: func(Effect) string { return "done" },
		diff: func(Effect) string { return "+hello" }, hold: func(Effect) bool { return false }}
}

func (s *missionSim) step(in Input) *Receipt {
	s.t.Helper()
	_, effs, rec, err := Decide(s.st, in)
	if err != nil {
		s.t.Fatal(err)
	}
	s.queue = append(s.queue, effs...)
	return rec
}

func (s *missionSim) cmd(c Command) *Receipt {
	s.t.Helper()
	s.n++
	s.at += 1000
	c.ID, c.At = fmt.Sprintf("c%d", s.n), s.at
	rec := s.step(Input{Command: &c})
	if rec.Reject != nil {
		s.t.Fatalf("%s rejected: %s", c.Kind, rec.Reject.Detail)
	}
	return rec
}

func (s *missionSim) obs(o Observation) {
	s.t.Helper()
	s.at += 1000
	o.At = s.at
	s.step(Input{Obs: &o})
}

// settle answers effects until none is left (those held stay held).
func (s *missionSim) settle() {
	s.t.Helper()
	for i := 0; len(s.queue) > 0; i++ {
		if i > 10000 {
			s.t.Fatal("the mission does not settle")
		}
		e := s.queue[0]
		s.queue = s.queue[1:]
		if s.hold(e) {
			s.held = append(s.held, e)
			continue
		}
		switch e.Kind {
		case EffCheckpoint:
			s.obs(Observation{Kind: ObsCheckpoint, Thread: e.Thread, Key: e.Scope, CheckpointStatus: CkReady, Commit: "c-" + e.Key})
		case EffStartTurn:
			ids := Observation{Thread: e.Thread, Run: e.Run, Attempt: e.Attempt}
			o := ids
			o.Kind = ObsTurnStarted
			s.obs(o)
			o = ids
			o.Kind, o.Key, o.Text, o.Final = ObsText, "reply", s.answer(e), true
			s.obs(o)
			o = ids
			o.Kind, o.TurnStatus = ObsTurnEnded, AttemptCompleted
			s.obs(o)
		case EffMission:
			o := Observation{Kind: ObsMission, Key: e.Key, Mission: e.Mission, Task: e.Task}
			switch e.Op {
			case OpWorktree:
				o.Text = "/wt/" + e.Thread
			case OpCommit:
				o.Commit, o.Changed = "commit-"+e.Task, 1
			case OpMerge, OpApply:
				o.Commit = "merged"
			case OpDiff:
				o.Text = s.diff(e)
			}
			s.obs(o)
		}
	}
}

func reviewMission(strategy string, agents ...string) *Mission {
	m := &Mission{ID: "m1", Goal: "write hello to a.txt", Strategy: strategy, Workspace: "/ws", Repo: "/ws", Base: "base0",
		AutoApprove: true, MaxAttempts: 2, Reviewer: &MissionAgent{Name: "judge", Provider: "builtin"},
		Planner: &MissionAgent{Name: "builtin", Provider: "builtin"}}
	for _, a := range agents {
		m.Agents = append(m.Agents, MissionAgent{Name: a, Provider: "builtin"})
	}
	return m
}

// A race with a reviewer: each passing task's change goes to the
// reviewer's thread; a FAIL goes back to the task's thread with the
// reasons, a PASS is the reviewer's vote; the winner is applied.
func TestMissionReviewRace(t *testing.T) {
	s := newMissionSim(t)
	s.diff = func(e Effect) string {
		if e.Task == "2" {
			return "+wrong"
		}
		return "+hello"
	}
	s.answer = func(e Effect) string {
		if e.Thread != ReviewThreadID("m1") {
			return "wrote a.txt"
		}
		if !strings.Contains(e.Turn.Text, "## Task\nTask: "+ReviewPrompt) || !strings.Contains(e.Turn.Text, "Goal: write hello to a.txt") {
			t.Fatalf("the review's message:\n%s", e.Turn.Text)
		}
		if strings.Contains(e.Turn.Text, "+wrong") {
			return "FAIL: it writes wrong"
		}
		return "PASS: fine"
	}
	s.cmd(Command{Kind: CmdMissionCreate, NewMission: reviewMission(StrategyRace, "a", "b", "c")})
	s.settle()
	m := s.st.Missions["m1"]
	if m.Status != MissionCompleted || m.Winner != "1" || m.ReviewThread != ReviewThreadID("m1") {
		t.Fatalf("mission: status %s winner %q result %q review thread %q", m.Status, m.Winner, m.Result, m.ReviewThread)
	}
	bad := m.Task("2")
	if bad.Status != TaskFailed || bad.Attempts != 2 || len(bad.Checks) != 2 || bad.Checks[0].Passed || !bad.Checks[0].Review ||
		bad.Checks[0].Command != "@judge" || bad.Checks[0].Output != "it writes wrong" || bad.Checks[0].Exit != 1 || bad.Review != "" {
		t.Fatalf("task 2: %+v", bad)
	}
	retry := s.st.RunsOf(bad.Thread)[1]
	if !strings.Contains(retry.Text, "## Reviewer\nAttempt 1 failed: the reviewer @judge failed it.\n@judge's verdict: FAIL: it writes wrong") {
		t.Fatalf("task 2's second run:\n%s", retry.Text)
	}
	for _, id := range []string{"1", "3"} {
		if tk := m.Task(id); tk.Status != TaskPassed || len(tk.Checks) != 1 || !tk.Checks[0].Passed || tk.Checks[0].Output != "fine" {
			t.Fatalf("task %s: %+v", id, tk)
		}
	}
	var votes []string
	for _, v := range m.Votes {
		votes = append(votes, v.Voter+">"+v.Task)
	}
	if got := strings.Join(votes, " "); !strings.Contains(got, "@judge>1") || !strings.Contains(got, "@judge>3") || !strings.HasSuffix(got, "nexus>1") {
		t.Fatalf("votes %s", got)
	}
	th := s.st.Threads[ReviewThreadID("m1")]
	if th.Mission != "m1" || th.Task != ReviewTask || len(s.st.RunsOf(th.ID)) != 4 {
		t.Fatalf("the reviewer's thread: %+v, %d runs", th, len(s.st.RunsOf(th.ID)))
	}
	if ctx := s.st.RunsOf(th.ID)[0].Context; len(ctx) == 0 || CompileText(ctx) != s.st.RunsOf(th.ID)[0].Text {
		t.Fatalf("the review's run is not compiled from its context: %+v", ctx)
	}
}

// A split with a reviewer: the merged result is reviewed after its
// command passed; a FAIL (or a reply that is no verdict) goes to every
// task's thread and counts as a failed round; a PASS applies it. Past
// the limit the mission asks, and approve gives one more round.
func TestMissionReviewSplit(t *testing.T) {
	s := newMissionSim(t)
	var verdicts []string
	s.answer = func(e Effect) string {
		switch e.Thread {
		case PlanThreadID("m1"):
			return "1. write hello to a.txt\n2. write world to b.txt"
		case ReviewThreadID("m1"):
			if !strings.Contains(e.Turn.Text, "## Under review\nThe merged result of the mission's tasks:\n- task 1, done by a: write hello to a.txt\n- task 2") ||
				!strings.Contains(e.Turn.Text, "## Change\n+hello") || !strings.Contains(e.Turn.Text, "passed the verification command: true") {
				t.Fatalf("the review's message:\n%s", e.Turn.Text)
			}
			v := verdicts[0]
			verdicts = verdicts[1:]
			return v
		}
		return "wrote it"
	}
	verdicts = []string{"FAIL: b.txt says hello", "Some preamble", "PASS"}
	m := reviewMission(StrategySplit, "a")
	m.Verify, m.MaxAttempts = "true", 3
	s.cmd(Command{Kind: CmdMissionCreate, NewMission: m})
	s.settle()
	m = s.st.Missions["m1"]
	if m.Status != MissionCompleted || len(verdicts) != 0 || len(m.Checks) != 6 || failedChecks(m.Checks) != 2 || m.Review != "" {
		t.Fatalf("mission: status %s %q, checks %+v", m.Status, m.Result, m.Checks)
	}
	if c := m.Checks[3]; !c.Review || c.Output != notAVerdict || m.Checks[4].Review || !m.Checks[5].Passed {
		t.Fatalf("checks %+v", m.Checks)
	}
	second := s.st.RunsOf(m.Task("2").Thread)[1].Text
	if !strings.Contains(second, "## Reviewer\nThe reviewer @judge failed the merged result of all tasks: FAIL: b.txt says hello\nFix your part") {
		t.Fatalf("task 2's second run:\n%s", second)
	}

	s = newMissionSim(t)
	s.answer = func(e Effect) string {
		switch e.Thread {
		case PlanThreadID("m1"):
			return "1. write hello to a.txt"
		case ReviewThreadID("m1"):
			v := verdicts[0]
			verdicts = verdicts[1:]
			return v
		}
		return "wrote it"
	}
	verdicts = []string{"FAIL: no", "PASS: yes"}
	m = reviewMission(StrategySplit, "a")
	m.MaxAttempts = 1
	s.cmd(Command{Kind: CmdMissionCreate, NewMission: m})
	s.settle()
	if m := s.st.Missions["m1"]; m.Question == "" || !strings.Contains(m.Question, "failed verification 1 times (the last by the reviewer @judge") {
		t.Fatalf("past the limit: %+v", m)
	}
	s.cmd(Command{Kind: CmdMissionApprove, Mission: "m1"})
	s.settle()
	if m := s.st.Missions["m1"]; m.Status != MissionCompleted || len(m.Checks) != 2 || m.Task("1").Attempts != 2 {
		t.Fatalf("after approve: %+v", m)
	}
}

// Every step of a review survives a restart: an unfinished diff step is
// issued again by the Recover pass, a review turn a restart cut off is
// resumed by mission resume and its verdict taken.
func TestMissionReviewRecover(t *testing.T) {
	s := newMissionSim(t)
	s.answer = func(e Effect) string {
		if e.Thread == ReviewThreadID("m1") {
			return "PASS: ok"
		}
		return "wrote it"
	}
	holding := true
	s.hold = func(e Effect) bool { return holding && e.Kind == EffMission && e.Op == OpDiff }
	s.cmd(Command{Kind: CmdMissionCreate, NewMission: reviewMission(StrategyRace, "a")})
	s.settle()
	if len(s.held) != 1 || s.st.Missions["m1"].Task("1").Pending != s.held[0].Key {
		t.Fatalf("held %+v; task %+v", s.held, s.st.Missions["m1"].Task("1"))
	}
	// A restart: the diff step is issued again, the same.
	s.held, holding = nil, false
	s.at += 1000
	s.step(Input{Recover: &Recover{At: s.at}})
	var again []Effect
	for _, e := range s.queue {
		if e.Kind == EffMission {
			again = append(again, e)
		}
	}
	if len(again) != 1 || again[0].Op != OpDiff || again[0].Commit != "commit-1" || again[0].From != "base0" || again[0].Workspace != "/wt/m1-t1" {
		t.Fatalf("recover issued %+v", again)
	}
	// The review turn is cut off by the next restart.
	s.hold = func(e Effect) bool { return e.Kind == EffStartTurn && e.Thread == ReviewThreadID("m1") }
	s.settle()
	if len(s.held) != 1 || s.st.Missions["m1"].Task("1").Review == "" {
		t.Fatalf("held %+v; task %+v", s.held, s.st.Missions["m1"].Task("1"))
	}
	s.held, s.hold = nil, func(Effect) bool { return false }
	s.queue = nil
	s.at += 1000
	s.step(Input{Recover: &Recover{At: s.at}})
	s.settle()
	if m := s.st.Missions["m1"]; m.Status != MissionRunning || m.Task("1").Status != TaskVerifying {
		t.Fatalf("after the restart: %+v", m)
	}
	s.cmd(Command{Kind: CmdMissionResume, Mission: "m1"})
	s.settle()
	m := s.st.Missions["m1"]
	if m.Status != MissionCompleted || len(m.Task("1").Checks) != 1 || !m.Task("1").Checks[0].Passed {
		t.Fatalf("after resume: status %s %q, task %+v", m.Status, m.Result, m.Task("1"))
	}
}

// Stop stops the reviewer's thread too, after the tasks, before the
// planner.
func TestMissionReviewStop(t *testing.T) {
	s := newMissionSim(t)
	s.hold = func(e Effect) bool { return e.Kind == EffStartTurn && e.Thread == ReviewThreadID("m1") }
	s.cmd(Command{Kind: CmdMissionCreate, NewMission: reviewMission(StrategyRace, "a", "b")})
	s.settle()
	if th := s.st.Threads[ReviewThreadID("m1")]; th == nil || len(s.st.RunsOf(th.ID)) != 2 {
		t.Fatal("two reviews are not queued on the reviewer's thread")
	}
	s.cmd(Command{Kind: CmdMissionStop, Mission: "m1"})
	if th := s.st.Threads[ReviewThreadID("m1")]; !th.QueueHeld || s.st.Missions["m1"].Status != MissionCancelled {
		t.Fatalf("after stop: reviewer's thread %+v", th)
	}
}
