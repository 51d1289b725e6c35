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
		wait := TextFlushInterval
		if o.Urgent {
			wait = UrgentFlushInterval
		}
		b.timer = time.AfterFunc(wait, func() {
			_ = r.post(contextBackground, &call{flush: key})
		})
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
	b.timer.Stop()
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
