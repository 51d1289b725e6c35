package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// A finished run's history (its attempts, nodes, todo list and effect
// records) never changes again in the common case, yet it is most of a
// long journal's projection. So a snapshot stores it apart, as one sealed
// blob per run, and a State loaded from a snapshot holds only a Seal for
// it: the history is decoded on first use. That keeps opening a large
// journal proportional to the live part of the projection.
//
// Sealing is a representation, not a state change: every accessor (Node,
// Attempt, Plan, Effect, AttemptsOf, NodesOf, EffectsOf) answers the same
// with a run sealed or not, Apply thaws a sealed run before any event
// changes it, and whether a run is sealed in an encoding depends only on
// its content (Sealable). So snapshot + tail still encodes byte for byte
// like a full replay.

// SealedRun is the history of one finished run, in canonical order:
// attempts by number, nodes by attempt and then creation order, effects by
// key.
type SealedRun struct {
	Attempts []*Attempt
	Nodes    []*Node
	Plan     *Plan
	Effects  []*EffectRecord
}

// Seal refers to a SealedRun stored outside the projection. Ref is the
// store's name for it (a content hash); Load reads it. Seals are shared
// between clones and load at most once.
type Seal struct {
	Ref  string
	Load func() (*SealedRun, error)

	once sync.Once
	view *sealView
	err  error
}

type sealView struct {
	run      *SealedRun
	attempts map[string]*Attempt
	nodes    map[string]*Node
	byAtt    map[string][]*Node
	effects  map[string]*EffectRecord
}

// get loads the sealed history. A seal that cannot load means the journal
// file was damaged after it was verified on open: the history reads as
// empty and Err says why; the Runner stops on it (State.SealErr) before
// it records anything decided from the missing history, and a reader
// (the UI, a client) shows the run without its history.
func (s *Seal) get() *sealView {
	s.once.Do(func() {
		var r *SealedRun
		err := fmt.Errorf("no loader")
		if s.Load != nil {
			r, err = s.Load()
		}
		if err == nil && r == nil {
			err = fmt.Errorf("the loader returned nothing")
		}
		if err != nil {
			s.err = fmt.Errorf("sealed run history %.16s cannot be read: %w; stop nexus and run nexus verify --repair", s.Ref, err)
			r = &SealedRun{}
		}
		v := &sealView{run: r, attempts: map[string]*Attempt{}, nodes: map[string]*Node{},
			byAtt: map[string][]*Node{}, effects: map[string]*EffectRecord{}}
		for _, a := range r.Attempts {
			v.attempts[a.ID] = a
		}
		for _, n := range r.Nodes {
			v.nodes[n.ID] = n
			v.byAtt[n.Attempt] = append(v.byAtt[n.Attempt], n)
		}
		for _, e := range r.Effects {
			v.effects[e.Key] = e
		}
		s.view = v
	})
	return s.view
}

// Err loads the sealed history if nothing has yet, and says why it could
// not be read (nil when it was).
func (s *Seal) Err() error {
	s.get()
	return s.err
}

// RunOf returns the run an entity id or effect key belongs to by its
// shape (thread/ordinal/...), or "" if it names none.
func RunOf(id string) string {
	slash := strings.IndexByte(id, '/')
	if slash <= 0 {
		return ""
	}
	i := slash + 1
	for i < len(id) && id[i] >= '0' && id[i] <= '9' {
		i++
	}
	if i == slash+1 || (i < len(id) && id[i] != '/' && id[i] != ':') {
		return ""
	}
	return id[:i]
}

// sealedRunStatus reports whether a run in this status is finished for
// sealing: nothing but a new command can add to it.
func sealedRunStatus(s RunStatus) bool {
	switch s {
	case RunCompleted, RunFailed, RunCancelled, RunInterrupted, RunRolledBack:
		return true
	}
	return false
}

// sealedEffect reports whether an effect record belongs in its run's seal.
func sealedEffect(e *EffectRecord) bool { return e.Run != "" && RunOf(e.Key) == e.Run }

// Sealable reports whether run id is stored sealed in an encoding of the
// projection: it is finished, no effect of it is still started, and every
// entity of it names the run by its id. It depends only on the content.
func (st *State) Sealable(id string) bool {
	if s := st.Sealed[id]; s != nil {
		r := st.Runs[id]
		return r != nil && sealedRunStatus(r.Status)
	}
	r := st.Runs[id]
	if r == nil || !sealedRunStatus(r.Status) {
		return false
	}
	ix := st.index()
	for _, aid := range ix.attempts[id] {
		if RunOf(aid) != id {
			return false
		}
		for _, nid := range ix.nodes[aid] {
			if RunOf(nid) != id {
				return false
			}
		}
	}
	for _, key := range ix.effects[id] {
		if e := st.Effects[key]; sealedEffect(e) && e.Status == EffStarted {
			return false
		}
	}
	return true
}

// SealOf returns the history of a run that is hot (not sealed) in
// canonical order, for the store to seal.
func (st *State) SealOf(id string) *SealedRun {
	ix := st.index()
	out := &SealedRun{Plan: st.Plans[PlanID(id)]}
	for _, aid := range ix.attempts[id] {
		out.Attempts = append(out.Attempts, st.Attempts[aid])
		for _, nid := range ix.nodes[aid] {
			out.Nodes = append(out.Nodes, st.Nodes[nid])
		}
	}
	keys := slices.Clone(ix.effects[id])
	slices.Sort(keys)
	for _, k := range keys {
		if e := st.Effects[k]; sealedEffect(e) {
			out.Effects = append(out.Effects, e)
		}
	}
	return out
}

// Thaw moves a sealed run's history back into the hot maps, loading it.
// It changes the representation only.
func (st *State) Thaw(id string) { st.thaw(id) }

// thaw moves a sealed run's history back into the hot maps.
func (st *State) thaw(id string) {
	s := st.Sealed[id]
	if s == nil {
		return
	}
	v := st.view(s)
	delete(st.Sealed, id)
	ix := st.index()
	for _, a := range v.run.Attempts {
		st.Attempts[a.ID] = a
		ix.attempts[id] = append(ix.attempts[id], a.ID)
	}
	for _, n := range v.run.Nodes {
		st.Nodes[n.ID] = n
		ix.nodes[n.Attempt] = append(ix.nodes[n.Attempt], n.ID)
	}
	if p := v.run.Plan; p != nil {
		st.Plans[p.ID] = p
	}
	for _, e := range v.run.Effects {
		st.Effects[e.Key] = e
		ix.effects[id] = append(ix.effects[id], e.Key)
	}
}

// ThawAll moves every sealed history back into the hot maps, loading it,
// and returns SealErr: a run whose history cannot be read is kept with an
// empty one.
func (st *State) ThawAll() error {
	for _, id := range slices.Sorted(maps.Keys(st.Sealed)) {
		st.thaw(id)
	}
	return st.sealErr
}

// SealErr is the first sealed history this state could not read (its
// journal file was damaged after it was opened), or nil. A state with one
// answers as if that run had no history, so the Runner stops rather than
// decide anything from it.
func (st *State) SealErr() error { return st.sealErr }

// sealFor returns the seal holding entity id, or nil.
func (st *State) sealFor(id string) *sealView {
	if len(st.Sealed) == 0 {
		return nil
	}
	if s := st.Sealed[RunOf(id)]; s != nil {
		return st.view(s)
	}
	return nil
}

// view is s's history, with a failure to read it kept as SealErr.
func (st *State) view(s *Seal) *sealView {
	v := s.get()
	if s.err != nil && st.sealErr == nil {
		st.sealErr = s.err
	}
	return v
}

// lookup returns hot[id], else what in finds in the seal holding id.
func lookup[V any](st *State, hot map[string]*V, id string, in func(*sealView) *V) *V {
	if v := hot[id]; v != nil {
		return v
	}
	if sv := st.sealFor(id); sv != nil {
		return in(sv)
	}
	return nil
}

// Attempt returns an attempt by id, sealed or not, or nil.
func (st *State) Attempt(id string) *Attempt {
	return lookup(st, st.Attempts, id, func(v *sealView) *Attempt { return v.attempts[id] })
}

// Node returns a node by id, sealed or not, or nil.
func (st *State) Node(id string) *Node {
	return lookup(st, st.Nodes, id, func(v *sealView) *Node { return v.nodes[id] })
}

// Plan returns a todo list by id, sealed or not, or nil.
func (st *State) Plan(id string) *Plan {
	return lookup(st, st.Plans, id, func(v *sealView) *Plan {
		if p := v.run.Plan; p != nil && p.ID == id {
			return p
		}
		return nil
	})
}

// Effect returns an effect record by key, sealed or not, or nil.
func (st *State) Effect(key string) *EffectRecord {
	return lookup(st, st.Effects, key, func(v *sealView) *EffectRecord { return v.effects[key] })
}

// EffectsOf returns the effect records of a run, by key.
func (st *State) EffectsOf(run string) []*EffectRecord {
	var out []*EffectRecord
	for _, k := range st.index().effects[run] {
		out = append(out, st.Effects[k])
	}
	if s := st.Sealed[run]; s != nil {
		out = append(out, st.view(s).run.Effects...)
	}
	slices.SortFunc(out, func(a, b *EffectRecord) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// thawFor thaws every sealed run an event changes, before it is applied.
func (st *State) thawFor(ev *Event) {
	if len(st.Sealed) == 0 {
		return
	}
	p := &ev.Payload
	if p.Run != nil && st.Sealed[p.Run.ID] != nil && !sealedRunStatus(p.Run.Status) {
		st.thaw(p.Run.ID)
	}
	if p.Attempt != nil {
		st.thaw(p.Attempt.Run)
		st.thaw(RunOf(p.Attempt.ID))
	}
	if p.Node != nil {
		st.thaw(RunOf(p.Node.ID))
		st.thaw(RunOf(p.Node.Attempt))
	}
	if ev.Type == EvNodeText {
		st.thaw(RunOf(ev.Node))
	}
	if p.Plan != nil {
		st.thaw(RunOf(p.Plan.ID))
		st.thaw(p.Plan.Run)
	}
	if p.Effect != nil {
		st.thaw(RunOf(p.Effect.Key))
		st.thaw(p.Effect.Run)
	}
}
