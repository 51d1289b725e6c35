package builtin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// replyKey is the node key of the turn's reply.
const replyKey = "reply"

// run plays one turn of the conversation agent: approvals and questions
// first (never asked twice: settled ones come from the journal), then an
// optional subagent, then the reply streamed over #slow with the todo list
// ticked off, steering folded in between chunks, and the closing line that
// states what it acted on.
func (a *Agent) run(ctx context.Context, t *turn) {
	e, tr := t.e, t.e.Turn
	obs := func(o core.Observation) {
		o.Thread, o.Run, o.Attempt = e.Thread, e.Run, e.Attempt
		a.post(o)
	}
	end := func(status, errText string) {
		obs(core.Observation{Kind: core.ObsTurnEnded, Status: status, Error: errText})
	}
	obs(core.Observation{Kind: core.ObsTurnStarted})
	d, clean, err := ParseDirectives(tr.Text)
	if err != nil {
		obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: "sim: " + err.Error(), Final: true})
		end(core.AttemptFailed, "sim: "+err.Error())
		return
	}
	instr := clean
	if tr.Instruction != tr.Text {
		_, instr, _ = ParseDirectives(tr.Instruction)
	}
	settled := map[string]core.Request{}
	for _, q := range tr.Settled {
		settled[q.Key] = q
	}
	ask := func(key, kind, prompt string) (core.Request, bool) {
		if q, ok := settled[key]; ok {
			return q, true
		}
		obs(core.Observation{Kind: core.ObsRequest, Key: key, RequestKind: kind, Prompt: prompt})
		for {
			select {
			case q := <-t.answers:
				if q.Key == key {
					return q, true
				}
			case <-ctx.Done():
				return core.Request{}, false
			}
		}
	}
	var notes []string
	if d.Approve {
		q, ok := ask("approve", core.RequestApproval, fmt.Sprintf("Allow the built-in agent to go ahead with %q?", instr))
		if !ok {
			end(core.AttemptInterrupted, "interrupted while waiting for approval")
			return
		}
		if q.Response == core.RespDeny {
			notes = append(notes, "Approval was denied, so I did not go ahead.")
		} else {
			notes = append(notes, "Approval granted.")
		}
	}
	if d.Ask != "" {
		q, ok := ask("ask", core.RequestUserInput, d.Ask)
		if !ok {
			end(core.AttemptInterrupted, "interrupted while waiting for an answer")
			return
		}
		notes = append(notes, fmt.Sprintf("You answered %q to %q.", q.Answer, d.Ask))
	}
	if d.Subagent {
		obs(core.Observation{Kind: core.ObsNode, Key: "subagent", NodeKind: core.NodeSubagent, Title: "subagent: research"})
		obs(core.Observation{Kind: core.ObsText, Key: "subagent/reply", Parent: "subagent",
			Text: fmt.Sprintf("Subagent looked into %q and reports back.", instr), Final: true})
		obs(core.Observation{Kind: core.ObsNode, Key: "subagent", Status: core.NodeCompleted})
		notes = append(notes, "A subagent looked into it first.")
	}
	steers := 0
	var items []core.PlanItem
	if d.Plan > 0 {
		for i := 1; i <= d.Plan; i++ {
			items = append(items, core.PlanItem{Text: fmt.Sprintf("step %d of %d", i, d.Plan), Status: "pending"})
		}
		obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), items...)})
	}
	chunks := words(reply(instr, notes))
	n := len(chunks)
	if d.Slow > 0 && n < 20 {
		n = 20
	}
	interval := time.Duration(0)
	if n > 0 {
		interval = d.Slow / time.Duration(n)
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
					_, instr, _ = ParseDirectives(s)
					obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: fmt.Sprintf("\n(steered: now acting on %q)\n", instr)})
				case <-tick.C:
					break wait
				case <-ctx.Done():
					obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: "\n(interrupted)", Final: true})
					end(core.AttemptInterrupted, "interrupted")
					return
				}
			}
		}
		if i < len(chunks) {
			obs(core.Observation{Kind: core.ObsText, Key: replyKey, Text: chunks[i]})
		}
		if d.Plan > 0 {
			done := (i + 1) * d.Plan / n
			changed := false
			for k := range items {
				want := "pending"
				if k < done {
					want = "completed"
				} else if k == done {
					want = "in_progress"
				}
				if items[k].Status != want {
					items[k].Status, changed = want, true
				}
			}
			if changed {
				obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), items...)})
			}
		}
	}
	for drained := false; !drained; {
		select {
		case s := <-t.steer:
			steers++
			_, instr, _ = ParseDirectives(s)
		default:
			drained = true
		}
	}
	obs(core.Observation{Kind: core.ObsText, Key: replyKey, Final: true,
		Text: fmt.Sprintf("\n[sim] acted on: %q; context: %d messages", instr, tr.UserMessages+steers)})
	if d.Fail {
		end(core.AttemptFailed, "sim: the run failed as asked (#fail)")
		return
	}
	end(core.AttemptCompleted, "")
}

// reply is the conversation agent's answer to an instruction.
func reply(instr string, notes []string) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n + " ")
	}
	if instr == "" {
		b.WriteString("Ready when you are.")
	} else {
		fmt.Fprintf(&b, "Working on %q with the offline sim model: no files were changed.", instr)
	}
	return b.String()
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
