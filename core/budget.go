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
//
// The daily budget (State.DailyBudgetUSD, set by budget.daily) is the same
// check across all threads: the cost of the runs started on the UTC day of
// the new run, plus its estimate. Its request says so (Action "daily"):
// allow runs this turn and leaves the daily budget as it is, an answer
// sets a new daily budget, allow_always lifts it.

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

// budgetDaily is the Request.Action of a hold for the daily budget.
const budgetDaily = "daily"

// overBudget says why the thread's next turn, at time at, would pass its
// budget or the daily one ("" when it would not), and which.
func (st *State) overBudget(th *Thread, run string, at int64) (why, action string) {
	usd, tokens := st.budgetEstimate(th.ID, run)
	if why := st.overThread(th, usd, tokens); why != "" {
		return why, ""
	}
	if why := st.overDaily(st.DailyBudgetUSD, usd, at); why != "" {
		return why, budgetDaily
	}
	return "", ""
}

// overDaily is a daily budget (0: none) for a turn of about usd at time at.
func (st *State) overDaily(budget, usd float64, at int64) string {
	if budget <= 0 {
		return ""
	}
	day := UsageDay(at)
	spent := st.spentOn(day)
	if spent >= budget || spent+usd > budget {
		return "daily budget: " + dollars(spent) + " spent on " + day + " (UTC) of " + dollars(budget) +
			"; the next turn costs about " + dollars(usd)
	}
	return ""
}

// spentOn sums the cost of the runs started on a UTC day, in a fixed
// order (threads by id, runs by ordinal): a float sum in map order could
// differ in its last bit between replays, and Decide must not.
func (st *State) spentOn(day string) float64 {
	sum := 0.0
	for _, id := range sortedKeys(st.Threads) {
		for _, r := range st.RunsOf(id) {
			if r.CostUSD > 0 && UsageDay(runStart(r)) == day {
				sum += r.CostUSD
			}
		}
	}
	return sum
}

// overThread is the thread's own budget and token cap.
func (st *State) overThread(th *Thread, usd float64, tokens int) string {
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
	why, action := t.st.overBudget(th, r.ID, t.at)
	if why == "" {
		return false
	}
	prompt := why + ". Allow this turn, answer a new budget in USD, or deny to stop."
	n := t.addNode(a, "request:budget", NodeApproval, "", prompt)
	q := Request{ID: "R" + itoa(t.st.RequestCount+1), Thread: r.Thread, Run: r.ID, Attempt: a.ID,
		Node: n.ID, Kind: RequestBudget, Status: RequestPending, Prompt: prompt, Key: "budget", Action: action, CreatedAt: t.at}
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
	if q.Action == budgetDaily && c.Response != RespDeny {
		return t.respondDaily(c, q, r)
	}
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
		v, rej := parseBudget(c.Answer)
		if rej != nil {
			return rej
		}
		th.BudgetUSD = v
		usd, tokens := t.st.budgetEstimate(r.Thread, r.ID)
		if why := t.st.overThread(&th, usd, tokens); why != "" {
			return reject(ReasonInvalidState, "%s: answer a higher amount, or allow this turn", why)
		}
	}
	t.putThread(th)
	t.resolveBudget(q, c.Response, c.Answer)
	t.releaseBudget(r)
	return nil
}

func parseBudget(answer string) (float64, *Rejection) {
	v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(answer), "$"), 64)
	if err != nil || v < 0 || v != v || v > 1e9 {
		return 0, reject(ReasonInvalidState, "%q is not a budget: answer an amount in US dollars such as 5 or 0.50", answer)
	}
	return v, nil
}

// respondDaily answers a hold for the daily budget (deny goes the common
// way): allow runs this turn, allow_always lifts the daily budget, an
// answer sets it.
func (t *tx) respondDaily(c *Command, q *Request, r *Run) *Rejection {
	switch c.Response {
	case RespAllowAlways:
		t.putDaily(0)
	case RespAnswer:
		v, rej := parseBudget(c.Answer)
		if rej != nil {
			return rej
		}
		usd, _ := t.st.budgetEstimate(r.Thread, r.ID)
		if why := t.st.overDaily(v, usd, t.at); why != "" {
			return reject(ReasonInvalidState, "%s: answer a higher amount, or allow this turn", why)
		}
		t.putDaily(v)
	}
	t.resolveBudget(q, c.Response, c.Answer)
	t.releaseBudget(r)
	return nil
}

func (t *tx) putDaily(usd float64) {
	t.emit(EvDailyBudget, Event{Payload: Payload{DailyUSD: usd}})
}

// setDailyBudget handles budget.daily: the new daily budget, and every held
// turn that no budget holds any more starts.
func (t *tx) setDailyBudget(c *Command) *Rejection {
	t.putDaily(c.BudgetUSD)
	for _, id := range sortedKeys(t.st.Threads) {
		t.releaseIfCovered(t.st.Threads[id], "daily budget set to "+dollars(c.BudgetUSD))
	}
	return nil
}

// releaseIfCovered starts the thread's held turn if no budget holds it now.
func (t *tx) releaseIfCovered(th *Thread, answer string) {
	r := t.st.ActiveRun(th.ID)
	q := t.st.budgetHold(r)
	if q == nil {
		return
	}
	if why, _ := t.st.overBudget(th, r.ID, t.at); why != "" {
		return
	}
	if t.receipt.Run == "" {
		t.receipt.Run, t.receipt.Ordinal, t.receipt.Request = r.ID, r.Ordinal, q.ID
	}
	t.resolveBudget(q, RespAllow, answer)
	t.releaseBudget(r)
}

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
	t.releaseIfCovered(t.st.Threads[th.ID], "budget set to "+dollars(c.BudgetUSD))
	return nil
}
