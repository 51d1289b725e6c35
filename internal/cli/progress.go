package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// progress prints what `nexus run` does, as it happens, from the journal:
//
//	[LLM] sim -> 151 in, 77 out, $0.00, 3 ms
//	Plan: [read_file(README.md), write_file(SUMMARY.md)]
//	Step 1/2: read_file README.md [CKPT]
//
// [CKPT] marks a step whose outcome is in the journal: a crash after it
// never runs it again.
type progress struct {
	w     io.Writer
	run   string
	plan  string
	steps int
}

func (p *progress) event(st *core.State, ev *core.Event) {
	if ev.Run != p.run {
		return
	}
	pl := &ev.Payload
	switch {
	case pl.Node != nil && pl.Node.Kind == core.NodeLLMCall && pl.Node.Status == core.NodeCompleted:
		n := pl.Node
		fmt.Fprintf(p.w, "[LLM] %s -> %d in, %d out, %s, %d ms\n", n.Title, n.TokensIn, n.TokensOut, dollars(n.CostUSD), n.DurationMS)
	case pl.Plan != nil:
		var names []string
		for _, it := range pl.Plan.Items {
			names = append(names, it.Text)
		}
		if plan := strings.Join(names, ", "); plan != p.plan {
			p.plan = plan
			fmt.Fprintf(p.w, "Plan: [%s]\n", plan)
		}
	case ev.Type == core.EvEffectCompleted && pl.Effect != nil && pl.Effect.Kind == core.EffWorkerStep:
		p.steps++
		total := "?"
		if pp := st.Plan(core.PlanID(p.run)); pp != nil && len(pp.Items) >= p.steps {
			total = fmt.Sprint(len(pp.Items))
		}
		e := pl.Effect
		status := ""
		switch {
		case e.Status == core.EffCompleted:
		case e.Exit != 0:
			status = fmt.Sprintf(" failed (exit code %d)", e.Exit)
		default:
			status = " " + string(e.Status)
		}
		fmt.Fprintf(p.w, "Step %d/%s: %s%s [CKPT]\n", p.steps, total, e.Target, status)
	case pl.Request != nil && pl.Request.Status == core.RequestPending && ev.Type == core.EvRequestUpdated:
		fmt.Fprintf(p.w, "Waiting on %s (%s): %s\n", pl.Request.ID, pl.Request.Kind, firstLineOf(pl.Request.Prompt))
	}
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// dollars prints a cost with cents, or with more digits when it is below a
// cent but not nothing.
func dollars(usd float64) string {
	if usd > 0 && usd < 0.01 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
