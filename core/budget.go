package core

import (
	"strconv"
	"strings"
)

// A thread's budget (Thread.BudgetUSD, Thread.MaxTokens) is checked before
// each new run's turn, for every provider: the kernel cannot stop an
// external agent in the middle of a turn, but it can hold the next one.
// The next turn is taken to cost what the thread's latest run with usage
// cost; when what is spent plus that would pass the budget, or what is
// spent already reaches it, the run waits on a budget request instead of
// starting. The person answers it: allow runs this one turn (the budget
// rises to what the estimate needs), an answer sets a new budget in USD,
// allow_always lifts the budget, deny stops the run and holds the queue.
// thread.budget sets a budget and, when the new one covers the held turn,
// resolves the request and starts it.

// budgetEstimate is what the thread's next turn is taken to cost: the
// usage of its latest run that reported any, other than skip.
func (st *State) budgetEstimate(thread, skip string) (usd float64, tokens int) {
	runs := st.RunsOf(thread)
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.ID != skip && (r.CostUSD > 0 || r.TokensIn+r.TokensOut > 0) {
			return r.CostUSD, r.TokensIn + r.TokensOut
		}
	}
	return 0, 0
}

// overBudget says why the thread's next turn would pass its budget, or ""
// when it would not.
func (st *State) overBudget(th *Thread, run string) string {
	usd, tokens := st.budgetEstimate(th.ID, run)
	spentTokens := th.TokensIn + th.TokensOut
	switch {
	case th.BudgetUSD > 0 && (th.CostUSD >= th.BudgetUSD || th.CostUSD+usd > th.BudgetUSD):
		return "budget: " + dollars(th.CostUSD) + " spent of " + dollars(th.BudgetUSD) +
			"; the next turn costs about " + dollars(usd)
	case th.MaxTokens > 0 && (spentTokens >= th.MaxTokens || spentTokens+tokens > th.MaxTokens):
		return "token cap: " + itoa(spentTokens) + " tokens spent of " + itoa(th.MaxTokens) +
			"; the next turn takes about " + itoa(tokens)
	}
	return ""
}

func dollars(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) }

// holdForBudget opens a budget request for run r's first attempt a when the
// thread's next turn would pass its budget, and reports whether it did.
func (t *tx) holdForBudget(r *Run, a *Attempt) bool {
	th := t.st.Threads[r.Thread]
	why := t.st.overBudget(th, r.ID)
	if why == "" {
		return false
	}
	prompt := why + ". Allow this turn, answer a new budget in USD, or deny to stop."
	n := t.addNode(a, "request:budget", NodeApproval, "", prompt)
	q := Request{ID: "R" + itoa(t.st.RequestCount+1), Thread: r.Thread, Run: r.ID, Attempt: a.ID,
		Node: n.ID, Kind: RequestBudget, Status: RequestPending, Prompt: prompt, Key: "budget", CreatedAt: t.at}
	t.putRequest(q)
	rc := *t.st.Runs[r.ID]
	rc.Status = RunWaiting
	t.putRun(rc)
	t.refreshThread(r.Thread)
	return true
}

// budgetHold returns the pending budget request that holds run r, if any.
func (st *State) budgetHold(r *Run) *Request {
	if r == nil || r.Status != RunWaiting {
		return nil
	}
	for _, q := range st.RequestsOf(r.ID) {
		if q.Kind == RequestBudget && q.Status == RequestPending {
			return q
		}
	}
	return nil
}

// respondBudget answers a budget request (see the top of this file).
func (t *tx) respondBudget(c *Command, q *Request) *Rejection {
	th := *t.st.Threads[q.Thread]
	r := t.st.Runs[q.Run]
	switch c.Response {
	case RespDeny:
		t.resolveBudget(q, c.Response, "stopped")
		th.QueueHeld = true
		t.putThread(th)
		t.endAttempt(t.st.Runs[r.ID], AttemptCancelled, RunCancelled, "stopped at the budget")
		return nil
	case RespAllowAlways:
		th.BudgetUSD, th.MaxTokens = 0, 0
	case RespAllow:
		usd, tokens := t.st.budgetEstimate(th.ID, r.ID)
		if th.BudgetUSD > 0 {
			th.BudgetUSD = max(th.BudgetUSD, th.CostUSD+usd)
		}
		if th.MaxTokens > 0 {
			th.MaxTokens = max(th.MaxTokens, th.TokensIn+th.TokensOut+tokens)
		}
	case RespAnswer:
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(c.Answer), "$"), 64)
		if err != nil || v < 0 || v != v || v > 1e9 {
			return reject(ReasonInvalidState, "%q is not a budget: answer an amount in US dollars such as 5 or 0.50", c.Answer)
		}
		th.BudgetUSD = v
		if why := t.withBudget(th, r); why != "" {
			return reject(ReasonInvalidState, "%s: answer a higher amount, or allow this turn", why)
		}
	}
	t.putThread(th)
	t.resolveBudget(q, c.Response, c.Answer)
	t.releaseBudget(r)
	return nil
}

// withBudget is overBudget for th's budget as it would be set.
func (t *tx) withBudget(th Thread, r *Run) string { return t.st.overBudget(&th, r.ID) }

func (t *tx) resolveBudget(q *Request, resp Response, answer string) {
	nq := *q
	nq.Status, nq.Response, nq.Answer = RequestResolved, resp, answer
	t.putRequest(nq)
	t.closeNode(q.Node, NodeCompleted)
}

// releaseBudget starts the turn a budget request held.
func (t *tx) releaseBudget(r *Run) {
	rc := *t.st.Runs[r.ID]
	rc.Status = RunRunning
	t.putRun(rc)
	t.beginTurn(t.st.Runs[r.ID], t.st.CurrentAttempt(&rc))
}

// setBudget handles thread.budget: the thread's budget and token cap (0:
// none). A held turn that the new budget covers starts.
func (t *tx) setBudget(c *Command) *Rejection {
	th := *t.st.Threads[c.Thread]
	th.BudgetUSD, th.MaxTokens = c.BudgetUSD, c.MaxTokens
	t.putThread(th)
	r := t.st.ActiveRun(th.ID)
	if q := t.st.budgetHold(r); q != nil && t.withBudget(th, r) == "" {
		t.receipt.Run, t.receipt.Ordinal, t.receipt.Request = r.ID, r.Ordinal, q.ID
		t.resolveBudget(q, RespAllow, "budget set to "+dollars(c.BudgetUSD))
		t.releaseBudget(r)
	}
	return nil
}
