package core

import (
	"fmt"
	"strings"
)

func (t *tx) createThread(c *Command) *Rejection {
	title, auto := strings.TrimSpace(c.Title), false
	if title == "" {
		title, auto = "thread "+itoa(len(t.st.Threads)+1), true
	}
	th := Thread{ID: c.NewThread, Title: title, TitleAuto: auto, Provider: c.Provider, Caps: c.Caps, Workspace: c.Workspace,
		Status: ThreadIdle, BudgetUSD: c.BudgetUSD, MaxTokens: c.MaxTokens, Allow: c.Allow, CreatedAt: c.At,
		Worktree: c.Worktree, Repo: c.Repo}
	if c.Worktree != "" {
		th.Branch = c.Branch
	}
	if a := t.st.AgentByAlias(c.Agent); a != nil {
		th.Agent, th.AgentAlias = a.ID, a.Alias
	}
	t.putThread(th)
	t.receipt.Thread = th.ID
	return nil
}

func (t *tx) renameThread(c *Command) *Rejection {
	th := *t.st.Threads[c.Thread]
	th.Title, th.TitleAuto = strings.TrimSpace(c.Title), false
	t.putThread(th)
	return nil
}

func (t *tx) archiveThread(c *Command) *Rejection {
	th := *t.st.Threads[c.Thread]
	if th.Archived {
		return reject(ReasonInvalidState, "thread %s is already archived", th.ID)
	}
	if r := t.st.ActiveRun(th.ID); r != nil {
		return reject(ReasonInvalidState, "run %d is active; interrupt it first", r.Ordinal)
	}
	for _, r := range t.st.RunsOf(th.ID) {
		if r.Status == RunQueued {
			rc := *r
			rc.Status, rc.EndedAt = RunCancelled, t.at
			t.putRun(rc)
		}
	}
	t.stopSession(th.ID, "thread archived")
	th = *t.st.Threads[c.Thread]
	th.Archived, th.Status = true, ThreadArchived
	t.putThread(th)
	return nil
}

// fork creates a thread whose context is the source's up to a stable
// point: the latest completed run at or before the one asked for.
func (t *tx) fork(c *Command) *Rejection {
	src := t.st.Threads[c.Thread]
	upto := c.Run
	if upto == 0 {
		upto = src.Runs
	}
	point := 0
	for _, r := range t.st.RunsOf(src.ID) {
		if r.Ordinal <= upto && r.Status == RunCompleted {
			point = r.Ordinal
		}
	}
	if point == 0 && upto > 0 {
		return reject(ReasonInvalidState, "thread %s has no completed run at or before run %d to fork from", src.ID, upto)
	}
	title := strings.TrimSpace(c.Title)
	if title == "" {
		title = "fork of " + src.Title
	}
	th := Thread{ID: c.NewThread, Title: title, Provider: src.Provider, Caps: src.Caps, Workspace: src.Workspace,
		Status: ThreadIdle, ForkedFrom: src.ID, ForkRun: point, BudgetUSD: src.BudgetUSD, MaxTokens: src.MaxTokens,
		Allow: src.Allow, CreatedAt: c.At, Agent: src.Agent, AgentAlias: src.AgentAlias}
	if c.Worktree != "" {
		th.Workspace, th.Worktree, th.Repo, th.Branch = c.Worktree, c.Worktree, c.Repo, c.Branch
	}
	t.putThread(th)
	t.forkNative(src, &th, point)
	tr := Transfer{ID: th.ID + "/fork", Kind: TransferFork, From: src.ID, To: th.ID, Run: point, Status: TransferResolved}
	t.emit(EvTransferUpdated, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{Transfer: &tr}})
	t.receipt.Thread, t.receipt.Ordinal = th.ID, point
	return nil
}

// forkNative gives a fork of a thread whose provider can fork its own
// conversation (Caps.Fork) a provider thread to be forked from the
// source's through the last native turn of run point; without one (no
// capability, no available conversation, no turn recorded) the fork's
// first turn starts a new conversation with the history, as for any agent.
func (t *tx) forkNative(src, th *Thread, point int) {
	pt := t.st.ProviderThreads[src.ID+"/"+src.Provider]
	if !src.Caps.Fork || pt == nil || !pt.Available || pt.NativeRef == "" {
		return
	}
	turn := t.st.throughTurn(src.ID, point)
	if turn == "" {
		return
	}
	f := ProviderThread{ID: th.ID + "/" + th.Provider, Thread: th.ID, Provider: th.Provider, Available: true,
		ForkOf: pt.NativeRef, ForkAt: turn}
	t.emit(EvProviderThread, Event{Thread: th.ID, Correlation: th.ID, Payload: Payload{ProviderThread: &f}})
}

// switchProvider moves a thread to another provider between runs and
// records the handoff text the new provider gets with the next run: only
// the runs it missed (strategy delta) when it has an earlier conversation
// of this thread to resume, else a summary of the whole thread. The text
// is journaled and shown; nothing hidden is added to a prompt.
func (t *tx) switchProvider(c *Command) *Rejection {
	th := *t.st.Threads[c.Thread]
	if c.Provider == "" {
		return reject(ReasonInvalidState, "provider.switch needs a provider")
	}
	if r := t.st.ActiveRun(th.ID); r != nil {
		return reject(ReasonInvalidState, "run %d is active; switch providers between runs", r.Ordinal)
	}
	if c.Provider == th.Provider {
		return nil
	}
	strategy, since := HandoffFullSummary, 0
	if pt := t.st.ProviderThreads[th.ID+"/"+c.Provider]; pt != nil && pt.Available {
		for _, r := range t.st.RunsOf(th.ID) {
			if r.Provider == c.Provider && r.Status != RunRolledBack {
				strategy, since = HandoffDelta, r.Ordinal
			}
		}
	}
	var b strings.Builder
	if strategy == HandoffDelta {
		fmt.Fprintf(&b, "Since your last turn in this thread (run %d), the thread went on with %s:\n", since, th.Provider)
	} else {
		fmt.Fprintf(&b, "This thread so far (handed over from %s):\n", th.Provider)
		if th.ForkedFrom != "" {
			for _, m := range t.st.Context(th.ForkedFrom, th.ForkRun+1) {
				b.WriteString(m.Role + ": " + m.Text + "\n")
			}
		}
	}
	for _, r := range t.st.RunsOf(th.ID) {
		if r.Ordinal <= since {
			continue
		}
		switch r.Status {
		case RunRolledBack, RunCancelled, RunQueued:
			continue
		}
		b.WriteString("user: " + r.Text + "\n")
		for _, s := range r.Steers {
			b.WriteString("user: " + s + "\n")
		}
		if r.Reply != "" {
			b.WriteString("assistant: " + r.Reply + "\n")
		}
	}
	h := Handoff{ID: th.ID + "/handoff" + itoa(len(t.st.Handoffs)+1), Thread: th.ID, From: th.Provider,
		To: c.Provider, Strategy: strategy, Text: b.String()}
	t.stopSession(th.ID, "provider switched")
	t.emit(EvHandoffRecorded, Event{Thread: th.ID, Correlation: h.ID, Payload: Payload{Handoff: &h}})
	th = *t.st.Threads[c.Thread]
	th.Provider, th.Caps, th.Handoff = c.Provider, c.Caps, h.ID
	t.putThread(th)
	return nil
}

// recover reconciles the projection with a host that just started: every
// provider process is gone (docs/ARCHITECTURE.md, "Crash and resume").
func (t *tx) recover() {
	sessions, runs := 0, 0
	t.recoverMissions()
	t.abandonScopeCaptures()
	for _, id := range sortedKeys(t.st.Threads) {
		th := t.st.Threads[id]
		sess := t.st.Sessions[SessionID(id)]
		if sess != nil && Live(sess.State) {
			sessions++
			t.setSession(id, SessStopping, "host restarted", "")
			t.setSession(id, SessStopped, "host restarted: the provider process is gone", "")
		}
		r := t.st.ActiveRun(id)
		if r == nil {
			continue
		}
		if t.st.budgetHold(r) != nil {
			continue // the kernel's own request: still answerable
		}
		if r.AwaitBase && !t.needBase(th) {
			// It waited for a mark, which abandonScopeCaptures recorded
			// as cut short: nothing to wait for any more.
			t.releaseAwaiting(th)
			continue
		}
		if r.Finishing != "" || r.AwaitBase {
			// A capture was in flight: it is idempotent, ask again.
			scope, n := RunScope(r.Ordinal), r.Ordinal
			if r.AwaitBase {
				scope, n = ScopeBase, 0
			}
			t.captureEffect(th, r.ID, scope, n)
			continue
		}
		a := t.st.CurrentAttempt(r)
		if a != nil {
			t.completeEffect(a.ID+":turn", EffUnknown, "host restarted before the turn ended")
		}
		if r.Status == RunWaiting && th.Caps.DurableRequests && !r.InterruptRequested && !r.RestartPending {
			continue // answered later, continued from the journal
		}
		if a != nil && a.Status == AttemptRunning {
			t.markNotResumable(r.ID, "host restarted: the provider process is gone")
			t.endAttemptOnly(a, AttemptInterrupted)
		}
		runs++
		c := *t.st.Runs[r.ID]
		c.Status, c.EndedAt = RunInterrupted, t.at
		c.Recoverable = !r.InterruptRequested
		if r.InterruptRequested {
			c.Error = "interrupted by user"
		} else {
			c.Error = "host restarted; continue with `nexus resume " + id + "`"
		}
		c.InterruptRequested, c.RestartPending = false, false
		t.putRun(c)
		t.refreshThread(id)
	}
	if len(t.events) > 0 {
		t.emit(EvHostRecovered, Event{Payload: Payload{Note: fmt.Sprintf(
			"host restarted: %d provider session(s) stopped, %d active run(s) interrupted", sessions, runs)}})
	}
}

// shutdown stops the sessions of threads with no active run when a host
// exits cleanly. Sessions serving a run are left for the next host's
// recovery pass, which interrupts the run and keeps it resumable.
func (t *tx) shutdown() {
	for _, id := range sortedKeys(t.st.Threads) {
		if Live(t.sessionState(id)) && t.st.ActiveRun(id) == nil {
			t.setSession(id, SessStopping, "host stopped", "")
			t.setSession(id, SessStopped, "host stopped", "")
		}
	}
}
