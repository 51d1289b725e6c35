package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/nexus-tui/nexus/core"
)

// maxToolLines is how much of a tool node's output the transcript shows
// until the node is opened.
const maxToolLines = 6

// runDoc is a run rendered at one width: its lines, and the line where
// each foldable item (the run itself, and its nodes with a body) starts.
type runDoc struct {
	lines []string
	items []foldItem
}

// foldItem is a place the transcript cursor can stop: a run ("run:" +
// its id), a node (its id) or a long message (msg_fold.go), starting at
// line and rows long.
type foldItem struct {
	id         string
	line, rows int
}

// foldState is a run's or node's open/closed state. Default is what the
// transcript shows before the person touches it: runs open, tool output
// cut to maxToolLines, model calls on one line.
type foldState int

const (
	foldDefault foldState = iota
	foldOpen
	foldClosed
)

func runItem(id string) string { return "run:" + id }

// add appends lines, recording an item at the first one.
func (d *runDoc) add(item string, lines ...string) {
	if item != "" && len(lines) > 0 {
		d.items = append(d.items, foldItem{id: item, line: len(d.lines), rows: len(lines)})
	}
	d.lines = append(d.lines, lines...)
}

// renderRun renders one run: a rule with its status, timing and cost,
// the person's text and steers, earlier attempts as one line each, then
// the current attempt's nodes as a tree with the reply inline.
func (m *Model) renderRun(r *core.Run, w int) runDoc {
	var d runDoc
	d.add(runItem(r.ID), m.runRule(r, w))
	m.addMessage(&d, msgItem(r.ID), r.Text, m.st.User.Render("› "), m.st.User, w)
	for i, s := range r.Steers {
		m.addMessage(&d, steerItem(r.ID, i), s, m.st.Steer.Render("  ↪ steer: "), m.st.Steer, w)
	}
	attempts := m.state.AttemptsOf(r.ID)
	if m.folds[runItem(r.ID)] == foldClosed {
		n := 0
		if a := m.state.CurrentAttempt(r); a != nil {
			n = len(m.state.NodesOf(a.ID))
		}
		d.add("", m.st.Muted.Render(trunc(fmt.Sprintf("  ▸ %d attempt(s), %d node(s) folded · enter opens", len(attempts), n), w)))
		return m.runTail(r, w, d)
	}
	for i, a := range attempts {
		if i == len(attempts)-1 {
			break
		}
		d.add("", m.st.Muted.Render(trunc(fmt.Sprintf("  attempt %d · %s · %s", a.N, a.Reason, a.Status), w)))
	}
	if a := m.state.CurrentAttempt(r); a != nil {
		if len(attempts) > 1 {
			d.add("", m.st.Muted.Render(trunc(fmt.Sprintf("  attempt %d · %s", a.N, a.Reason), w)))
		}
		m.renderNodes(&d, r, a, w)
	}
	m.runFiles(&d, r, w)
	return m.runTail(r, w, d)
}

// runTail adds the run's error, the resume hint, what a rollback did and
// the blank line that separates runs.
func (m *Model) runTail(r *core.Run, w int, d runDoc) runDoc {
	if r.Status == core.RunRolledBack {
		d.add("", wrapIndent("rolled back: its file changes were undone and it left the agent's context",
			"  ↶ ", w, m.st.Muted)...)
	}
	if r.Error != "" && r.Status != core.RunCompleted {
		d.add("", wrapIndent(r.Error, m.st.NodeFailed.Render("✗ "), w, m.st.NodeFailed)...)
	}
	if r.Recoverable && r.Status == core.RunInterrupted {
		d.add("", wrapIndent("interrupted by a host restart: "+m.keys.Resume.Help().Key+
			" resumes it (or `nexus resume`)", "  ", w, m.st.Request)...)
	}
	d.add("", m.rollbackLines(r.Thread, r.Ordinal, w)...)
	d.add("", "")
	return d
}

// runRule is the header line of a run: ordinal, status, duration, the
// files its checkpoint changed, and the tokens and cost of its model
// calls.
func (m *Model) runRule(r *core.Run, w int) string {
	status := string(r.Status)
	if r.Status == core.RunRolledBack {
		status = "↶ rolled back"
	}
	if r.Held {
		status += " (held)"
	}
	if r.InterruptRequested {
		status += " · interrupting"
	}
	switch {
	case r.AwaitBase:
		status += " · capturing the baseline"
	case r.Finishing != "":
		status += " · capturing a checkpoint"
	}
	label := fmt.Sprintf("── run %d · ", r.Ordinal)
	tail := ""
	if r.StartedAt > 0 && r.EndedAt > r.StartedAt {
		tail = " · " + duration(time.Duration(r.EndedAt-r.StartedAt))
	}
	if files := fileSummary(checkpointOf(m.state, r.Thread, r.Ordinal)); files != "" {
		tail += " · " + files
	}
	if in, out, cost := m.runUsage(r); in+out > 0 {
		tail += " · " + usage(in, out, cost)
	}
	tail += " "
	rest := max(0, w-lipgloss.Width(label+status+tail))
	return m.st.RunHeader.Render(label) + m.runStyle(r.Status).Render(status) +
		m.st.RunHeader.Render(tail+strings.Repeat("─", rest))
}

// runUsage sums the model calls of every attempt of a run.
func (m *Model) runUsage(r *core.Run) (in, out int, cost float64) {
	for _, a := range m.state.AttemptsOf(r.ID) {
		for _, n := range m.state.NodesOf(a.ID) {
			in += n.TokensIn
			out += n.TokensOut
			cost += n.CostUSD
		}
	}
	return in, out, cost
}

// usage formats tokens and cost: "1.2k tok · $0.0031".
func usage(in, out int, cost float64) string {
	s := tokens(in+out) + " tok"
	if cost > 0 {
		s += fmt.Sprintf(" · $%.4f", cost)
	}
	return s
}

func tokens(n int) string {
	if n < 1000 {
		return itoa(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// duration formats a wall time: milliseconds under a second, else tenths
// of a second.
func duration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func (m *Model) runStyle(status core.RunStatus) lipgloss.Style {
	switch status {
	case core.RunRunning:
		return m.st.BadgeRunning
	case core.RunWaiting:
		return m.st.BadgeWaiting
	case core.RunFailed:
		return m.st.BadgeFailed
	case core.RunCompleted:
		return m.st.BadgeDone
	}
	return m.st.BadgeIdle
}

// renderNodes draws the nodes of an attempt as a tree under its root
// turn. Top-level assistant text is the reply and reads as prose; other
// nodes get a status glyph and their title; a closed node hides its body
// and its children.
func (m *Model) renderNodes(d *runDoc, r *core.Run, a *core.Attempt, w int) {
	nodes := m.state.NodesOf(a.ID)
	children := map[string][]*core.Node{}
	ids := map[string]bool{}
	for _, n := range nodes {
		ids[n.ID] = true
	}
	var roots []*core.Node
	for _, n := range nodes {
		switch {
		case n.Kind == core.NodeRootTurn:
		case n.Parent == "" || !ids[n.Parent] || m.state.Node(n.Parent).Kind == core.NodeRootTurn:
			roots = append(roots, n)
		default:
			children[n.Parent] = append(children[n.Parent], n)
		}
	}
	reqs := map[string]*core.Request{}
	for _, q := range m.state.RequestsOf(r.ID) {
		reqs[q.Node] = q
	}
	var walk func(ns []*core.Node, depth int)
	walk = func(ns []*core.Node, depth int) {
		for _, n := range ns {
			item := ""
			if foldable(n) || len(children[n.ID]) > 0 {
				item = n.ID
			}
			d.add(item, m.renderNode(n, reqs[n.ID], depth, w, len(children[n.ID]))...)
			if m.folds[n.ID] != foldClosed {
				walk(children[n.ID], depth+1)
			}
		}
	}
	walk(roots, 0)
}
