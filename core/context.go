package core

import "strings"

// Context returns the conversation a provider sees before run `before` of a
// thread: the lineage's context up to the fork point, then every earlier
// run that was not rolled back, cancelled or still queued: its message, its
// steering messages, and its reply.
func (st *State) Context(thread string, before int) []Message {
	th := st.Threads[thread]
	if th == nil {
		return nil
	}
	var out []Message
	if th.ForkedFrom != "" {
		out = st.Context(th.ForkedFrom, th.ForkRun+1)
	}
	for _, r := range st.RunsOf(thread) {
		if r.Ordinal >= before {
			break
		}
		switch r.Status {
		case RunRolledBack, RunCancelled, RunQueued:
			continue
		}
		if h := st.Handoffs[r.Handoff]; h != nil {
			out = append(out, Message{Role: "user", Text: h.Text})
		}
		if tr := st.Transfers[r.Transfer]; tr != nil {
			out = append(out, Message{Role: "user", Text: tr.Text})
		}
		out = append(out, Message{Role: "user", Text: r.Text})
		for _, s := range r.Steers {
			out = append(out, Message{Role: "user", Text: s})
		}
		if r.Reply != "" {
			out = append(out, Message{Role: "assistant", Text: r.Reply})
		}
	}
	return out
}

// TurnFor builds the turn of a new attempt of run r.
func (st *State) TurnFor(r *Run, reason AttemptReason) *Turn {
	msgs := st.Context(r.Thread, r.Ordinal)
	var handoff, transfer string
	if h := st.Handoffs[r.Handoff]; h != nil {
		// The provider-switch handoff comes with the message, as journaled.
		handoff = h.Text
		msgs = append(msgs, Message{Role: "user", Text: h.Text})
	}
	if tr := st.Transfers[r.Transfer]; tr != nil {
		// The merge-back delta comes with the message, as journaled.
		transfer = tr.Text
		msgs = append(msgs, Message{Role: "user", Text: tr.Text})
	}
	msgs = append(msgs, Message{Role: "user", Text: r.Text})
	instr := r.Text
	for _, s := range r.Steers {
		msgs = append(msgs, Message{Role: "user", Text: s})
		instr = s
	}
	users := 0
	for _, m := range msgs {
		if m.Role == "user" {
			users++
		}
	}
	var settled []Request
	for _, q := range st.RequestsOf(r.ID) {
		if q.Status == RequestResolved && q.Kind != RequestBudget { // the kernel's own, not the agent's
			settled = append(settled, *q)
		}
	}
	t := &Turn{Messages: msgs, Text: r.Text, Instruction: instr, Reason: reason, Settled: settled, UserMessages: users,
		Handoff: handoff, Transfer: transfer}
	for _, a := range st.AttemptsOf(r.ID) {
		for _, n := range st.NodesOf(a.ID) {
			// Only the built-in agent's planning calls are replayed; an
			// external agent's usage reports carry other keys.
			if n.Kind == NodeLLMCall && n.Status == NodeCompleted && !strings.Contains(strings.TrimPrefix(n.Key, "llm:"), ":") {
				if t.LLM == nil {
					t.LLM = map[string]string{}
				}
				t.LLM[strings.TrimPrefix(n.Key, "llm:")] = n.Text
			}
		}
	}
	for _, e := range st.EffectsOf(r.ID) {
		if e.Kind == EffWorkerStep {
			if t.Steps == nil {
				t.Steps = map[string]EffectRecord{}
			}
			t.Steps[e.Key] = *e
		}
	}
	if th := st.Threads[r.Thread]; th != nil {
		if pt := st.ProviderThreads[r.Thread+"/"+th.Provider]; pt != nil && pt.Available {
			t.NativeRef, t.RevertBefore, t.ForkOf, t.ForkAt = pt.NativeRef, pt.RevertBefore, pt.ForkOf, pt.ForkAt
		}
		if a := st.Agents[th.Agent]; a != nil {
			t.Agent, t.Instructions = a.Alias, a.Instructions
		}
		t.Policy = Policy{Allow: append([]string(nil), th.Allow...), BudgetUSD: th.BudgetUSD, MaxTokens: th.MaxTokens,
			SpentUSD: th.CostUSD, SpentTokens: th.TokensIn + th.TokensOut}
	}
	return t
}
