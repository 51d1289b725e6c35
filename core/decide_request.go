package core

// openRequest records an approval or question the provider raised. If this
// run already settled a request with the same key (a recovery attempt
// asking again), the old answer is delivered and nothing new is asked.
func (t *tx) openRequest(r *Run, a *Attempt, o *Observation) {
	th := t.st.Threads[r.Thread]
	for _, q := range t.st.RequestsOf(r.ID) {
		if o.Key != "" && q.Key == o.Key && q.Status == RequestResolved {
			t.effect(Effect{Key: q.ID + ":answer:" + a.ID, Kind: EffAnswer, Class: ClassIdempotent,
				Thread: r.Thread, Run: r.ID, Attempt: a.ID, Provider: th.Provider, Request: q}, false)
			return
		}
	}
	kind := orDefault(o.RequestKind, RequestApproval)
	nodeKind := NodeApproval
	if kind == RequestUserInput {
		nodeKind = NodeUserInput
	}
	n := t.addNode(a, "request:"+o.Key, nodeKind, o.Parent, o.Prompt)
	q := Request{ID: "R" + itoa(t.st.RequestCount+1), Thread: r.Thread, Run: r.ID, Attempt: a.ID,
		Node: n.ID, Kind: kind, Status: RequestPending, Prompt: o.Prompt, Key: o.Key, Action: o.Action, CreatedAt: t.at}
	t.putRequest(q)
	rc := *t.st.Runs[r.ID]
	if rc.Status != RunWaiting {
		rc.Status = RunWaiting
		t.putRun(rc)
	}
	if Live(t.sessionState(r.Thread)) {
		t.setSession(r.Thread, SessApproval, "", r.ID)
	}
	t.refreshThread(r.Thread)
}

// respond resolves a request. A request whose provider process is gone is
// not_resumable, unless the provider keeps its requests in the journal
// (DurableRequests): then the run continues with a recovery attempt that
// carries the answer.
func (t *tx) respond(c *Command) *Rejection {
	q := t.st.Requests[c.Request]
	t.receipt.Thread, t.receipt.Run, t.receipt.Request = q.Thread, q.Run, q.ID
	r := t.st.Runs[q.Run]
	t.receipt.Ordinal = r.Ordinal
	switch q.Status {
	case RequestResolved, RequestCancelled:
		return reject(ReasonAlreadyResolved, "request %s is already %s", q.ID, q.Status)
	case RequestNotResumable:
		return reject(ReasonNotResumable, "request %s can no longer be answered: its provider process ended", q.ID)
	}
	if q.Kind == RequestBudget {
		return t.respondBudget(c, q)
	}
	if c.Response == RespAnswer && q.Kind != RequestUserInput {
		return reject(ReasonInvalidState, "request %s is an approval: answer it with --allow or --deny", q.ID)
	}
	if c.Response != RespAnswer && q.Kind == RequestUserInput {
		return reject(ReasonInvalidState, "request %s is a question: answer it with --answer TEXT", q.ID)
	}
	th := t.st.Threads[q.Thread]
	live := Live(t.sessionState(q.Thread))
	if !live && !th.Caps.DurableRequests {
		nq := *q
		nq.Status, nq.Reason = RequestNotResumable, "the provider process ended before the answer"
		t.putRequest(nq)
		return reject(ReasonNotResumable, "request %s can no longer be answered: its provider process ended", q.ID)
	}
	nq := *q
	nq.Status, nq.Response, nq.Answer = RequestResolved, c.Response, c.Answer
	t.putRequest(nq)
	t.closeNode(q.Node, NodeCompleted)
	if c.Response == RespAllowAlways {
		t.allowAlways(&nq)
	}
	if !live {
		// The built-in agent continues from the journal.
		if a := t.st.CurrentAttempt(r); a != nil && a.Status == AttemptRunning {
			t.endAttemptOnly(a, AttemptInterrupted)
		}
		t.startAttempt(r.ID, ReasonProviderRecovery)
		return nil
	}
	t.effect(Effect{Key: q.ID + ":answer", Kind: EffAnswer, Class: ClassIdempotent, Thread: q.Thread,
		Run: q.Run, Attempt: q.Attempt, Provider: th.Provider, Request: t.st.Requests[q.ID]}, true)
	t.settleWaiting(r.ID)
	return nil
}

// settleWaiting puts a waiting run back to running once it has no pending
// request.
func (t *tx) settleWaiting(runID string) {
	r := t.st.Runs[runID]
	if r.Status != RunWaiting {
		return
	}
	for _, q := range t.st.RequestsOf(runID) {
		if q.Status == RequestPending {
			return
		}
	}
	c := *r
	c.Status = RunRunning
	t.putRun(c)
	if Live(t.sessionState(r.Thread)) {
		t.setSession(r.Thread, SessRunning, "", r.ID)
	}
	t.refreshThread(r.Thread)
}
