package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// EncodeState encodes a projection deterministically: msgpack under the
// struct tags of core.State with every map's keys in byte order, so two
// equal projections always encode to the same bytes. That is what lets
// Verify and the tests say "snapshot + tail == full replay, byte for byte".
//
// Every run core.State.Sealable says is finished is left out of the hot
// maps and named under "sealed" by the hash of its history blob (see
// sealed.go), whether it is sealed in st or not, so the bytes depend only
// on the content.
//
// st must not change while it is encoded; the Runner hands over a Clone.
func EncodeState(st *core.State) ([]byte, error) {
	b, _, err := encodeState(st)
	return b, err
}

// EncodeStateWhole is EncodeState with every run's history in the hot
// maps: sealed runs thawed and none sealed, so the bytes need no vault
// (the snapshots of a journal that has none, store/natsjournal's). It is
// deterministic as EncodeState is, and DecodeState reads it.
func EncodeStateWhole(st *core.State) ([]byte, error) {
	if st == nil {
		return nil, errors.New("store: cannot encode a nil state (a caller bug; pass the projection)")
	}
	if len(st.Sealed) > 0 {
		st = st.Clone()
		if err := st.ThawAll(); err != nil {
			return nil, fmt.Errorf("store: cannot encode seq %d whole: %w", st.Seq, err)
		}
	}
	b, _, err := encodeWith(st, false)
	return b, err
}

// encodeState is EncodeState that also returns the blobs of the runs it
// sealed that were hot in st, by ref, for the vault.
func encodeState(st *core.State) ([]byte, map[string][]byte, error) {
	if st == nil {
		return nil, nil, errors.New("store: cannot encode a nil state (a caller bug; pass the projection)")
	}
	return encodeWith(thawUnsealable(st), true)
}

// encodeWith encodes st; seal: finished runs go under "sealed" by ref
// (their blobs returned), else every run stays in the hot maps.
func encodeWith(st *core.State, seal bool) ([]byte, map[string][]byte, error) {
	refs := map[string]*string{}
	blobs := map[string][]byte{}
	skip := struct{ att, node, plan, eff map[string]bool }{map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}}
	for id := range st.Runs {
		if !seal {
			break
		}
		if sl := st.Sealed[id]; sl != nil {
			ref := sl.Ref
			refs[id] = &ref
			continue
		}
		if !st.Sealable(id) {
			continue
		}
		sr := st.SealOf(id)
		blob := encodeSealed(sr)
		ref := sealRef(blob)
		refs[id], blobs[ref] = &ref, blob
		for _, a := range sr.Attempts {
			skip.att[a.ID] = true
		}
		for _, n := range sr.Nodes {
			skip.node[n.ID] = true
		}
		if sr.Plan != nil {
			skip.plan[sr.Plan.ID] = true
		}
		for _, f := range sr.Effects {
			skip.eff[f.Key] = true
		}
	}
	e := &enc{b: make([]byte, 0, 4096)}
	o := e.obj()
	o.uint("seq", st.Seq)
	o.key("threads")
	encMap(e, st.Threads, encThread)
	o.key("runs")
	encMap(e, st.Runs, encRun)
	o.key("attempts")
	encMapSkip(e, st.Attempts, skip.att, encAttempt)
	o.key("nodes")
	encMapSkip(e, st.Nodes, skip.node, encNode)
	o.key("requests")
	encMap(e, st.Requests, encRequest)
	o.key("plans")
	encMapSkip(e, st.Plans, skip.plan, encPlan)
	o.key("sessions")
	encMap(e, st.Sessions, encSession)
	o.key("pthreads")
	encMap(e, st.ProviderThreads, encProviderThread)
	o.key("handoffs")
	encMap(e, st.Handoffs, encHandoff)
	o.key("transfers")
	encMap(e, st.Transfers, encTransfer)
	o.key("checkpoints")
	encMap(e, st.Checkpoints, encCheckpoint)
	o.key("operations")
	encMap(e, st.Operations, encOperation)
	o.key("effects")
	encMapSkip(e, st.Effects, skip.eff, encEffect)
	o.key("receipts")
	encMap(e, st.Receipts, encReceipt)
	if len(st.Agents) > 0 {
		o.key("agents")
		encMap(e, st.Agents, encAgent)
	}
	if len(st.Missions) > 0 {
		o.key("missions")
		encMap(e, st.Missions, encMission)
	}
	if len(st.Schedules) > 0 {
		o.key("schedules")
		encMap(e, st.Schedules, encSchedule)
	}
	o.int("reqn", int64(st.RequestCount))
	o.floatOmit("dbu", st.DailyBudgetUSD)
	o.key("sealed")
	encMap(e, refs, func(e *enc, ref *string) { e.str(*ref) })
	o.end()
	return e.b, blobs, nil
}

// thawUnsealable returns st, or a clone of it with the sealed runs that
// are no longer finished thawed (a run's status can change without an
// event touching its history).
func thawUnsealable(st *core.State) *core.State {
	var thaw []string
	for id := range st.Sealed {
		if !st.Sealable(id) {
			thaw = append(thaw, id)
		}
	}
	if len(thaw) == 0 {
		return st
	}
	c := st.Clone()
	for _, id := range thaw {
		c.Thaw(id)
	}
	return c
}

// encMapSkip encodes m without the keys in skip, in key order.
func encMapSkip[V any](e *enc, m map[string]*V, skip map[string]bool, f func(*enc, *V)) {
	if m == nil {
		e.nil()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !skip[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	e.mapLen(len(keys))
	for _, k := range keys {
		e.str(k)
		f(e, m[k])
	}
}

func encMap[V any](e *enc, m map[string]*V, f func(*enc, *V)) { encMapSkip(e, m, nil, f) }

// DecodeState decodes a projection written by EncodeState and rebuilds its
// derived indexes (core.State.Reindex). The strings of the result share
// one copy of b. Its seals have no loader: Store.LoadSnapshot sets them to
// read the vault.
func DecodeState(b []byte) (*core.State, error) {
	r := &reader{s: string(b)}
	st := &core.State{}
	n, ok := r.mapLen()
	if !ok && r.err == nil {
		return nil, errors.New("store: snapshot body is nil, not a state; run nexus verify --repair")
	}
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "seq":
			st.Seq = r.uint()
		case "threads":
			st.Threads = decMap(r, decThread)
		case "runs":
			st.Runs = decMap(r, decRun)
		case "attempts":
			st.Attempts = decMap(r, decAttempt)
		case "nodes":
			st.Nodes = decMap(r, decNode)
		case "requests":
			st.Requests = decMap(r, decRequest)
		case "plans":
			st.Plans = decMap(r, decPlan)
		case "sessions":
			st.Sessions = decMap(r, decSession)
		case "pthreads":
			st.ProviderThreads = decMap(r, decProviderThread)
		case "handoffs":
			st.Handoffs = decMap(r, decHandoff)
		case "transfers":
			st.Transfers = decMap(r, decTransfer)
		case "checkpoints":
			st.Checkpoints = decMap(r, decCheckpoint)
		case "operations":
			st.Operations = decMap(r, decOperation)
		case "effects":
			st.Effects = decMap(r, decEffect)
		case "receipts":
			st.Receipts = decMap(r, decReceipt)
		case "agents":
			st.Agents = decMap(r, decAgent)
		case "missions":
			st.Missions = decMap(r, decMission)
		case "schedules":
			st.Schedules = decMap(r, decSchedule)
		case "reqn":
			st.RequestCount = int(r.int())
		case "dbu":
			st.DailyBudgetUSD = r.float()
		case "sealed":
			st.Sealed = decMap(r, func(r *reader) *core.Seal { return &core.Seal{Ref: r.str()} })
		default:
			r.skip()
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("store: decode snapshot body: %w", err)
	}
	st.Reindex()
	for id, sl := range st.Sealed {
		if ref := sl.Ref; len(ref) != 64 || strings.Trim(ref, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("store: decode snapshot body: sealed run %.40q has a malformed reference", id)
		}
		if !st.Sealable(id) {
			return nil, fmt.Errorf("store: decode snapshot body: sealed run %.40q is not a finished run of the snapshot", id)
		}
	}
	return st, nil
}

func decMap[V any](r *reader, f func(*reader) *V) map[string]*V {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	m := make(map[string]*V, n)
	for ; n > 0 && r.err == nil; n-- {
		k := r.str()
		v := f(r)
		if v == nil && r.err == nil {
			// EncodeState never writes one, and the projection's code
			// assumes every entry is there (FuzzDecodeState found it).
			r.fail("entry %.40q is nil", k)
		}
		m[k] = v
	}
	return m
}
