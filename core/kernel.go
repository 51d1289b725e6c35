package core

// Ready is what the kernel hands back after one or more Steps. The order of
// its fields is the order of work: persist Events (fsync), then publish
// them and start Effects, then call Advance.
type Ready struct {
	// Events to append to the journal before anything else happens.
	Events []Event
	// Commits groups Events by input, for the journal's dedupe key.
	Commits []Commit
	// Effects to start once Events are durable.
	Effects []Effect
}

// Kernel is the synchronous state machine. It is not safe for concurrent
// use: the Runner goroutine owns it.
type Kernel struct {
	st    *State
	ready Ready
}

// NewKernel returns a kernel over a projection (from snapshot + replay).
func NewKernel(st *State) *Kernel {
	if st == nil {
		st = NewState()
	}
	st.index() // a loaded State is indexed already; a built one is not
	return &Kernel{st: st}
}

// State returns the kernel's projection. Callers must not modify it.
func (k *Kernel) State() *State { return k.st }

// Step decides one input and applies its events. The events and effects
// accumulate in Ready until Advance.
func (k *Kernel) Step(in Input) (*Receipt, error) {
	evs, effs, r, err := Decide(k.st, in)
	if err != nil {
		return nil, err
	}
	if len(evs) > 0 {
		cmd := ""
		if in.Command != nil {
			cmd = in.Command.ID
		}
		k.ready.Events = append(k.ready.Events, evs...)
		k.ready.Commits = append(k.ready.Commits, Commit{Command: cmd, Events: evs})
	}
	k.ready.Effects = append(k.ready.Effects, effs...)
	return r, nil
}

// Ready returns the pending work since the last Advance.
func (k *Kernel) Ready() Ready { return k.ready }

// HasReady reports whether there is pending work.
func (k *Kernel) HasReady() bool {
	return len(k.ready.Events) > 0 || len(k.ready.Effects) > 0
}

// Advance acknowledges that Ready was persisted and acted on.
func (k *Kernel) Advance() { k.ready = Ready{} }
