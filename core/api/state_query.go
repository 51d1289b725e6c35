package api

import (
	"context"
	"slices"

	"github.com/nexus-tui/nexus/core"
)

// StateQuery narrows what a State reply carries, so that no thread can
// make another unreadable: a thread whose runs hold many long outputs
// makes only its own state large. The zero query is the whole state.
//
// Every entity travels, but transcripts (nodes, and run replies) travel
// only for the threads named in Threads; Brief sends no transcript at all
// (a thread list, resolving an id, waiting on a run's status).
type StateQuery struct {
	Threads []string `json:"threads,omitempty"`
	Brief   bool     `json:"brief,omitempty"`
	// Watch, for a subscription: its events too carry the transcripts of
	// Threads only, and its starting state keeps the other threads'
	// nodes without their text (watch.go).
	Watch bool `json:"watch,omitempty"`
}

func (q StateQuery) whole() bool { return !q.Brief && !q.Watch && len(q.Threads) == 0 }

// StateOf is State narrowed by q.
func (c *Client) StateOf(ctx context.Context, q StateQuery) (*core.State, error) {
	var st core.State
	var params any
	if !q.whole() {
		params = q
	}
	if err := c.call(ctx, MethodState, params, &st); err != nil {
		return nil, err
	}
	st.Reindex()
	return &st, nil
}

// queryState is the reply to a state request with query q: st with the
// transcripts of the other threads left out and only the wanted sealed
// histories thawed.
func queryState(st *core.State, q StateQuery) *core.State {
	if st == nil || q.whole() {
		return wireState(st)
	}
	keep := func(thread string) bool { return !q.Brief && slices.Contains(q.Threads, thread) }
	c := st.Clone()
	for id := range c.Sealed {
		if r := c.Runs[id]; r != nil && keep(r.Thread) {
			c.Thaw(id)
		}
	}
	for id, n := range c.Nodes {
		if !keep(n.Thread) {
			delete(c.Nodes, id)
		}
	}
	for id, r := range c.Runs {
		if r.Reply != "" && !keep(r.Thread) {
			cr := *r
			cr.Reply = ""
			c.Runs[id] = &cr
		}
	}
	return c
}
