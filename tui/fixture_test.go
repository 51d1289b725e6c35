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

func (j *journal) thread(id, title, status string, runs int, at int64) {
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: id, Payload: core.Payload{Thread: &core.Thread{
		ID: id, Title: title, Provider: "builtin", Caps: steerCaps, Workspace: "/work/demo", Status: status,
		Runs: runs, CreatedAt: at, UpdatedAt: at}}})
}

func (j *journal) run(thread string, n int, status, text string, start, end int64) *core.Run {
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

func (j *journal) node(r *core.Run, n int, kind, status, title, text string) *core.Node {
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

func (j *journal) request(r *core.Run, node *core.Node, id, kind, prompt string) *core.Request {
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
		ID: core.PlanID(r2.ID), Run: r2.ID, Kind: "todo_list", Items: []core.PlanItem{
			{Text: "read notes.txt", Status: "completed"}, {Text: "write hello", Status: "in_progress"},
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
