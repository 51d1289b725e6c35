package api

import (
	"context"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/nexus-tui/nexus/core"
)

// A UI shows one thread, or a page of them in a grid, yet a plain
// subscription carries every thread's transcript, and the client decodes
// all of it. A watching subscription (StateQuery.Watch) carries the
// transcripts of the threads it names only: other threads' live deltas
// are left out and their transcript text is blanked in the events that
// still arrive (node.text, node updates; a run's reply is cut to what a
// notification shows, core.MaxNoticeText), so seqs stay gapless and
// every entity event the thread list and the notifications need
// (threads, runs, requests, node titles and statuses) arrives as before. The starting state keeps
// other threads' nodes without their text. To show another thread the
// client subscribes again from 0 with the new set.

// SubscribeShown is SubscribeOf for a client that shows the transcripts
// of threads only (tui's shown-threads backend).
func (c *Client) SubscribeShown(ctx context.Context, from uint64, threads []string) (*core.Subscription, error) {
	return c.SubscribeOf(ctx, from, StateQuery{Threads: threads, Watch: true})
}

// watchFilter is how a watching subscription sends ev: as it is, with
// other threads' text blanked, or not at all (false).
func watchFilter(threads []string) func(core.Event) (core.Event, bool) {
	return func(ev core.Event) (core.Event, bool) {
		if ev.Thread == "" || slices.Contains(threads, ev.Thread) {
			return ev, true
		}
		if ev.Seq == 0 {
			return ev, ev.Type != core.EvNodeDelta
		}
		if ev.Type == core.EvNodeText {
			ev.Payload.Text = ""
		}
		// Events are shared by every subscriber: blank copies.
		if n := ev.Payload.Node; n != nil && n.Text != "" {
			c := *n
			c.Text = ""
			ev.Payload.Node = &c
		}
		if r := ev.Payload.Run; r != nil && len(r.Reply) > core.MaxNoticeText {
			c := *r
			c.Reply = head(r.Reply, core.MaxNoticeText)
			ev.Payload.Run = &c
		}
		return ev, true
	}
}

// watchState is the starting state of a watching subscription: every
// entity, the transcripts of q.Threads only, the other threads' nodes
// kept without their text.
func watchState(st *core.State, q StateQuery) *core.State {
	if st == nil {
		return nil
	}
	c := queryState(st, StateQuery{Threads: q.Threads, Brief: q.Brief || len(q.Threads) == 0})
	for id, n := range st.Nodes {
		if _, kept := c.Nodes[id]; kept {
			continue
		}
		nc := *n
		nc.Text = ""
		c.Nodes[id] = &nc
	}
	return c
}

// flush writes what a stream buffered: a value left out after lines
// written without a flush (more were waiting) must not leave them
// sitting in the buffer.
func (c *conn) flush() {
	if c.w.Buffered() == 0 {
		return
	}
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_ = c.w.Flush()
}

// head is s cut to at most n bytes on a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
