package tui

import (
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// todoPlan is what the todos pane shows: the todo list of the selected
// thread's active run, else of its latest run that has one, with the
// plan the agent proposed in that run (plan mode) after it. The second
// result is a plan to draw: the todo list, then, when there is a proposed
// plan, a "Proposed plan" line (status "header") and its steps.
func (m *Model) todoPlan() (*core.Run, *core.Plan) {
	th := m.selectedThread()
	if th == nil {
		return nil, nil
	}
	shown := func(r *core.Run) *core.Plan {
		todo, proposed := m.state.Plan(core.PlanID(r.ID)), m.state.Plan(core.ProposedPlanID(r.ID))
		if proposed == nil {
			return todo
		}
		p := &core.Plan{ID: core.PlanID(r.ID), Run: r.ID, Kind: "todo_list"}
		if todo != nil {
			p.Items = append(p.Items, todo.Items...)
		}
		p.Items = append(p.Items, core.PlanItem{Text: "Proposed plan", Status: "header"})
		p.Items = append(p.Items, proposed.Items...)
		return p
	}
	if r := m.state.ActiveRun(th.ID); r != nil {
		// A new run has its own list, or none yet: never the previous
		// run's, which would read as this one's progress.
		return r, shown(r)
	}
	runs := m.state.RunsOf(th.ID)
	for i := len(runs) - 1; i >= 0; i-- {
		if p := shown(runs[i]); p != nil {
			return runs[i], p
		}
	}
	return nil, nil
}

// todoCount is the number of items in the shown todo list.
func (m *Model) todoCount() int {
	if m.state == nil {
		return 0
	}
	_, p := m.todoPlan()
	if p == nil {
		return 0
	}
	return len(p.Items)
}

func (m *Model) renderTodos(r rect) []string {
	inner := r.w - padW
	if m.state == nil {
		return m.box("Todos", "", false, r.w, r.h, nil)
	}
	run, p := m.todoPlan()
	if p == nil {
		return m.box("Todos", "", false, r.w, r.h, []string{m.st.Muted.Render(trunc("no todo list", inner))})
	}
	// A step in progress when its run ended (interrupted, failed,
	// cancelled) is not going on: it shows as stopped.
	ended := core.Terminal(run.Status)
	done, headers := 0, 0
	var body []string
	for _, it := range p.Items {
		glyph, st := "○ ", m.st.TodoPending
		switch it.Status {
		case "completed":
			glyph, st = "✓ ", m.st.TodoDone
			done++
		case core.ItemFailed:
			glyph, st = "✗ ", m.st.Error
		case "in_progress":
			glyph, st = "▸ ", m.st.TodoActive
			if ended {
				glyph, st = "– ", m.st.Muted
			}
		case "header":
			glyph, st = "", m.st.Muted
			headers++
		}
		// A child list (a subagent's) is indented under its line.
		indent := strings.Repeat("  ", min(it.Depth, core.MaxPlanDepth))
		body = append(body, st.Render(trunc(indent+glyph+oneLine(it.Text), inner)))
	}
	title := fmt.Sprintf("Todos %d/%d · run %d", done, len(p.Items)-headers, run.Ordinal)
	footer := ""
	if hidden := len(body) - (r.h - 2); hidden > 0 {
		// Keep the item in progress visible: show the window around it.
		start := 0
		for i, it := range p.Items {
			if it.Status == "in_progress" {
				start = clamp(i-1, 0, hidden)
				break
			}
			if it.Status == "completed" {
				start = clamp(i, 0, hidden)
			}
		}
		body = body[start:]
		footer = fmt.Sprintf("%d more", hidden)
	}
	return m.box(title, footer, false, r.w, r.h, body)
}
