package core

// effectUnsupported is a runtime capability downgrade. A steer the
// provider turns out not to support clears the thread's Steer capability
// (journaled, so later messages restart instead of steering, until the
// thread switches provider) and restarts the active run with the message,
// as a steering restart would have; a provider that cannot interrupt
// either keeps the message for the person to send again. Either way a
// runtime warning says what happened.
func (t *tx) effectUnsupported(o *Observation) {
	rec := t.st.Effect(o.Key)
	if rec == nil || rec.Status != EffStarted {
		return
	}
	t.completeEffect(o.Key, EffUnsupported, o.Text)
	r := t.st.Runs[rec.Run]
	if rec.Kind != EffSteer || r == nil {
		return
	}
	th := *t.st.Threads[r.Thread]
	if th.Caps.Steer {
		th.Caps.Steer = false
		t.putThread(th)
	}
	note := th.Provider + " cannot steer a running turn (" + o.Text + "): "
	active := r.Status == RunRunning || r.Status == RunWaiting
	switch {
	case active && th.Caps.Interrupt && !r.RestartPending:
		note += "the run restarts with the message, and later messages will restart it too"
		c := *r
		c.RestartPending = true
		t.putRun(c)
		t.requestInterrupt(&c)
	case active && r.RestartPending:
		note += "the run is restarting already and takes the message with it"
	default:
		note += "the message was not delivered; send it again when the run ends"
	}
	t.emit(EvRuntimeWarning, Event{Thread: r.Thread, Run: r.ID, Correlation: r.ID, Payload: Payload{Note: note}})
}
