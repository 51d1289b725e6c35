package core

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// State is the projection of the journal: every entity by id, the command
// receipts, and the seq it covers.
//
// Invariant: entities stored in State are never mutated after they are
// stored. Apply replaces a pointer with the one from the event; Decide
// copies an entity before changing it. So Clone is a shallow copy of the
// maps and a snapshot can be encoded while the Runner goes on.
type State struct {
	Seq             uint64                     `json:"seq" msgpack:"seq"`
	Threads         map[string]*Thread         `json:"threads" msgpack:"threads"`
	Runs            map[string]*Run            `json:"runs" msgpack:"runs"`
	Attempts        map[string]*Attempt        `json:"attempts" msgpack:"attempts"`
	Nodes           map[string]*Node           `json:"nodes" msgpack:"nodes"`
	Requests        map[string]*Request        `json:"requests" msgpack:"requests"`
	Plans           map[string]*Plan           `json:"plans" msgpack:"plans"`
	Sessions        map[string]*Session        `json:"sessions" msgpack:"sessions"`
	ProviderThreads map[string]*ProviderThread `json:"providerThreads" msgpack:"pthreads"`
	Handoffs        map[string]*Handoff        `json:"handoffs" msgpack:"handoffs"`
	Transfers       map[string]*Transfer       `json:"transfers" msgpack:"transfers"`
	Checkpoints     map[string]*Checkpoint     `json:"checkpoints" msgpack:"checkpoints"`
	Operations      map[string]*Operation      `json:"operations" msgpack:"operations"`
	Effects         map[string]*EffectRecord   `json:"effects" msgpack:"effects"`
	Receipts        map[string]*Receipt        `json:"receipts" msgpack:"receipts"`
	// Agents are the agent identities by id, removed ones included.
	Agents map[string]*Agent `json:"agents,omitempty" msgpack:"agents,omitempty"`
	// Missions by id.
	Missions map[string]*Mission `json:"missions,omitempty" msgpack:"missions,omitempty"`
	// Schedules by id, removed ones included.
	Schedules map[string]*Schedule `json:"schedules,omitempty" msgpack:"schedules,omitempty"`
	// RequestCount numbers request ids (R1, R2, ...).
	RequestCount int `json:"requestCount" msgpack:"reqn"`
	// DailyBudgetUSD is what all threads together may spend in a UTC day
	// (0: no limit); budget.go holds a turn that would pass it.
	DailyBudgetUSD float64 `json:"dailyBudgetUsd,omitempty" msgpack:"dbu,omitempty"`
	// Sealed holds the finished runs whose history is stored apart (see
	// sealed.go); their attempts, nodes, todo list and effect records are
	// not in the maps above. Use the accessors, which look in both.
	Sealed map[string]*Seal `json:"-" msgpack:"-"`

	idx *index // derived, rebuilt on load; never encoded
	// sealErr is the first sealed history that could not be read.
	sealErr error
}

// index holds derived lookups. It is rebuilt from the maps, so it is not
// part of a snapshot.
type index struct {
	runs     map[string][]string // thread -> run ids by ordinal
	attempts map[string][]string // run -> attempt ids in order
	nodes    map[string][]string // attempt -> node ids in order
	requests map[string][]string // run -> request ids in order
	effects  map[string][]string // run -> hot effect keys (unordered)
}

// NewState returns an empty projection.
func NewState() *State {
	st := &State{}
	st.init()
	return st
}

func (st *State) init() {
	if st.Threads == nil {
		st.Threads = map[string]*Thread{}
	}
	if st.Runs == nil {
		st.Runs = map[string]*Run{}
	}
	if st.Attempts == nil {
		st.Attempts = map[string]*Attempt{}
	}
	if st.Nodes == nil {
		st.Nodes = map[string]*Node{}
	}
	if st.Requests == nil {
		st.Requests = map[string]*Request{}
	}
	if st.Plans == nil {
		st.Plans = map[string]*Plan{}
	}
	if st.Sessions == nil {
		st.Sessions = map[string]*Session{}
	}
	if st.ProviderThreads == nil {
		st.ProviderThreads = map[string]*ProviderThread{}
	}
	if st.Handoffs == nil {
		st.Handoffs = map[string]*Handoff{}
	}
	if st.Transfers == nil {
		st.Transfers = map[string]*Transfer{}
	}
	if st.Checkpoints == nil {
		st.Checkpoints = map[string]*Checkpoint{}
	}
	if st.Operations == nil {
		st.Operations = map[string]*Operation{}
	}
	if st.Effects == nil {
		st.Effects = map[string]*EffectRecord{}
	}
	if st.Receipts == nil {
		st.Receipts = map[string]*Receipt{}
	}
	if st.Sealed == nil {
		st.Sealed = map[string]*Seal{}
	}
	if st.Agents == nil {
		st.Agents = map[string]*Agent{}
	}
	if st.Missions == nil {
		st.Missions = map[string]*Mission{}
	}
	if st.Schedules == nil {
		st.Schedules = map[string]*Schedule{}
	}
}

// Reindex rebuilds the derived lookups; call it after decoding a State.
// It sorts on keys computed once (ordinal, attempt number, the number that
// ends a node or request id), not on map lookups per comparison: it runs
// at every host start over the whole projection.
func (st *State) Reindex() {
	st.init()
	ix := &index{effects: map[string][]string{}}
	for key, e := range st.Effects {
		if e.Run != "" {
			ix.effects[e.Run] = append(ix.effects[e.Run], key)
		}
	}
	ix.runs = group(st.Runs, func(r *Run) (string, int) { return r.Thread, r.Ordinal })
	ix.attempts = group(st.Attempts, func(a *Attempt) (string, int) { return a.Run, a.N })
	ix.nodes = group(st.Nodes, func(n *Node) (string, int) { return n.Attempt, trailingNumber(n.ID) })
	ix.requests = group(st.Requests, func(q *Request) (string, int) { return q.Run, trailingNumber(q.ID) })
	st.idx = ix
}

// group returns the ids of m by parent, each list ordered by (n, id). It
// sorts once into one array and slices it, each slice capped so that an
// append reallocates: a host start runs it over the whole projection.
func group[V any](m map[string]*V, key func(*V) (parent string, n int)) map[string][]string {
	type keyed struct {
		parent string
		n      int
		id     string
	}
	ks := make([]keyed, 0, len(m))
	for id, v := range m {
		p, n := key(v)
		ks = append(ks, keyed{p, n, id})
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.parent, b.parent); c != 0 {
			return c
		}
		if a.n != b.n {
			return cmp.Compare(a.n, b.n)
		}
		return strings.Compare(a.id, b.id)
	})
	ids := make([]string, len(ks))
	out := map[string][]string{}
	for i := 0; i < len(ks); {
		j := i
		for j < len(ks) && ks[j].parent == ks[i].parent {
			ids[j] = ks[j].id
			j++
		}
		out[ks[i].parent] = ids[i:j:j]
		i = j
	}
	return out
}

func trailingNumber(s string) int {
	n, mul := 0, 1
	for i := len(s) - 1; i >= 0 && s[i] >= '0' && s[i] <= '9'; i-- {
		n += int(s[i]-'0') * mul
		mul *= 10
	}
	return n
}

// Clone returns a copy that shares the immutable entities.
func (st *State) Clone() *State {
	c := &State{Seq: st.Seq, RequestCount: st.RequestCount, DailyBudgetUSD: st.DailyBudgetUSD, sealErr: st.sealErr}
	c.Threads = cloneMap(st.Threads)
	c.Runs = cloneMap(st.Runs)
	c.Attempts = cloneMap(st.Attempts)
	c.Nodes = cloneMap(st.Nodes)
	c.Requests = cloneMap(st.Requests)
	c.Plans = cloneMap(st.Plans)
	c.Sessions = cloneMap(st.Sessions)
	c.ProviderThreads = cloneMap(st.ProviderThreads)
	c.Handoffs = cloneMap(st.Handoffs)
	c.Transfers = cloneMap(st.Transfers)
	c.Checkpoints = cloneMap(st.Checkpoints)
	c.Operations = cloneMap(st.Operations)
	c.Effects = cloneMap(st.Effects)
	c.Receipts = cloneMap(st.Receipts)
	c.Sealed = cloneMap(st.Sealed)
	c.Agents = cloneMap(st.Agents)
	c.Missions = cloneMap(st.Missions)
	c.Schedules = cloneMap(st.Schedules)
	if st.idx == nil {
		c.Reindex()
		return c
	}
	c.idx = &index{runs: cloneIndex(st.idx.runs), attempts: cloneIndex(st.idx.attempts), nodes: cloneIndex(st.idx.nodes),
		requests: cloneIndex(st.idx.requests), effects: cloneIndex(st.idx.effects)}
	return c
}

// cloneIndex copies a derived index with each slice capped at its
// length, so an append by either state reallocates instead of writing
// into the other's array.
func cloneIndex(m map[string][]string) map[string][]string {
	c := maps.Clone(m)
	for k, v := range c {
		c[k] = v[:len(v):len(v)]
	}
	return c
}

func cloneMap[V any](m map[string]*V) map[string]*V {
	if m == nil {
		return map[string]*V{}
	}
	return maps.Clone(m)
}

// Apply folds one event into the projection. It is deterministic and
// total: an event it does not know changes only Seq, so old binaries can
// read new journals.
func (st *State) Apply(ev *Event) error {
	if st.idx == nil {
		st.Reindex()
	}
	if ev.Seq != st.Seq+1 {
		return fmt.Errorf("core: apply seq %d after %d: journal has a gap", ev.Seq, st.Seq)
	}
	st.Seq = ev.Seq
	st.thawFor(ev)
	p := &ev.Payload
	if p.Thread != nil {
		st.Threads[p.Thread.ID] = p.Thread
	}
	if p.Run != nil {
		old, ok := st.Runs[p.Run.ID]
		if !ok {
			st.idx.runs[p.Run.Thread] = append(st.idx.runs[p.Run.Thread], p.Run.ID)
		}
		r := p.Run
		if p.KeepText && old != nil && old.Reply != "" {
			c := *r
			c.Reply = old.Reply
			r = &c
		}
		st.Runs[r.ID] = r
	}
	if p.Attempt != nil {
		if _, ok := st.Attempts[p.Attempt.ID]; !ok {
			st.idx.attempts[p.Attempt.Run] = append(st.idx.attempts[p.Attempt.Run], p.Attempt.ID)
		}
		st.Attempts[p.Attempt.ID] = p.Attempt
	}
	if p.Node != nil {
		old, ok := st.Nodes[p.Node.ID]
		if !ok {
			st.idx.nodes[p.Node.Attempt] = append(st.idx.nodes[p.Node.Attempt], p.Node.ID)
		}
		n := p.Node
		if p.KeepText && old != nil && old.Text != "" {
			c := *n
			c.Text = old.Text
			n = &c
		}
		st.Nodes[n.ID] = n
	}
	if ev.Type == EvDailyBudget {
		st.DailyBudgetUSD = p.DailyUSD
	}
	if ev.Type == EvNodeText {
		if n := st.Nodes[ev.Node]; n != nil {
			c := *n
			c.Text += p.Text
			st.Nodes[c.ID] = &c
		}
	}
	if p.Request != nil {
		if _, ok := st.Requests[p.Request.ID]; !ok {
			st.idx.requests[p.Request.Run] = append(st.idx.requests[p.Request.Run], p.Request.ID)
			st.RequestCount++
		}
		st.Requests[p.Request.ID] = p.Request
	}
	if p.Plan != nil {
		st.Plans[p.Plan.ID] = p.Plan
	}
	if p.Session != nil {
		st.Sessions[p.Session.ID] = p.Session
	}
	if p.ProviderThread != nil {
		st.ProviderThreads[p.ProviderThread.ID] = p.ProviderThread
	}
	if p.Handoff != nil {
		st.Handoffs[p.Handoff.ID] = p.Handoff
	}
	if p.Transfer != nil {
		st.Transfers[p.Transfer.ID] = p.Transfer
	}
	if p.Checkpoint != nil {
		st.Checkpoints[p.Checkpoint.ID] = p.Checkpoint
	}
	if p.Operation != nil {
		st.Operations[p.Operation.ID] = p.Operation
	}
	if p.Effect != nil {
		if _, ok := st.Effects[p.Effect.Key]; !ok && p.Effect.Run != "" {
			st.idx.effects[p.Effect.Run] = append(st.idx.effects[p.Effect.Run], p.Effect.Key)
		}
		st.Effects[p.Effect.Key] = p.Effect
	}
	if p.Receipt != nil {
		st.Receipts[p.Receipt.Command] = p.Receipt
	}
	if p.Agent != nil {
		if st.Agents == nil {
			st.Agents = map[string]*Agent{}
		}
		st.Agents[p.Agent.ID] = p.Agent
	}
	if p.Mission != nil {
		if st.Missions == nil {
			st.Missions = map[string]*Mission{}
		}
		st.Missions[p.Mission.ID] = p.Mission
	}
	if p.Schedule != nil {
		if st.Schedules == nil {
			st.Schedules = map[string]*Schedule{}
		}
		st.Schedules[p.Schedule.ID] = p.Schedule
	}
	return nil
}

// RunsOf returns the runs of a thread by ordinal.
func (st *State) RunsOf(thread string) []*Run {
	ids := st.index().runs[thread]
	out := make([]*Run, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.Runs[id])
	}
	return out
}

// AttemptsOf returns the attempts of a run in order.
func (st *State) AttemptsOf(run string) []*Attempt {
	if s := st.Sealed[run]; s != nil {
		return slices.Clone(st.view(s).run.Attempts)
	}
	ids := st.index().attempts[run]
	out := make([]*Attempt, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.Attempts[id])
	}
	return out
}

// NodesOf returns the nodes of an attempt in creation order.
func (st *State) NodesOf(attempt string) []*Node {
	if v := st.sealFor(attempt); v != nil {
		return slices.Clone(v.byAtt[attempt])
	}
	ids := st.index().nodes[attempt]
	out := make([]*Node, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.Nodes[id])
	}
	return out
}

// RequestsOf returns the requests of a run in creation order.
func (st *State) RequestsOf(run string) []*Request {
	ids := st.index().requests[run]
	out := make([]*Request, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.Requests[id])
	}
	return out
}

func (st *State) index() *index {
	if st.idx == nil {
		st.Reindex()
	}
	return st.idx
}

// RunByOrdinal returns run n of a thread, or nil.
func (st *State) RunByOrdinal(thread string, n int) *Run {
	return st.Runs[RunID(thread, n)]
}

// CurrentAttempt returns the last attempt of a run, or nil.
func (st *State) CurrentAttempt(r *Run) *Attempt {
	if r == nil || r.Attempts == 0 {
		return nil
	}
	return st.Attempt(AttemptID(r.ID, r.Attempts))
}

// ActiveRun returns the thread's run that is running or waiting, or nil.
func (st *State) ActiveRun(thread string) *Run {
	for _, id := range st.index().runs[thread] {
		if r := st.Runs[id]; r.Status == RunRunning || r.Status == RunWaiting {
			return r
		}
	}
	return nil
}

// Ids are derived from their parents so Decide stays deterministic and
// people can read them: t3f9a2c, t3f9a2c/1, t3f9a2c/1/a2, t3f9a2c/1/a2/n3.

// RunID is the id of run n of a thread.
func RunID(thread string, n int) string { return fmt.Sprintf("%s/%d", thread, n) }

// AttemptID is the id of attempt n of a run.
func AttemptID(run string, n int) string { return fmt.Sprintf("%s/a%d", run, n) }

// NodeID is the id of node n of an attempt.
func NodeID(attempt string, n int) string { return fmt.Sprintf("%s/n%d", attempt, n) }

// PlanID is the id of a run's todo list.
func PlanID(run string) string { return run + "/todo" }

// ProposedPlanID is the id of the plan an agent proposed in a run (plan
// mode: the steps it would take, for the person to read before it acts).
func ProposedPlanID(run string) string { return run + "/proposed" }

// PlanKeyProposed is the Observation.Key of an ObsPlan that proposes a
// plan rather than updating the todo list.
const PlanKeyProposed = "proposed"

// SessionID is the id of a thread's live provider session.
func SessionID(thread string) string { return thread + "/session" }

// NodeByKey returns the node of an attempt with a provider key, or nil.
func (st *State) NodeByKey(attempt, key string) *Node {
	if key == "" {
		return nil
	}
	if v := st.sealFor(attempt); v != nil {
		for _, n := range v.byAtt[attempt] {
			if n.Key == key {
				return n
			}
		}
		return nil
	}
	for _, id := range st.index().nodes[attempt] {
		if n := st.Nodes[id]; n.Key == key {
			return n
		}
	}
	return nil
}
