package core

// observeLLM journals a model call's response as a completed llm_call node
// and adds its usage to the thread. A resumed turn finds the response in
// Turn.LLM by its key and never calls the model again for it.
func (t *tx) observeLLM(r *Run, a *Attempt, o *Observation) {
	c := t.makeNode(a, "llm:"+o.Key, NodeLLMCall, o.Parent, o.Model)
	c.Status, c.EndedAt, c.Text = NodeCompleted, t.at, o.Text
	c.TokensIn, c.TokensOut, c.CostUSD, c.DurationMS = o.TokensIn, o.TokensOut, o.CostUSD, o.DurationMS
	c.NoCost = o.NoCost
	t.putNode(c)
	rc := *t.st.Runs[r.ID]
	addUsage(&rc.TokensIn, &rc.TokensOut, &rc.CostUSD, &rc.NoCost, o)
	t.putRun(rc)
	th := *t.st.Threads[r.Thread]
	addUsage(&th.TokensIn, &th.TokensOut, &th.CostUSD, &th.NoCost, o)
	t.putThread(th)
}

// addUsage adds a model call's usage to a run's or a thread's sums.
func addUsage(in, out *int, cost *float64, noCost *bool, o *Observation) {
	*in += o.TokensIn
	*out += o.TokensOut
	*cost += o.CostUSD
	*noCost = *noCost || o.NoCost
}

// stepStarted journals the first phase of a worker step: a running
// worker_step node and an effect record with its idempotency key, class
// and the hashes recovery needs. It must be durable before the step runs.
func (t *tx) stepStarted(r *Run, a *Attempt, o *Observation) {
	var c Node
	if n := t.nodeByKey(a, "step:"+o.Key); n != nil {
		c = *n
	} else {
		c = t.makeNode(a, "step:"+o.Key, NodeWorkerStep, o.Parent, o.Title)
	}
	c.Action, c.Status, c.EndedAt = o.Action, NodeRunning, 0
	if len(o.Paths) > 0 {
		c.Paths = cleanPaths(o.Paths)
	}
	t.putNode(c)
	n := t.st.Node(c.ID)
	rec := &EffectRecord{Key: o.Key, Kind: EffWorkerStep, Class: orDefault(o.Class, ClassIrreversible), Run: r.ID,
		Status: EffStarted, Node: n.ID, Target: o.Title, Hash: o.Hash, PreHash: o.PreHash}
	t.emit(EvEffectStarted, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Node: n.ID, Correlation: r.ID,
		Payload: Payload{Effect: rec}})
}

// stepDone journals the second phase: the step's status, output, exit
// code and the hash of what it wrote.
func (t *tx) stepDone(r *Run, a *Attempt, o *Observation) {
	rec := t.st.Effect(o.Key)
	if rec == nil || rec.Run != r.ID {
		return
	}
	c := *rec
	c.Status, c.Result, c.Exit = orDefault(o.EffectStatus, EffCompleted), o.Text, o.Exit
	if o.Hash != "" {
		c.Hash = o.Hash
	}
	t.emit(EvEffectCompleted, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Node: c.Node, Correlation: r.ID,
		Payload: Payload{Effect: &c}})
	var nc Node
	if n := t.nodeByKey(a, "step:"+o.Key); n != nil {
		nc = *n
	} else {
		nc = t.makeNode(a, "step:"+o.Key, NodeWorkerStep, o.Parent, rec.Target)
	}
	nc.Status = NodeCompleted
	if c.Status != EffCompleted {
		nc.Status = NodeFailed
	}
	nc.Text, nc.Exit, nc.Hash, nc.EndedAt = o.Text, o.Exit, c.Hash, t.at
	if nc.Action == "" {
		nc.Action = o.Action
	}
	t.putNode(nc)
}

// allowAlways remembers an "allow always" answer for the thread and the
// request's action kind.
func (t *tx) allowAlways(q *Request) {
	if q.Action == "" {
		return
	}
	th := *t.st.Threads[q.Thread]
	for _, k := range th.Allow {
		if k == q.Action {
			return
		}
	}
	th.Allow = append(append([]string(nil), th.Allow...), q.Action)
	t.putThread(th)
}
