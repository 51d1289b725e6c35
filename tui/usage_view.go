package tui

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// usageDialog is the cost view: tokens and cost per thread, provider and
// UTC day, and the total, the sums `nexus usage` prints (core.SumUsage),
// with the selected thread's budget. It follows the journal while open:
// the report is summed again when the state has moved on. It has no
// composer, so it owns its keys; they only scroll and close it.
type usageDialog struct {
	state    func() *core.State
	selected string
	seq      uint64
	rep      core.UsageReport
	top      int
}

func (m *Model) openUsage() tea.Cmd {
	if m.state == nil {
		return m.setFlash("not connected to the host yet", true)
	}
	d := &usageDialog{state: func() *core.State { return m.state }, seq: ^uint64(0)}
	if th := m.selectedThread(); th != nil {
		d.selected = th.ID
	}
	m.pushDialog(d)
	return nil
}

func (d *usageDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.CancelDialog, keys.QuitIdle, keys.Usage):
		return actClose{}, nil
	case key.Matches(k, keys.ViewDown, keys.PageDown):
		d.top++
	case key.Matches(k, keys.ViewUp, keys.PageUp):
		d.top = max(0, d.top-1)
	}
	return actNone{}, nil
}

func (d *usageDialog) view(st *themes.Styles, maxW, maxH int) []string {
	s := d.state()
	if s != nil && s.Seq != d.seq {
		d.rep, d.seq = core.SumUsage(s, 0), s.Seq
	}
	body, hints := scrollPage(d.lines(st, s, max(20, maxW-4)), &d.top, maxH)
	return dialogFrame(st, "Cost and tokens", body, hints, maxW, maxH)
}

// lines renders the report: a table per grouping, the total, and the
// selected thread's budget.
func (d *usageDialog) lines(st *themes.Styles, s *core.State, w int) []string {
	// The name column takes what the numbers leave, up to the longest
	// name; the cost column is as wide as the widest cost.
	names := make([]string, len(d.rep.Threads))
	nameW, costW := len("DAY (UTC)"), len("COST")
	for i, t := range d.rep.Threads {
		names[i] = t.Thread + " " + oneLine(t.Title) + " (" + oneLine(t.Provider) + ")"
		nameW = max(nameW, ansi.StringWidth(names[i]))
	}
	for _, p := range d.rep.Providers {
		nameW = max(nameW, ansi.StringWidth(oneLine(p.Provider)))
	}
	for _, t := range d.rep.Threads {
		costW = max(costW, len(t.Cost()))
	}
	costW = max(costW, len(d.rep.Total.Cost()))
	nameW = clamp(nameW, 8, max(8, w-costW-28)) // 28: the other columns and their gaps
	row := func(name string, u core.Usage) string {
		return fmt.Sprintf("%-*s %5d %9s %9s  %s", nameW, trunc(name, nameW), u.Runs, count(u.TokensIn), count(u.TokensOut), u.Cost())
	}
	head := func(title string) string {
		return st.DialogTitle.Render(fmt.Sprintf("%-*s %5s %9s %9s  %s", nameW, title, "RUNS", "IN", "OUT", "COST"))
	}
	out := []string{head("THREAD")}
	for i, t := range d.rep.Threads {
		out = append(out, row(names[i], t.Usage))
	}
	out = append(out, "", head("PROVIDER"))
	for _, p := range d.rep.Providers {
		out = append(out, row(oneLine(p.Provider), p.Usage))
	}
	out = append(out, "", head("DAY (UTC)"))
	for _, day := range d.rep.Days {
		out = append(out, row(day.Day, day.Usage))
	}
	out = append(out, "", st.Key.Render(row("TOTAL", d.rep.Total)))
	if len(d.rep.Threads) == 0 {
		out = append(out, st.Muted.Render("no usage reported yet"))
	}
	if s != nil && s.Threads[d.selected] != nil {
		out = append(out, "", st.Muted.Render(trunc(budgetLine(s, s.Threads[d.selected]), w)))
	}
	return out
}

// budgetLine says what the thread spent and its budget.
func budgetLine(s *core.State, th *core.Thread) string {
	u := core.ThreadTotal(s, th)
	line := th.ID + " spent " + u.Cost() + " and " + count(u.TokensIn+u.TokensOut) + " tokens; budget "
	if th.BudgetUSD > 0 {
		line += core.Usage{CostUSD: th.BudgetUSD}.Cost()
	} else {
		line += "none"
	}
	if th.MaxTokens > 0 {
		line += ", token cap " + count(th.MaxTokens)
	}
	return line + " (set it with `nexus budget`)"
}

// count shortens a token count: 950, 12.3k, 4.5M.
func count(n int) string {
	switch {
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 1e4:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.Itoa(n)
}
