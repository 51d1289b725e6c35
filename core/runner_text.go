package core

import (
	"context"
	"time"
)

var contextBackground = context.Background()

// Streamed text is journaled coalesced: the Runner keeps deltas of a node
// in a buffer, publishes each one live as an unjournaled node.delta, and
// hands the joined text to the kernel at most TextFlushInterval later, at
// the node's final delta, or before any other input of the same thread,
// so the journal keeps the order the provider produced.
//
// One flush serves every buffer: the Runner keeps a single deadline, the
// earliest any buffer needs, and when it comes it hands every buffer to
// the kernel in one batch, so the text of many threads costs one commit
// (one fsync) per flush, not one per thread or line.

// bufferText takes a text delta for an existing node. It reports false
// when the delta must go through the kernel now (the node does not exist
// yet, so this delta creates it).
func (r *Runner) bufferText(o *Observation) bool {
	st := r.k.State()
	run := st.Runs[o.Run]
	if run == nil {
		return false
	}
	a := st.CurrentAttempt(run)
	if a == nil || a.ID != o.Attempt {
		return false
	}
	n := st.NodeByKey(a.ID, o.Key)
	if n == nil {
		return false
	}
	key := o.Attempt + "\x00" + o.Key
	b := r.texts[key]
	if b == nil {
		b = &textBuf{obs: *o}
		b.obs.Text = ""
		r.texts[key] = b
		r.order = append(r.order, key)
		wait := r.cfg.TextFlush
		if wait <= 0 {
			wait = TextFlushInterval
		}
		if o.Urgent && wait > UrgentFlushInterval {
			wait = UrgentFlushInterval
		}
		r.flushBy(time.Now().Add(wait))
	}
	b.text.WriteString(o.Text)
	b.obs.At = o.At
	b.obs.Final = b.obs.Final || o.Final
	if o.Text != "" {
		r.publish(Event{Type: EvNodeDelta, Thread: o.Thread, Run: o.Run, Attempt: o.Attempt, Node: n.ID,
			At: o.At, Payload: Payload{Text: o.Text}})
	}
	if o.Final {
		r.flushText(key)
	}
	return true
}

// flushText hands a buffer's joined text to the kernel.
func (r *Runner) flushText(key string) {
	b := r.texts[key]
	if b == nil {
		return
	}
	delete(r.texts, key)
	for i, k := range r.order {
		if k == key {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	b.obs.Text = b.text.String()
	r.stepUnsaved(Input{Obs: &b.obs})
}

// flushThread flushes every buffer of a thread, oldest first.
func (r *Runner) flushThread(thread string) {
	for _, key := range append([]string(nil), r.order...) {
		if b := r.texts[key]; b != nil && b.obs.Thread == thread {
			r.flushText(key)
		}
	}
}

// flushBy makes sure every buffer is flushed by at: the one flush timer
// moves earlier if it would fire later (or is not set).
func (r *Runner) flushBy(at time.Time) {
	if r.flushTimer != nil && !r.flushAt.After(at) {
		return
	}
	if r.flushTimer != nil {
		r.flushTimer.Stop()
	}
	r.flushGen++
	gen := r.flushGen
	r.flushAt = at
	r.flushTimer = time.AfterFunc(time.Until(at), func() {
		_ = r.post(contextBackground, &call{flushAll: gen})
	})
}

// flushAll hands every buffer to the kernel, oldest first, when the
// timer that fired is the current one (a moved timer's late call is
// ignored).
func (r *Runner) flushAll(gen uint64) {
	if gen != r.flushGen {
		return
	}
	r.flushTimer = nil
	for _, key := range append([]string(nil), r.order...) {
		r.flushText(key)
	}
}
