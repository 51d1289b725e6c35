package builtin

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/builtin/llm"
	"github.com/zeebo/blake3"
)

// maxCalls bounds the model calls of one turn.
const maxCalls = 32

// system is the built-in agent's instructions to a real model.
const system = `You are the built-in agent of nexus, working in a software workspace through tools.
Use the tools to do what the user asks; read before you change; keep changes minimal.
When you are done, answer briefly with what you did and what you found.`

// systemFor is the system prompt of a turn: the built-in agent's own,
// then, for a thread started as an agent identity, that agent's alias and
// instructions (llm.AgentSection), so a model reads them on every call.
func systemFor(tr *core.Turn) string {
	if strings.TrimSpace(tr.Instructions) == "" {
		return system
	}
	return system + "\n\n" + llm.AgentSection + "@" + tr.Agent + ":\n" + strings.TrimSpace(tr.Instructions)
}

// planned is what the planner loop produced.
type planned struct {
	text   string   // the model's final answer
	failed []string // steps that failed
	steps  int      // steps run (or reused)
	instr  string   // the latest instruction acted on
	steers int      // steering messages folded in at step boundaries
}

// requestKey identifies a model call by its request, so a resumed turn
// finds the journaled response of the same call.
func requestKey(model string, msgs []llm.Message) string {
	b, _ := json.Marshal(struct {
		M string
		X []llm.Message
	}{model, msgs})
	h := blake3.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// conversation turns the kernel's context into model messages, with the
// test directives taken out of user text.
func conversation(tr *core.Turn) []llm.Message {
	var out []llm.Message
	for _, m := range tr.Messages {
		text := m.Text
		if m.Role == "user" {
			_, text, _ = ParseDirectives(text)
		}
		out = append(out, llm.Message{Role: m.Role, Text: text})
	}
	return out
}

// plan runs the planning loop: model call (journaled, or reused from the
// journal), tool calls as two-phase worker steps, results back to the
// model, until it answers. Steering folds in at step boundaries.
func (a *Agent) plan(ctx context.Context, t *turn, d Directives, instr string, ask askFunc, obs func(core.Observation), rec func(core.Observation) error) (planned, error) {
	tr := t.e.Turn
	client := a.model()
	msgs := conversation(tr)
	out := planned{instr: instr}
	spentTokens, spentUSD := tr.Policy.SpentTokens, tr.Policy.SpentUSD
	todo := []core.PlanItem{}
	for call := 0; call < maxCalls; call++ {
		key := requestKey(client.Name(), msgs)
		req := llm.Request{Model: client.Name(), System: systemFor(tr), Messages: msgs, Tools: llm.Tools}
		var resp llm.Response
		if raw, ok := tr.LLM[key]; ok {
			r, err := llm.DecodeResponse(raw)
			if err != nil {
				return out, fmt.Errorf("journaled model response %s is unreadable: %w", key, err)
			}
			resp = r
		} else {
			if err := checkBudget(tr.Policy, spentTokens, spentUSD, req); err != nil {
				return out, err
			}
			start := time.Now()
			r, err := client.Complete(ctx, req, nil)
			if err != nil {
				if ctx.Err() != nil {
					return out, context.Canceled
				}
				return out, fmt.Errorf("model call failed: %w", err)
			}
			resp = r
			o := core.Observation{Kind: core.ObsLLM, Key: key, Text: resp.Encode(), Model: client.Name(),
				TokensIn: r.Usage.InputTokens, TokensOut: r.Usage.OutputTokens, CostUSD: r.Usage.CostUSD,
				NoCost: r.Usage.Unpriced, DurationMS: time.Since(start).Milliseconds()}
			if err := rec(o); err != nil {
				return out, errTurnGone
			}
		}
		spentTokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
		spentUSD += resp.Usage.CostUSD
		if len(todo) == 0 && len(resp.Plan) > 0 {
			for _, p := range resp.Plan {
				todo = append(todo, core.PlanItem{Text: p, Status: "pending"})
			}
			obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), todo...)})
		}
		if len(resp.ToolCalls) == 0 {
			out.text = resp.Text
			return out, nil
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Text: resp.Text, ToolCalls: resp.ToolCalls})
		for i, tc := range resp.ToolCalls {
			if d.Wrong && tc.Name == "write_file" {
				tc.Args = maps.Clone(tc.Args)
				tc.Args["content"] = "wrong\n"
			}
			st := &stepper{a: a, t: t, turn: tr, exec: a.exec, key: fmt.Sprintf("%s:%s:%d", t.e.Run, key, i),
				call: tc, slow: d.Slow, obs: obs, rec: rec, ask: ask}
			if len(todo) > out.steps {
				todo[out.steps].Status = "in_progress"
				obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), todo...)})
			} else if len(resp.Plan) == 0 {
				todo = append(todo, core.PlanItem{Text: describe(tc), Status: "in_progress"})
				obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), todo...)})
			}
			res, err := st.run(ctx)
			if err != nil {
				return out, err
			}
			if res.failed != "" {
				out.failed = append(out.failed, res.failed)
			}
			if out.steps < len(todo) {
				todo[out.steps].Status = core.ItemCompleted
				if res.failed != "" {
					todo[out.steps].Status = core.ItemFailed
				}
				obs(core.Observation{Kind: core.ObsPlan, Items: append([]core.PlanItem(nil), todo...)})
			}
			out.steps++
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: tc.ID, Text: res.result})
		}
		for drained := false; !drained; {
			select {
			case s := <-t.steer:
				_, clean, _ := ParseDirectives(s)
				msgs = append(msgs, llm.Message{Role: "user", Text: clean})
				out.instr = clean
				out.steers++
				todo = todo[:0]
			default:
				drained = true
			}
		}
	}
	return out, fmt.Errorf("the model made %d calls without finishing; stopping", maxCalls)
}

// checkBudget refuses the next call when it would pass the thread's token
// cap or budget. The estimate is the request's size: about four bytes a
// token, priced at the model's rates.
func checkBudget(p core.Policy, tokens int, usd float64, req llm.Request) error {
	est := len(req.System) / 4
	for _, m := range req.Messages {
		est += len(m.Text)/4 + 4
		for _, c := range m.ToolCalls {
			for k, v := range c.Args {
				est += (len(k) + len(v)) / 4
			}
		}
	}
	if p.MaxTokens > 0 && tokens+est > p.MaxTokens {
		return fmt.Errorf("token cap reached: %d tokens spent, the next call needs about %d more, the cap is %d; raise it with --max-tokens", tokens, est, p.MaxTokens)
	}
	if p.BudgetUSD > 0 {
		cost := llm.Cost(strings.TrimPrefix(strings.TrimPrefix(req.Model, "openai:"), "anthropic:"), est, 0)
		if usd+cost > p.BudgetUSD {
			return fmt.Errorf("budget reached: $%.4f spent, the next call would cost about $%.4f, the budget is $%.2f; raise it with --budget-usd", usd, cost, p.BudgetUSD)
		}
	}
	return nil
}
