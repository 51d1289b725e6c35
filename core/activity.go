package core

// Activity is the UI projection of an event: what a person would want in
// a feed ("tool started", "approval requested"), with the run and node it
// belongs to. It is derived, never journaled.
type Activity struct {
	Kind   string `json:"kind"`
	Thread string `json:"thread"`
	Run    string `json:"run,omitempty"`
	Node   string `json:"node,omitempty"`
	Text   string `json:"text"`
	At     int64  `json:"at"`
}

// Activity kinds.
const (
	ActToolStarted        = "tool.started"
	ActToolFinished       = "tool.finished"
	ActApprovalRequested  = "approval.requested"
	ActQuestionAsked      = "question.asked"
	ActPlanUpdated        = "plan.updated"
	ActCheckpointCaptured = "checkpoint.captured"
	ActSubagentStarted    = "subagent.started"
	ActSubagentFinished   = "subagent.finished"
	ActRuntimeWarning     = "runtime.warning"
	ActRunFinished        = "run.finished"
)

// ActivityOf maps a journaled event to an activity, if it is one.
func ActivityOf(ev *Event) (Activity, bool) {
	a := Activity{Thread: ev.Thread, Run: ev.Run, Node: ev.Node, At: ev.At}
	p := &ev.Payload
	switch {
	case ev.Type == EvRuntimeWarning:
		a.Kind, a.Text = ActRuntimeWarning, p.Note
	case p.Request != nil && p.Request.Status == RequestPending:
		a.Kind, a.Text, a.Node = ActApprovalRequested, p.Request.Prompt, p.Request.Node
		if p.Request.Kind == RequestUserInput {
			a.Kind = ActQuestionAsked
		}
	case p.Plan != nil:
		done := 0
		for _, it := range p.Plan.Items {
			if it.Status == ItemCompleted {
				done++
			}
		}
		a.Kind, a.Run = ActPlanUpdated, p.Plan.Run
		a.Text = itoa(done) + "/" + itoa(len(p.Plan.Items)) + " done"
	case p.Checkpoint != nil && p.Checkpoint.Status == CkReady:
		a.Kind, a.Text = ActCheckpointCaptured, p.Checkpoint.Scope
	case p.Node != nil && (p.Node.Kind == NodeToolCall || p.Node.Kind == NodeWorkerStep):
		a.Kind, a.Text, a.Node = ActToolStarted, p.Node.Title, p.Node.ID
		if p.Node.Status != NodeRunning {
			a.Kind = ActToolFinished
			a.Text += " (" + string(p.Node.Status) + ")"
		}
	case p.Node != nil && p.Node.Kind == NodeSubagent:
		a.Kind, a.Text, a.Node = ActSubagentStarted, p.Node.Title, p.Node.ID
		if p.Node.Status != NodeRunning {
			a.Kind = ActSubagentFinished
		}
	case p.Run != nil && Terminal(p.Run.Status):
		a.Kind, a.Text = ActRunFinished, "run "+itoa(p.Run.Ordinal)+" "+string(p.Run.Status)
	default:
		return Activity{}, false
	}
	return a, true
}
