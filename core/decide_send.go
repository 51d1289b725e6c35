package core

// send applies the dispatch policy of message.send (docs/ARCHITECTURE.md,
// "Commands and events").
func (t *tx) send(c *Command) *Rejection {
	th := t.st.Threads[c.Thread]
	if th.Archived {
		return reject(ReasonInvalidState, "thread %s is archived", th.ID)
	}
	active := t.st.ActiveRun(th.ID)
	mode := c.Mode
	if active != nil && (active.AwaitBase || t.st.budgetHold(active) != nil) && (mode == "" || mode == ModeAuto || mode == ModeSteer || mode == ModeRestart) {
		// The turn has not begun (the baseline is being captured, or the
		// budget holds it): the message joins the run's instructions
		// before the provider sees it.
		r := *active
		r.Steers = append(append([]string(nil), r.Steers...), c.Text)
		t.putRun(r)
		t.receipt.Run, t.receipt.Ordinal, t.receipt.Mode = r.ID, r.Ordinal, ModeSteer
		return nil
	}
	if rec := t.recoverableRun(th.ID); active == nil && rec != nil && c.MergeBack == "" &&
		(mode == "" || mode == ModeAuto || mode == ModeSteer || mode == ModeRestart) {
		// A host restart cut this run off: the message continues it (a
		// provider_recovery attempt, the message folded in as steering),
		// the way it would have steered the run had the host lived.
		r := *rec
		r.Steers = append(append([]string(nil), r.Steers...), c.Text)
		t.startRun(r, ReasonProviderRecovery)
		t.receipt.Run, t.receipt.Ordinal, t.receipt.Mode = r.ID, r.Ordinal, ModeSteer
		return nil
	}
	if active != nil && active.Finishing != "" {
		// The run's turn is over: only its checkpoint is pending. Nothing
		// can be folded into it; a follow-up waits.
		switch mode {
		case "", ModeAuto, ModeQueue:
			mode = ModeQueue
		default:
			return reject(ReasonInvalidState, "run %d is capturing its workspace checkpoint; send with --mode queue or wait", active.Ordinal)
		}
	}
	if c.MergeBack != "" {
		// A merge-back brings a fork's conclusions with a new run.
		switch mode {
		case "", ModeAuto, ModeImmediate:
			mode = ModeImmediate
			if active != nil {
				mode = ModeQueue
			}
		case ModeQueue:
		default:
			return reject(ReasonInvalidState, "a merge-back starts a new run: send it with mode auto or queue")
		}
		t.transfer = t.mergeBack(th, t.st.Threads[c.MergeBack])
	}
	if mode == "" || mode == ModeAuto {
		switch {
		case active == nil:
			mode = ModeImmediate
		case th.Caps.Steer:
			mode = ModeSteer
		default:
			mode = ModeRestart
		}
	}
	// The capability policy: a steer to a provider that cannot steer
	// becomes a steering restart when it can be interrupted.
	if mode == ModeSteer && active != nil && !th.Caps.Steer {
		if !th.Caps.Interrupt {
			return reject(ReasonUnsupported, "provider %s can neither steer nor interrupt; use --mode queue", th.Provider)
		}
		mode = ModeRestart
	}
	t.receipt.Mode = mode
	switch mode {
	case ModeImmediate:
		if active != nil {
			return reject(ReasonInvalidState, "run %d is active; use --mode steer, restart or queue", active.Ordinal)
		}
		if rec := t.recoverableRun(th.ID); rec != nil {
			return reject(ReasonInvalidState, "run %d was interrupted by a restart; continue it with `nexus resume %s` or stop it with `nexus interrupt %s`", rec.Ordinal, th.ID, th.ID)
		}
		t.startRun(t.newRun(th, c.Text), ReasonInitial)
	case ModeQueue:
		r := t.newRun(th, c.Text)
		r.Status = RunQueued
		t.putRun(r)
		t.startNext(th.ID)
	case ModeSteer:
		if active == nil {
			return reject(ReasonInvalidState, "no active run to steer; send without --mode steer to start one")
		}
		r := *active
		r.Steers = append(append([]string(nil), r.Steers...), c.Text)
		t.putRun(r)
		t.receipt.Run, t.receipt.Ordinal = r.ID, r.Ordinal
		a := t.st.CurrentAttempt(&r)
		t.effect(Effect{Key: steerKey(r.ID, len(r.Steers)), Kind: EffSteer, Class: ClassIrreversible,
			Thread: th.ID, Run: r.ID, Attempt: a.ID, Provider: th.Provider, Text: c.Text}, true)
	case ModeRestart:
		if active == nil {
			return reject(ReasonInvalidState, "no active run to restart; send without --mode restart to start one")
		}
		if !th.Caps.Interrupt {
			return reject(ReasonUnsupported, "provider %s cannot interrupt a turn; use --mode queue", th.Provider)
		}
		r := *active
		r.Steers = append(append([]string(nil), r.Steers...), c.Text)
		r.RestartPending = true
		t.putRun(r)
		t.receipt.Run, t.receipt.Ordinal = r.ID, r.Ordinal
		t.requestInterrupt(&r)
	}
	return nil
}

func steerKey(run string, n int) string { return run + ":steer" + itoa(n) }

// newRun numbers run N+1 of a thread; the caller emits it.
func (t *tx) newRun(th *Thread, text string) Run {
	c := *th
	c.Runs++
	handoff := c.Handoff
	c.Handoff = ""
	t.putThread(c)
	r := Run{ID: RunID(th.ID, c.Runs), Thread: th.ID, Ordinal: c.Runs, Text: text, CreatedAt: t.at, Transfer: t.transfer,
		Handoff: handoff, Provider: th.Provider}
	t.receipt.Run, t.receipt.Ordinal = r.ID, r.Ordinal
	return r
}

// startAttempt opens attempt N+1 of an existing run.
func (t *tx) startAttempt(runID string, reason AttemptReason) { t.startRun(*t.st.Runs[runID], reason) }

// startRun opens attempt N+1 of a run with a root_turn node and asks the
// provider to run it.
func (t *tx) startRun(r Run, reason AttemptReason) {
	r.Attempts++
	r.Status = RunRunning
	r.Recoverable = false
	r.Error = ""
	r.RestartPending = false
	r.InterruptRequested = false
	if r.StartedAt == 0 {
		r.StartedAt = t.at
	}
	t.putRun(r)
	a := Attempt{ID: AttemptID(r.ID, r.Attempts), Run: r.ID, Thread: r.Thread, N: r.Attempts,
		Reason: reason, Status: AttemptRunning, Session: SessionID(r.Thread), StartedAt: t.at}
	t.putAttempt(a)
	t.putNode(Node{ID: NodeID(a.ID, 1), Attempt: a.ID, Run: r.ID, Thread: r.Thread, Kind: NodeRootTurn,
		Status: NodeRunning, Title: "turn", StartedAt: t.at})
	if reason == ReasonInitial && r.Attempts == 1 && t.holdForBudget(t.st.Runs[r.ID], t.st.Attempt(a.ID)) {
		return
	}
	t.beginTurn(t.st.Runs[r.ID], t.st.Attempt(a.ID))
}

// beginTurn moves the session on and starts attempt a's turn, or holds it
// for the workspace's baseline or a capture in progress.
func (t *tx) beginTurn(r *Run, a *Attempt) {
	th := t.st.Threads[r.Thread]
	if !Live(t.sessionState(r.Thread)) {
		t.setSession(r.Thread, SessStarting, "", r.ID)
	} else {
		t.setSession(r.Thread, SessRunning, "", r.ID)
	}
	if t.needBase(th) {
		// The baseline comes first: the agent must not touch the files
		// before the workspace as it was is captured.
		rc := *t.st.Runs[r.ID]
		rc.AwaitBase = true
		t.putRun(rc)
		t.captureEffect(th, r.ID, ScopeBase, 0)
	} else if t.st.pendingCapture(th.ID) != "" || t.st.runningOp(th.ID) != nil {
		// A mark is being captured, or a rollback restores the files:
		// the agent waits, so that its first writes are neither in the
		// mark nor overwritten.
		rc := *t.st.Runs[r.ID]
		rc.AwaitBase = true
		t.putRun(rc)
	} else {
		t.startTurnEffect(t.st.Runs[r.ID], t.st.Attempt(a.ID))
	}
	t.refreshThread(r.Thread)
}

// startTurnEffect asks the provider to run an attempt.
func (t *tx) startTurnEffect(r *Run, a *Attempt) {
	th := t.st.Threads[r.Thread]
	turn := t.st.TurnFor(r, a.Reason)
	turn.Workspace = th.Workspace
	t.effect(Effect{Key: a.ID + ":turn", Kind: EffStartTurn, Class: ClassIrreversible,
		Thread: r.Thread, Run: r.ID, Attempt: a.ID, Provider: th.Provider, Turn: turn}, true)
}

// requestInterrupt asks the provider to end the current attempt, with a
// deadline after which the kernel stops the session itself.
func (t *tx) requestInterrupt(r *Run) {
	a := t.st.CurrentAttempt(r)
	th := t.st.Threads[r.Thread]
	t.effect(Effect{Key: a.ID + ":interrupt", Kind: EffInterrupt, Class: ClassIdempotent,
		Thread: r.Thread, Run: r.ID, Attempt: a.ID, Provider: th.Provider}, t.st.Effect(a.ID+":interrupt") == nil)
	t.effects = append(t.effects, Effect{Key: "interrupt:" + a.ID, Kind: EffTimer, Thread: r.Thread,
		Run: r.ID, Attempt: a.ID, Deadline: t.at + InterruptDeadline})
}

// recoverableRun returns a run of the thread interrupted by a host restart.
func (t *tx) recoverableRun(thread string) *Run {
	for _, r := range t.st.RunsOf(thread) {
		if r.Recoverable && r.Status == RunInterrupted {
			return r
		}
	}
	return nil
}

// startNext starts the first queued, unheld run when the thread is idle.
func (t *tx) startNext(thread string) {
	th := t.st.Threads[thread]
	if th == nil || th.QueueHeld || th.Archived || t.st.ActiveRun(thread) != nil || t.recoverableRun(thread) != nil {
		t.refreshThread(thread)
		return
	}
	for _, r := range t.st.RunsOf(thread) {
		if r.Status == RunQueued && !r.Held {
			t.startAttempt(r.ID, ReasonInitial)
			return
		}
	}
	t.refreshThread(thread)
}

func (t *tx) queueOp(c *Command) *Rejection {
	r := *t.st.RunByOrdinal(c.Thread, c.Run)
	t.receipt.Run, t.receipt.Ordinal = r.ID, r.Ordinal
	if r.Status != RunQueued {
		return reject(ReasonInvalidState, "run %d is %s, not queued", r.Ordinal, r.Status)
	}
	switch c.Kind {
	case CmdQueueHold:
		r.Held = true
		t.putRun(r)
	case CmdQueueRelease:
		r.Held = false
		t.putRun(r)
		if th := t.st.Threads[c.Thread]; th.QueueHeld {
			tc := *th
			tc.QueueHeld = false
			t.putThread(tc)
		}
		t.startNext(c.Thread)
	case CmdQueueRemove:
		r.Status = RunCancelled
		r.EndedAt = t.at
		t.putRun(r)
	}
	return nil
}

// interrupt handles run.interrupt and thread.stop. Stop also holds the
// queue and stops the provider session.
func (t *tx) interrupt(c *Command, holdQueue, stop bool) *Rejection {
	th := t.st.Threads[c.Thread]
	if holdQueue && !th.QueueHeld {
		tc := *th
		tc.QueueHeld = true
		t.putThread(tc)
	}
	active := t.st.ActiveRun(th.ID)
	if active == nil {
		if rec := t.recoverableRun(th.ID); rec != nil {
			// The user gives up on a run a restart interrupted.
			r := *rec
			r.Recoverable = false
			t.putRun(r)
			t.receipt.Run, t.receipt.Ordinal = r.ID, r.Ordinal
			t.refreshThread(th.ID)
			return nil
		}
		if stop {
			t.stopSession(th.ID, "stopped by user")
			return nil
		}
		if holdQueue {
			return nil
		}
		return reject(ReasonInvalidState, "thread %s has no active run to interrupt", th.ID)
	}
	t.receipt.Run, t.receipt.Ordinal = active.ID, active.Ordinal
	if t.st.budgetHold(active) != nil {
		// Its turn never began: nothing to ask the provider.
		t.endAttempt(active, AttemptCancelled, RunInterrupted, "interrupted by user")
		if stop {
			t.stopSession(th.ID, "stopped by user")
		}
		t.startNext(th.ID)
		return nil
	}
	r := *active
	r.InterruptRequested = true
	r.RestartPending = false
	t.putRun(r)
	if th.Caps.Interrupt && !stop && Live(t.sessionState(th.ID)) {
		t.requestInterrupt(&r)
		return nil
	}
	// The provider cannot interrupt, its process is gone (a run waiting on
	// a durable request after a restart), or the user stops the thread:
	// stop the session and end the run here.
	t.endAttempt(&r, AttemptInterrupted, RunInterrupted, "interrupted by user")
	t.stopSession(th.ID, "stopped by user")
	t.startNext(th.ID)
	return nil
}

func (t *tx) stopSession(thread, reason string) {
	if !Live(t.sessionState(thread)) {
		return
	}
	th := t.st.Threads[thread]
	t.setSession(thread, SessStopping, reason, "")
	t.effect(Effect{Key: SessionID(thread) + ":stop:" + itoa(int(t.st.Seq)), Kind: EffStopSession,
		Class: ClassIdempotent, Thread: thread, Provider: th.Provider}, false)
}

// resume continues runs that a host restart interrupted, on one thread or
// on all, and starts queued runs of idle threads.
func (t *tx) resume(c *Command) *Rejection {
	var threads []string
	if c.Thread != "" {
		threads = []string{c.Thread}
	} else {
		for _, id := range sortedKeys(t.st.Threads) {
			threads = append(threads, id)
		}
	}
	for _, id := range threads {
		if t.resumeOps(id) {
			continue
		}
		if rec := t.recoverableRun(id); rec != nil {
			t.startAttempt(rec.ID, ReasonProviderRecovery)
			if t.receipt.Run == "" {
				t.receipt.Run, t.receipt.Ordinal, t.receipt.Thread = rec.ID, rec.Ordinal, id
			}
			continue
		}
		t.startNext(id)
	}
	return nil
}
