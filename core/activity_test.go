package core

import "testing"

func TestActivityOf(t *testing.T) {
	cases := []struct {
		ev   Event
		kind string
		text string
	}{
		{Event{Type: EvRuntimeWarning, Payload: Payload{Note: "silent for 60s"}}, ActRuntimeWarning, "silent for 60s"},
		{Event{Type: EvRequestUpdated, Payload: Payload{Request: &Request{Kind: RequestApproval, Status: RequestPending, Prompt: "Run ls?"}}}, ActApprovalRequested, "Run ls?"},
		{Event{Type: EvRequestUpdated, Payload: Payload{Request: &Request{Kind: RequestUserInput, Status: RequestPending, Prompt: "Colour?"}}}, ActQuestionAsked, "Colour?"},
		{Event{Type: EvPlanUpdated, Payload: Payload{Plan: &Plan{Items: []PlanItem{{Status: "completed"}, {Status: "pending"}}}}}, ActPlanUpdated, "1/2 done"},
		{Event{Type: EvNodeUpdated, Payload: Payload{Node: &Node{Kind: NodeWorkerStep, Status: NodeRunning, Title: "read_file a"}}}, ActToolStarted, "read_file a"},
		{Event{Type: EvNodeUpdated, Payload: Payload{Node: &Node{Kind: NodeToolCall, Status: NodeFailed, Title: "Bash"}}}, ActToolFinished, "Bash (failed)"},
		{Event{Type: EvNodeUpdated, Payload: Payload{Node: &Node{Kind: NodeSubagent, Status: NodeRunning, Title: "research"}}}, ActSubagentStarted, "research"},
		{Event{Type: EvRunUpdated, Payload: Payload{Run: &Run{Ordinal: 2, Status: RunCompleted}}}, ActRunFinished, "run 2 completed"},
	}
	for _, c := range cases {
		a, ok := ActivityOf(&c.ev)
		if !ok || a.Kind != c.kind || a.Text != c.text {
			t.Errorf("%s: got %+v %v, want %s %q", c.ev.Type, a, ok, c.kind, c.text)
		}
	}
	if _, ok := ActivityOf(&Event{Type: EvSessionUpdated, Payload: Payload{Session: &Session{State: SessRunning}}}); ok {
		t.Error("a session change is not an activity")
	}
}
