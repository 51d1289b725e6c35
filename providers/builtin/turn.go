package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/providers/builtin/llm"

	"github.com/nexus-tui/nexus/core"
)

// replyKey is the node key of the turn's reply.
const replyKey = "reply"

// askFunc raises a request (or finds it settled) and waits for its answer.
type askFunc func(key string, kind core.RequestKind, action, prompt string) (core.Request, bool)

// run plays one turn: directive approvals and questions first (never asked
// twice: settled ones come from the journal), an optional subagent, the
// planning loop (model calls and worker steps), then the reply streamed
// over #slow with steering folded in between chunks, and the closing line
// that states what it acted on.
func (a *Agent) run(ctx context.Context, t *turn) {
	e, tr := t.e, t.e.Turn
	obs := func(o core.Observation) {
		o.Thread, o.Run, o.Attempt = e.Thread, e.Run, e.Attempt
		a.post(o)
	}
	rec := func(o core.Observation) error {
		o.Thread, o.Run, o.Attempt = e.Thread, e.Run, e.Attempt
		return a.sink.Record(a.ctx, o)
	}
	end := func(status core.AttemptStatus, errText string) {
		obs(core.Observation{Kind: core.ObsTurnEnded, TurnStatus: status, Error: errText})
	}
	obs(core.Observation{Kind: core.ObsTurnStarted})
	d, clean, err := ParseDirectives(tr.Text)
	if err != nil {
		obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: "sim: " + err.Error(), Final: true})
		end(core.AttemptFailed, "sim: "+err.Error())
		return
	}
	d.fromInstructions(tr.Instructions)
	instr := clean
	if tr.Instruction != tr.Text {
		_, instr, _ = ParseDirectives(tr.Instruction)
	}
	// A mission task's compiled turn: the agent acts on (and says it
	// acted on) the task, not on the whole context.
	instr = llm.TaskOf(instr)
	settled := map[string]core.Request{}
	for _, q := range tr.Settled {
		settled[q.Key] = q
	}
	ask := func(key string, kind core.RequestKind, action, prompt string) (core.Request, bool) {
		if q, ok := settled[key]; ok {
			return q, true
		}
		obs(core.Observation{Kind: core.ObsRequest, Key: key, RequestKind: kind, Action: action, Prompt: prompt})
		for {
			select {
			case q := <-t.answers:
				if q.Key == key {
					if q.Response == core.RespAllowAlways && action != "" {
						tr.Policy.Allow = append(tr.Policy.Allow, action)
					}
					return q, true
				}
			case <-ctx.Done():
				return core.Request{}, false
			}
		}
	}
	notes, ok := a.preamble(d, instr, ask, obs)
	if !ok {
		end(core.AttemptInterrupted, "interrupted while waiting for an answer")
		return
	}
	var p planned
	if d.Subagent {
		p, err = a.subagent(ctx, t, d, instr, ask, obs, rec)
		if err == nil {
			notes = append(notes, "A subagent did the work and reports:")
		}
	} else {
		p, err = a.plan(ctx, t, d, instr, ask, obs, rec)
	}
	switch {
	case errors.Is(err, errTurnGone):
		return // the kernel moved on: nothing more to say
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: "(interrupted)", Final: true})
		end(core.AttemptInterrupted, "interrupted")
		return
	case err != nil:
		obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: strings.Join(notes, " ") + err.Error(), Final: true})
		end(core.AttemptFailed, err.Error())
		return
	}
	body := strings.TrimSpace(strings.Join(append(notes, p.text), " "))
	slow := d.Slow
	if p.steps > 0 {
		slow = 0 // #slow paced the steps
	}
	steers, interrupted := a.stream(ctx, t, body, slow, d.Plan, &p.instr, obs)
	if interrupted {
		end(core.AttemptInterrupted, "interrupted")
		return
	}
	obs(core.Observation{Kind: core.ObsText, Key: replyKey, Final: true,
		Text: fmt.Sprintf("\n[sim] acted on: %q; context: %d messages", p.instr, tr.UserMessages+p.steers+steers)})
	switch {
	case len(p.failed) > 0:
		end(core.AttemptFailed, strings.Join(p.failed, "; "))
	case d.Fail:
		end(core.AttemptFailed, "sim: the run failed as asked (#fail)")
	default:
		end(core.AttemptCompleted, "")
	}
}

// preamble handles the #approve and #ask directives and returns the
// notes the reply starts with; ok is false when interrupted.
func (a *Agent) preamble(d Directives, instr string, ask askFunc, obs func(core.Observation)) ([]string, bool) {
	var notes []string
	if d.Approve {
		q, ok := ask("approve", core.RequestApproval, "", fmt.Sprintf("Allow the built-in agent to go ahead with %q?", instr))
		if !ok {
			return nil, false
		}
		if q.Response == core.RespDeny {
			notes = append(notes, "Approval was denied, so I did not go ahead.")
		} else {
			notes = append(notes, "Approval granted.")
		}
	}
	if d.Ask != "" {
		q, ok := ask("ask", core.RequestUserInput, "", d.Ask)
		if !ok {
			return nil, false
		}
		notes = append(notes, fmt.Sprintf("You answered %q to %q.", q.Answer, d.Ask))
	}
	return notes, true
}

// subagentKey is the node key of the #subagent node.
const subagentKey = "subagent"

// subagent runs the planning loop as a subagent node (#subagent): its
// model calls and worker steps are nested under the node, which ends
// with the subagent's answer before the turn replies. The kernel
// captures the node's own checkpoint when it ends, if a step under it
// could change files.
func (a *Agent) subagent(ctx context.Context, t *turn, d Directives, instr string, ask askFunc, obs func(core.Observation), rec func(core.Observation) error) (planned, error) {
	obs(core.Observation{Kind: core.ObsNode, Key: subagentKey, NodeKind: core.NodeSubagent, Title: "subagent: " + instr})
	nest := func(o core.Observation) core.Observation {
		switch o.Kind {
		case core.ObsLLM, core.ObsStepStarted, core.ObsStepDone:
			if o.Parent == "" {
				o.Parent = subagentKey
			}
		}
		return o
	}
	p, err := a.plan(ctx, t, d, instr, ask,
		func(o core.Observation) { obs(nest(o)) },
		func(o core.Observation) error { return rec(nest(o)) })
	status, text := core.NodeCompleted, p.text
	switch {
	case errors.Is(err, errTurnGone):
		return p, err
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		status, text = core.NodeCancelled, "(interrupted)"
	case err != nil:
		status, text = core.NodeFailed, err.Error()
	}
	obs(core.Observation{Kind: core.ObsText, Key: subagentKey + "/reply", Parent: subagentKey, Text: text, Final: true})
	obs(core.Observation{Kind: core.ObsNode, Key: subagentKey, NodeStatus: status})
	return p, err
}

// stream sends the reply in chunks over slow, ticking off a #plan todo
// list and folding steering messages in between chunks. It returns how
// many steering messages it folded in, and whether it was interrupted.
func (a *Agent) stream(ctx context.Context, t *turn, body string, slow time.Duration, planN int, instr *string, obs func(core.Observation)) (int, bool) {
	steers := 0
	var items []core.PlanItem
	for i := 1; i <= planN; i++ {
		items = append(items, core.PlanItem{Text: fmt.Sprintf("step %d of %d", i, planN), Status: "pending"})
	}
	if planN > 0 {
		obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), items...)})
	}
	chunks := words(body)
	n := len(chunks)
	if slow > 0 && n < 20 {
		n = 20
	}
	interval := time.Duration(0)
	if n > 0 {
		interval = slow / time.Duration(n)
	}
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for i := 0; i < n; i++ {
		if interval > 0 {
			tick.Reset(interval)
		wait:
			for {
				select {
				case s := <-t.steer:
					steers++
					_, *instr, _ = ParseDirectives(s)
					obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: fmt.Sprintf("\n(steered: now acting on %q)\n", *instr)})
				case <-tick.C:
					break wait
				case <-ctx.Done():
					obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: "\n(interrupted)", Final: true})
					return steers, true
				}
			}
		}
		if i < len(chunks) {
			obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: chunks[i]})
		}
		if planN > 0 && tickPlan(items, (i+1)*planN/n) {
			obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), items...)})
		}
	}
	for {
		select {
		case s := <-t.steer:
			steers++
			_, *instr, _ = ParseDirectives(s)
		default:
			return steers, false
		}
	}
}

// tickPlan marks the first done items completed and the next in progress;
// it reports whether anything changed.
func tickPlan(items []core.PlanItem, done int) bool {
	changed := false
	for k := range items {
		want := core.ItemPending
		if k < done {
			want = core.ItemCompleted
		} else if k == done {
			want = core.ItemInProgress
		}
		if items[k].Status != want {
			items[k].Status, changed = want, true
		}
	}
	return changed
}

// words splits text into chunks that keep their trailing space.
func words(s string) []string {
	var out []string
	for _, w := range strings.SplitAfter(s, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
