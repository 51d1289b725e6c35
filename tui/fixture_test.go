package tui

import (
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// journal builds a projection the way the host does: by applying
// journaled events, with fixed times so screens are reproducible.
type journal struct {
	t      testing.TB
	st     *core.State
	events []core.Event
}

func newJournal(t testing.TB) *journal { return &journal{t: t, st: core.NewState()} }

// add appends and applies one event.
func (j *journal) add(ev core.Event) core.Event {
	j.t.Helper()
	ev.Seq = j.st.Seq + 1
	ev.ID = "e" + itoa(int(ev.Seq))
	if err := j.st.Apply(&ev); err != nil {
		j.t.Fatal(err)
	}
	j.events = append(j.events, ev)
	return ev
}

const sec = int64(1e9)

var steerCaps = core.Capabilities{Steer: true, Interrupt: true, Approvals: true, UserInput: true, Plans: true}

func (j *journal) thread(id, title string, status core.ThreadStatus, runs int, at int64) {
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: id, Payload: core.Payload{Thread: &core.Thread{
		ID: id, Title: title, Provider: "builtin", Caps: steerCaps, Workspace: "/work/demo", Status: status,
		Runs: runs, CreatedAt: at, UpdatedAt: at}}})
}

func (j *journal) run(thread string, n int, status core.RunStatus, text string, start, end int64) *core.Run {
	r := &core.Run{ID: core.RunID(thread, n), Thread: thread, Ordinal: n, Status: status, Text: text,
		Attempts: 1, CreatedAt: start, StartedAt: start, EndedAt: end}
	j.add(core.Event{Type: core.EvRunUpdated, Thread: thread, Run: r.ID, Payload: core.Payload{Run: r}})
	a := &core.Attempt{ID: core.AttemptID(r.ID, 1), Run: r.ID, Thread: thread, N: 1, Reason: core.ReasonInitial,
		Status: core.AttemptRunning, StartedAt: start}
	if status == core.RunCompleted {
		a.Status = core.AttemptCompleted
	}
	j.add(core.Event{Type: core.EvAttemptUpdated, Thread: thread, Run: r.ID, Payload: core.Payload{Attempt: a}})
	j.node(r, 1, core.NodeRootTurn, "", "turn", "")
	return r
}

func (j *journal) node(r *core.Run, n int, kind core.NodeKind, status core.NodeStatus, title, text string) *core.Node {
	a := core.AttemptID(r.ID, 1)
	nd := &core.Node{ID: core.NodeID(a, n), Attempt: a, Run: r.ID, Thread: r.Thread, Kind: kind,
		Status: status, Title: title, Text: text}
	if status == "" {
		nd.Status = core.NodeRunning
	}
	if n > 1 {
		nd.Parent = core.NodeID(a, 1)
	}
	j.add(core.Event{Type: core.EvNodeUpdated, Thread: r.Thread, Run: r.ID, Node: nd.ID, Payload: core.Payload{Node: nd}})
	return nd
}

func (j *journal) request(r *core.Run, node *core.Node, id string, kind core.RequestKind, prompt string) *core.Request {
	q := &core.Request{ID: id, Thread: r.Thread, Run: r.ID, Attempt: node.Attempt, Node: node.ID, Kind: kind,
		Status: core.RequestPending, Prompt: prompt, CreatedAt: 50 * sec}
	j.add(core.Event{Type: core.EvRequestUpdated, Thread: r.Thread, Run: r.ID, Payload: core.Payload{Request: q}})
	return q
}

// demoState is the fixed projection of the golden screens: three
// threads, one of them waiting on an approval with a todo list.
func demoState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "fix the parser", core.ThreadWaiting, 2, 1*sec)
	r1 := j.run("t1", 1, core.RunCompleted, "read README.md and summarize it", 2*sec, 5*sec)
	j.node(r1, 2, core.NodeToolCall, core.NodeCompleted, "read_file README.md", "# demo\nA small demo project.")
	j.node(r1, 3, core.NodeAssistantMessage, core.NodeCompleted, "assistant",
		"README.md describes a small demo project.\n[sim] acted on: \"read README.md and summarize it\"")
	r2 := j.run("t1", 2, core.RunWaiting, "write hello to notes.txt #approve", 10*sec, 0)
	n := j.node(r2, 2, core.NodeApproval, "", "Allow writing notes.txt?", "")
	j.request(r2, n, "R1", core.RequestApproval, "Allow the built-in agent to write notes.txt?")
	j.add(core.Event{Type: core.EvPlanUpdated, Thread: "t1", Run: r2.ID, Payload: core.Payload{Plan: &core.Plan{
		ID: core.PlanID(r2.ID), Run: r2.ID, Kind: core.PlanTodoList, Items: []core.PlanItem{
			{Text: "read notes.txt", Status: "completed"}, {Text: "write hello", Status: "in_progress"},
			{Text: "subagent: check the docs", Status: "in_progress"},
			{Text: "grep docs/", Status: "completed", Depth: 1},
			{Text: "report back", Status: "pending"}}}}})
	j.thread("t2", "write docs", core.ThreadIdle, 1, 20*sec)
	j.run("t2", 1, core.RunCompleted, "document the API", 21*sec, 22*sec)
	j.thread("t3", "flaky test", core.ThreadFailed, 0, 30*sec)
	// t1 moved last, so it is the thread selected on start.
	t1 := *j.st.Threads["t1"]
	t1.UpdatedAt = 60 * sec
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "t1", Payload: core.Payload{Thread: &t1}})
	return j.st
}

// checkpoint records the checkpoint of run n of a thread (0: the
// baseline) with the files it changed and how many more it did not list.
func (j *journal) checkpoint(thread string, n int, status core.CheckpointStatus, more int, files ...core.FileChange) {
	scope := core.ScopeBase
	if n > 0 {
		scope = core.RunScope(n)
	}
	c := &core.Checkpoint{ID: core.CheckpointID(thread, scope), Thread: thread, Run: n, Scope: scope, Status: status,
		Commit: "c" + itoa(n), Files: files, MoreFiles: more}
	if status == core.CkError {
		c.Reason = "git: index.lock exists"
	}
	j.add(core.Event{Type: core.EvCheckpoint, Thread: thread, Payload: core.Payload{Checkpoint: c}})
}

// fc is a file change: status, path, lines added and deleted.
func fc(status, path string, added, deleted int) core.FileChange {
	return core.FileChange{Status: status, Path: path, Added: added, Deleted: deleted}
}

// rollbackState is one thread of five runs with checkpoints: run 4's
// capture failed, run 5 changed more files than it listed.
func rollbackState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 5, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	j.run("t1", 1, core.RunCompleted, "write hello to notes.txt", 2*sec, 3*sec)
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "notes.txt", 1, 0))
	j.run("t1", 2, core.RunCompleted, "fix main.go", 4*sec, 6*sec)
	j.checkpoint("t1", 2, core.CkReady, 0, fc("M", "main.go", 10, 3), fc("A", "util.go", 20, 0), fc("D", "old.go", 0, 15))
	j.run("t1", 3, core.RunCompleted, "add tests", 7*sec, 9*sec)
	j.checkpoint("t1", 3, core.CkReady, 0, fc("A", "main_test.go", 30, 0), fc("M", "main.go", 2, 1),
		fc("D", "util.go", 0, 20), core.FileChange{Status: "A", Path: "assets/logo.png", Binary: true})
	j.run("t1", 4, core.RunFailed, "format everything", 10*sec, 11*sec)
	j.checkpoint("t1", 4, core.CkError, 0)
	j.run("t1", 5, core.RunCompleted, "rename the module", 12*sec, 14*sec)
	j.checkpoint("t1", 5, core.CkReady, 2, fc("M", "go.mod", 1, 1))
	return j.st
}

// rolledBackState is a thread rolled back to run 1 (runs 2 and 3 are
// rolled back) that went on with run 4.
func rolledBackState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "tidy the repo", core.ThreadIdle, 4, sec)
	j.checkpoint("t1", 0, core.CkReady, 0)
	r := j.run("t1", 1, core.RunCompleted, "write hello to notes.txt", 2*sec, 3*sec)
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "Wrote hello to notes.txt.")
	j.checkpoint("t1", 1, core.CkReady, 0, fc("A", "notes.txt", 1, 0))
	j.run("t1", 2, core.RunRolledBack, "fix main.go", 4*sec, 6*sec)
	j.run("t1", 3, core.RunRolledBack, "add tests", 7*sec, 9*sec)
	j.checkpoint("t1", 2, core.CkStale, 0, fc("M", "main.go", 10, 3), fc("A", "util.go", 20, 0))
	j.checkpoint("t1", 3, core.CkStale, 0, fc("A", "main_test.go", 30, 0))
	j.add(core.Event{Type: core.EvOperation, Thread: "t1", Payload: core.Payload{Operation: &core.Operation{
		ID: "t1/rollback1", Kind: "rollback", Thread: "t1", ToRun: 1, Step: core.StepDone, Status: core.OpCompleted,
		Detail: "provider: context truncated to run 1; files: restored"}}})
	r = j.run("t1", 4, core.RunCompleted, "write goodbye to notes.txt", 10*sec, 12*sec)
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", "Appended goodbye.")
	j.checkpoint("t1", 4, core.CkReady, 0, fc("M", "notes.txt", 1, 0), fc("A", "docs/a/very/long/path/to/the/guide.md", 120, 0),
		fc("D", "TODO", 0, 7))
	return j.st
}

// proposedState is the demo with a plan the agent proposed in t1's run 2
// (plan mode), after its todo list.
func proposedState(t *testing.T) *core.State {
	st := demoState(t)
	run := core.RunID("t1", 2)
	ev := core.Event{Seq: st.Seq + 1, ID: "e-proposed", Type: core.EvPlanUpdated, Thread: "t1", Run: run,
		Payload: core.Payload{Plan: &core.Plan{ID: core.ProposedPlanID(run), Run: run, Kind: "proposed_plan",
			Items: []core.PlanItem{{Text: "Read parser.go", Status: "pending"}, {Text: "Fix the off-by-one", Status: "pending"}}}}}
	if err := st.Apply(&ev); err != nil {
		t.Fatal(err)
	}
	return st
}
