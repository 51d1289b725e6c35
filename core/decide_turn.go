package core

import (
	"slices"
	"strings"
)

// observe folds a provider observation into the current attempt. An
// observation for an attempt that is not the run's current one, or for a
// run that already ended, changes nothing: late events never touch the
// current attempt.
func (t *tx) observe(o *Observation) {
	if o.Kind == ObsSessionState {
		t.observeSession(o)
		return
	}
	switch o.Kind {
	case ObsEffectDone:
		if o.EffectStatus == EffUnsupported {
			t.effectUnsupported(o)
			return
		}
		t.completeEffect(o.Key, orDefault(o.EffectStatus, EffCompleted), o.Text)
		return
	case ObsCheckpoint:
		t.observeCheckpoint(o)
		return
	case ObsRestored:
		t.observeRestored(o)
		return
	case ObsMission:
		t.observeMission(o)
		return
	}
	r := t.st.Runs[o.Run]
	if r == nil || r.Thread != o.Thread {
		return
	}
	a := t.st.CurrentAttempt(r)
	if a == nil || a.ID != o.Attempt || a.Status != AttemptRunning {
		return
	}
	switch o.Kind {
	case ObsTurnStarted:
		t.setSession(r.Thread, SessRunning, "", r.ID)
	case ObsNativeTurn:
		if o.Text != "" && a.NativeTurn != o.Text {
			c := *a
			c.NativeTurn = o.Text
			t.putAttempt(c)
		}
	case ObsText:
		n := t.nodeByKey(a, o.Key)
		if n == nil {
			n = t.addNode(a, o.Key, NodeAssistantMessage, o.Parent, "assistant")
		}
		if text := boundDelta(len(n.Text), o.Text); text != "" {
			t.emit(EvNodeText, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Node: n.ID,
				Correlation: r.ID, Payload: Payload{Text: text}})
		}
		if o.Final {
			t.closeNode(n.ID, NodeCompleted)
		}
	case ObsNode:
		n := t.nodeByKey(a, o.Key)
		if n == nil {
			n = t.addNode(a, o.Key, orDefault(o.NodeKind, NodeToolCall), o.Parent, o.Title)
		}
		// A whole text that only grew (a command's output so far) is
		// journaled as what it added: a node.text, as streamed text is.
		if o.Text != "" && len(o.Text) > len(n.Text) && len(o.Text) <= MaxNodeText && strings.HasPrefix(o.Text, n.Text) {
			t.emit(EvNodeText, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Node: n.ID,
				Correlation: r.ID, Payload: Payload{Text: o.Text[len(n.Text):]}})
			n = t.st.Node(n.ID)
		}
		c := *n
		if o.Title != "" {
			c.Title = o.Title
		}
		if o.Text != "" {
			c.Text = boundText(o.Text)
		}
		changedPaths := false
		if len(o.Paths) > 0 && !slices.Equal(o.Paths, c.Paths) {
			c.Paths, changedPaths = cleanPaths(o.Paths), true
		}
		if o.NodeStatus != "" && o.NodeStatus != c.Status {
			c.Status = o.NodeStatus
			if c.Status != NodeRunning {
				c.EndedAt = t.at
			}
		}
		if changedPaths || !sameNode(&c, n) {
			t.putNode(c)
			if n.Status == NodeRunning && c.Status != NodeRunning {
				t.captureNode(r, a, &c)
			}
		}
	case ObsPlan:
		p := Plan{ID: PlanID(r.ID), Run: r.ID, Kind: PlanTodoList, Items: append([]PlanItem(nil), o.Items...)}
		if o.Key == PlanKeyProposed {
			p.ID, p.Kind = ProposedPlanID(r.ID), PlanProposed
		}
		for i := range p.Items {
			p.Items[i].Depth = min(max(p.Items[i].Depth, 0), MaxPlanDepth)
		}
		t.emit(EvPlanUpdated, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Correlation: r.ID, Payload: Payload{Plan: &p}})
	case ObsRequest:
		t.openRequest(r, a, o)
	case ObsRequestClosed:
		for _, q := range t.st.RequestsOf(r.ID) {
			if q.Key == o.Key && q.Status == RequestPending {
				c := *q
				c.Status, c.Reason = RequestCancelled, orDefault(o.Text, "withdrawn by the provider")
				t.putRequest(c)
				t.closeNode(c.Node, NodeCancelled)
			}
		}
		t.settleWaiting(r.ID)
	case ObsNativeRef:
		pt := ProviderThread{ID: r.Thread + "/" + t.st.Threads[r.Thread].Provider, Thread: r.Thread,
			Provider: t.st.Threads[r.Thread].Provider, NativeRef: o.Text, Available: true}
		if cur := t.st.ProviderThreads[pt.ID]; cur == nil || *cur != pt {
			t.emit(EvProviderThread, Event{Thread: r.Thread, Payload: Payload{ProviderThread: &pt}})
		}
	case ObsWarning:
		t.emit(EvRuntimeWarning, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Correlation: r.ID, Payload: Payload{Note: o.Text}})
	case ObsResumeFailed:
		t.resumeFailed(r, a, o)
	case ObsTurnEnded:
		t.turnEnded(r, a, o)
	case ObsLLM:
		t.observeLLM(r, a, o)
	case ObsStepStarted:
		t.stepStarted(r, a, o)
	case ObsStepDone:
		t.stepDone(r, a, o)
	}
}

func orDefault[S ~string](s, d S) S {
	if s == "" {
		return d
	}
	return s
}

func (t *tx) observeSession(o *Observation) {
	th := t.st.Threads[o.Thread]
	if th == nil {
		return
	}
	cur := t.sessionState(o.Thread)
	if CanTransition(cur, o.SessionState) {
		s := Session{ID: SessionID(o.Thread), Thread: o.Thread, Provider: th.Provider, State: o.SessionState, Reason: o.Text}
		t.emit(EvSessionUpdated, Event{Thread: o.Thread, Correlation: o.Run, Payload: Payload{Session: &s}})
	}
	if o.SessionState == SessFailed || o.SessionState == SessStopped {
		// The process is gone: its turn cannot end by itself.
		if r := t.st.ActiveRun(o.Thread); r != nil {
			if a := t.st.CurrentAttempt(r); a != nil && a.Status == AttemptRunning {
				t.markNotResumable(r.ID, "the provider process ended")
				t.turnEnded(r, a, &Observation{TurnStatus: AttemptFailed, Error: orDefault(o.Text, "provider process ended")})
			}
		}
	}
}

func (t *tx) nodeByKey(a *Attempt, key string) *Node { return t.st.NodeByKey(a.ID, key) }

// addNode creates a node under an attempt; its parent is the node with
// the parent key, else the root turn.
func (t *tx) addNode(a *Attempt, key string, kind NodeKind, parentKey, title string) *Node {
	t.putNode(t.makeNode(a, key, kind, parentKey, title))
	return t.st.Node(NodeID(a.ID, len(t.st.NodesOf(a.ID))))
}

// makeNode builds the next node of an attempt without emitting it, so a
// caller can fill it in and emit it once.
func (t *tx) makeNode(a *Attempt, key string, kind NodeKind, parentKey, title string) Node {
	parent := NodeID(a.ID, 1)
	if p := t.nodeByKey(a, parentKey); p != nil {
		parent = p.ID
	}
	return Node{ID: NodeID(a.ID, len(t.st.NodesOf(a.ID))+1), Attempt: a.ID, Run: a.Run, Thread: a.Thread, Parent: parent,
		Kind: kind, Status: NodeRunning, Title: title, Key: key, StartedAt: t.at}
}

func (t *tx) closeNode(id string, status NodeStatus) {
	n := t.st.Node(id)
	if n == nil || n.Status != NodeRunning {
		return
	}
	c := *n
	c.Status, c.EndedAt = status, t.at
	t.putNode(c)
}

// turnEnded runs the completion barrier of an attempt: open child nodes
// closed, the todo list finalized, requests settled; then the run ends, or a
// pending steering restart opens the next attempt.
func (t *tx) turnEnded(r *Run, a *Attempt, o *Observation) {
	// The turn's effect records keep how it ended as their result.
	t.completeEffect(a.ID+":turn", EffCompleted, string(o.TurnStatus))
	t.completeEffect(a.ID+":interrupt", EffCompleted, string(o.TurnStatus))
	status := o.TurnStatus
	if r.RestartPending && status != AttemptFailed {
		t.endAttemptOnly(a, AttemptSuperseded)
		t.startAttempt(r.ID, ReasonSteeringRestart)
		return
	}
	if r.InterruptRequested && status == AttemptCompleted {
		// The turn finished before the interrupt landed: it completed.
		status = AttemptCompleted
	}
	switch status {
	case AttemptCompleted:
		t.endAttempt(r, AttemptCompleted, RunCompleted, "")
	case AttemptInterrupted:
		t.endAttempt(r, AttemptInterrupted, RunInterrupted, orDefault(o.Error, "interrupted"))
	default:
		t.endAttempt(r, AttemptFailed, RunFailed, orDefault(o.Error, "the provider reported a failure"))
	}
	if Live(t.sessionState(r.Thread)) {
		t.setSession(r.Thread, SessWaiting, "", r.ID)
	}
	t.startNext(r.Thread)
}

// endAttemptOnly closes an attempt's nodes and requests and sets its status.
func (t *tx) endAttemptOnly(a *Attempt, status AttemptStatus) {
	nodeStatus := NodeCompleted
	if status != AttemptCompleted {
		nodeStatus = NodeCancelled
	}
	nodes := t.st.NodesOf(a.ID)
	for i := len(nodes) - 1; i >= 0; i-- { // children before the root
		t.closeNode(nodes[i].ID, nodeStatus)
	}
	for _, q := range t.st.RequestsOf(a.Run) {
		if q.Attempt == a.ID && q.Status == RequestPending {
			c := *q
			c.Status, c.Reason = RequestCancelled, "the turn ended"
			t.putRequest(c)
		}
	}
	c := *t.st.Attempt(a.ID)
	c.Status, c.EndedAt = status, t.at
	t.putAttempt(c)
}

// endAttempt ends the current attempt and its run.
func (t *tx) endAttempt(r *Run, attemptStatus AttemptStatus, runStatus RunStatus, errText string) {
	if a := t.st.CurrentAttempt(r); a != nil && a.Status == AttemptRunning {
		t.endAttemptOnly(a, attemptStatus)
	}
	if p := t.st.Plan(PlanID(r.ID)); p != nil && runStatus == RunCompleted {
		t.finalizePlan(p)
	}
	c := *t.st.Runs[r.ID]
	c.Status, c.EndedAt = runStatus, t.at
	c.InterruptRequested, c.RestartPending = false, false
	c.Reply = t.replyOf(&c)
	if runStatus != RunCompleted {
		c.Error = errText
	}
	th := t.st.Threads[r.Thread]
	if checkpointsOn(th) {
		// The completion barrier: the run stays active until its
		// checkpoint is captured (or recorded missing or in error).
		c.Status, c.Finishing, c.EndedAt = r.Status, runStatus, 0
		if c.Status == RunWaiting {
			c.Status = RunRunning
		}
		t.putRun(c)
		t.captureEffect(th, r.ID, RunScope(r.Ordinal), r.Ordinal)
		return
	}
	t.putRun(c)
	t.refreshThread(r.Thread)
}

// finalizePlan marks every item of a completed run's todo list completed.
func (t *tx) finalizePlan(p *Plan) {
	changed := false
	items := append([]PlanItem(nil), p.Items...)
	for i := range items {
		if items[i].Status != ItemCompleted {
			items[i].Status = ItemCompleted
			changed = true
		}
	}
	if changed {
		c := *p
		c.Items = items
		t.emit(EvPlanUpdated, Event{Run: p.Run, Correlation: p.Run, Payload: Payload{Plan: &c}})
	}
}

// replyOf is the assistant text of the run's current attempt: its top-level
// assistant messages, in order.
func (t *tx) replyOf(r *Run) string {
	a := t.st.CurrentAttempt(r)
	if a == nil {
		return ""
	}
	root := NodeID(a.ID, 1)
	var parts []string
	for _, n := range t.st.NodesOf(a.ID) {
		if n.Kind == NodeAssistantMessage && n.Parent == root && n.Text != "" {
			parts = append(parts, n.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// timer handles deadlines: a schedule's next slot fires it
// (decide_schedule.go); an interrupt the provider did not confirm in
// time stops the session and ends the attempt here.
func (t *tx) timer(f *TimerFired) {
	if t.scheduleTimer(f.Key) {
		return
	}
	id, ok := strings.CutPrefix(f.Key, "interrupt:")
	if !ok {
		return
	}
	a := t.st.Attempt(id)
	if a == nil || a.Status != AttemptRunning {
		return
	}
	r := t.st.Runs[a.Run]
	if t.st.CurrentAttempt(r).ID != a.ID {
		return
	}
	t.emit(EvRuntimeWarning, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Correlation: r.ID,
		Payload: Payload{Note: "the provider did not confirm the interrupt in time; stopping it"}})
	t.stopSession(r.Thread, "interrupt deadline passed")
	t.turnEnded(r, a, &Observation{TurnStatus: AttemptInterrupted, Error: "interrupt deadline passed; provider stopped"})
}

// markNotResumable marks a run's pending requests as no longer answerable:
// their provider callback is gone. They stay visible as not_resumable.
func (t *tx) markNotResumable(runID, reason string) {
	for _, q := range t.st.RequestsOf(runID) {
		if q.Status == RequestPending {
			c := *q
			c.Status, c.Reason = RequestNotResumable, reason
			t.putRequest(c)
		}
	}
}
