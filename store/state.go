package store

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nexus-tui/nexus/core"
)

// EncodeState encodes a projection deterministically: msgpack under the
// struct tags of core.State with every map's keys in byte order, so two
// equal projections always encode to the same bytes. That is what lets
// Verify and the tests say "snapshot + tail == full replay, byte for byte".
//
// st must not change while it is encoded; the Runner hands over a Clone.
func EncodeState(st *core.State) ([]byte, error) {
	if st == nil {
		return nil, errors.New("store: cannot encode a nil state (a caller bug; pass the projection)")
	}
	e := &enc{b: make([]byte, 0, 4096)}
	o := e.obj()
	o.uint("seq", st.Seq)
	o.key("threads")
	encMap(e, st.Threads, encThread)
	o.key("runs")
	encMap(e, st.Runs, encRun)
	o.key("attempts")
	encMap(e, st.Attempts, encAttempt)
	o.key("nodes")
	encMap(e, st.Nodes, encNode)
	o.key("requests")
	encMap(e, st.Requests, encRequest)
	o.key("plans")
	encMap(e, st.Plans, encPlan)
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
	encMap(e, st.Effects, encEffect)
	o.key("receipts")
	encMap(e, st.Receipts, encReceipt)
	o.int("reqn", int64(st.RequestCount))
	o.end()
	return e.b, nil
}

func encMap[V any](e *enc, m map[string]*V, f func(*enc, *V)) {
	if m == nil {
		e.nil()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.mapLen(len(keys))
	for _, k := range keys {
		e.str(k)
		f(e, m[k])
	}
}

// DecodeState decodes a projection written by EncodeState and rebuilds its
// derived indexes (core.State.Reindex). The strings of the result share
// one copy of b.
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
		case "reqn":
			st.RequestCount = int(r.int())
		default:
			r.skip()
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("store: decode snapshot body: %w", err)
	}
	st.Reindex()
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
