package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/nexus-tui/nexus/core"
)

// maxToolLines is how much of a tool node's output the transcript shows.
const maxToolLines = 6

// renderRun renders one run: a rule with its status, the person's text
// and steers, earlier attempts as one line each, then the current
// attempt's nodes as a compact tree with the reply inline.
func (m *Model) renderRun(r *core.Run, w int) []string {
	var out []string
	out = append(out, m.runRule(r, w))
	out = append(out, wrapIndent(r.Text, m.st.User.Render("› "), w, m.st.User)...)
	for _, s := range r.Steers {
		out = append(out, wrapIndent(s, m.st.Steer.Render("  ↪ steer: "), w, m.st.Steer)...)
	}
	attempts := m.state.AttemptsOf(r.ID)
	for i, a := range attempts {
		if i == len(attempts)-1 {
			break
		}
		out = append(out, m.st.Muted.Render(trunc(fmt.Sprintf("  attempt %d · %s · %s", a.N, a.Reason, a.Status), w)))
	}
	if a := m.state.CurrentAttempt(r); a != nil {
		if len(attempts) > 1 {
			out = append(out, m.st.Muted.Render(trunc(fmt.Sprintf("  attempt %d · %s", a.N, a.Reason), w)))
		}
		out = append(out, m.renderNodes(r, a, w)...)
	}
	if r.Error != "" && r.Status != core.RunCompleted {
		out = append(out, wrapIndent(r.Error, m.st.NodeFailed.Render("✗ "), w, m.st.NodeFailed)...)
	}
	if r.Recoverable && r.Status == core.RunInterrupted {
		out = append(out, wrapIndent("interrupted by a host restart: "+m.keys.Resume.Help().Key+
			" resumes it (or `nexus resume`)", "  ", w, m.st.Request)...)
	}
	return append(out, "")
}

// runRule is the header line of a run: ordinal, status, duration.
func (m *Model) runRule(r *core.Run, w int) string {
	status := r.Status
	if r.Held {
		status += " (held)"
	}
	if r.InterruptRequested {
		status += " · interrupting"
	}
	label := fmt.Sprintf("── run %d · ", r.Ordinal)
	tail := ""
	if r.StartedAt > 0 && r.EndedAt > r.StartedAt {
		tail = " · " + duration(time.Duration(r.EndedAt-r.StartedAt))
	}
	tail += " "
	rest := max(0, w-lipgloss.Width(label+status+tail))
	return m.st.RunHeader.Render(label) + m.runStyle(r.Status).Render(status) +
		m.st.RunHeader.Render(tail+strings.Repeat("─", rest))
}

// duration formats a run's wall time: milliseconds under a second, else
// tenths of a second.
func duration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func (m *Model) runStyle(status string) lipgloss.Style {
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
// nodes get a status glyph and their title.
func (m *Model) renderNodes(r *core.Run, a *core.Attempt, w int) []string {
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
		case n.Parent == "" || !ids[n.Parent] || m.state.Nodes[n.Parent].Kind == core.NodeRootTurn:
			roots = append(roots, n)
		default:
			children[n.Parent] = append(children[n.Parent], n)
		}
	}
	reqs := map[string]*core.Request{}
	for _, q := range m.state.RequestsOf(r.ID) {
		reqs[q.Node] = q
	}
	var out []string
	var walk func(ns []*core.Node, depth int)
	walk = func(ns []*core.Node, depth int) {
		for _, n := range ns {
			out = append(out, m.renderNode(n, reqs[n.ID], depth, w)...)
			walk(children[n.ID], depth+1)
		}
	}
	walk(roots, 0)
	return out
}

// renderNode draws one node at a tree depth.
func (m *Model) renderNode(n *core.Node, q *core.Request, depth, w int) []string {
	indent := strings.Repeat("  ", depth)
	switch n.Kind {
	case core.NodeAssistantMessage:
		text := n.Text + m.live[n.ID]
		if text == "" {
			if n.Status == core.NodeRunning {
				return []string{m.st.Muted.Render(indent + "  …")}
			}
			return nil
		}
		return wrapIndent(text, indent+"  ", w, m.st.Assistant)
	case core.NodeApproval, core.NodeUserInput:
		return m.renderRequestNode(n, q, indent, w)
	case core.NodeLLMCall:
		glyph, st := m.nodeGlyph(n.Status)
		line := fmt.Sprintf("%s · %d in, %d out · $%.4f · %d ms%s", n.Title, n.TokensIn, n.TokensOut, n.CostUSD, n.DurationMS, llmCalls(n.Text))
		return []string{indent + st.Render(glyph+" ") + m.st.Muted.Render(trunc(line, max(1, w-len(indent)-2)))}
	}
	glyph, st := m.nodeGlyph(n.Status)
	title := n.Title
	if title == "" {
		title = n.Kind
	}
	head := indent + st.Render(glyph+" ") + m.st.Text.Render(trunc(oneLine(title), max(1, w-len(indent)-2)))
	out := []string{head}
	if n.Kind == core.NodeSubagent {
		return out
	}
	body := wrap(n.Text, max(1, w-len(indent)-4))
	for i, l := range body {
		if i == maxToolLines {
			out = append(out, m.st.Muted.Render(fmt.Sprintf("%s    … %d more lines", indent, len(body)-i)))
			break
		}
		out = append(out, m.st.Muted.Render(indent+"    "+l))
	}
	return out
}

func (m *Model) nodeGlyph(status string) (string, lipgloss.Style) {
	switch status {
	case core.NodeRunning:
		return "▸", m.st.NodeRunning
	case core.NodeCompleted:
		return "✓", m.st.NodeDone
	case core.NodeFailed:
		return "✗", m.st.NodeFailed
	}
	return "⊘", m.st.Muted
}

// renderRequestNode shows an approval or question inline with its state.
func (m *Model) renderRequestNode(n *core.Node, q *core.Request, indent string, w int) []string {
	kind := "approval"
	if n.Kind == core.NodeUserInput {
		kind = "question"
	}
	prompt := n.Title
	if q != nil {
		prompt = q.Prompt
	}
	out := wrapIndent(kind+": "+prompt, indent+"? ", w, m.st.Request)
	if q == nil {
		return out
	}
	var state string
	st := m.st.Muted
	switch q.Status {
	case core.RequestPending:
		state, st = "waiting for you · "+m.keys.Answer.Help().Key+" to answer", m.st.Request
	case core.RequestResolved:
		state, st = responseText(q), m.st.NodeDone
	case core.RequestNotResumable:
		state, st = "not resumable: "+q.Reason, m.st.NodeFailed
	default:
		state = q.Status
		if q.Reason != "" {
			state += ": " + q.Reason
		}
	}
	return append(out, wrapIndent(state, indent+"  → ", w, st)...)
}

// responseText says how a request was answered.
func responseText(q *core.Request) string {
	switch q.Response {
	case core.RespAllow:
		return "allowed once"
	case core.RespAllowAlways:
		return "allowed always"
	case core.RespDeny:
		return "denied"
	case core.RespAnswer:
		return fmt.Sprintf("answered %q", q.Answer)
	}
	return "resolved"
}

// llmCalls summarizes the tool calls of a journaled model response, e.g.
// " → read_file(README.md)", or "" when it answered in text.
func llmCalls(response string) string {
	var r struct {
		ToolCalls []struct {
			Name string            `json:"name"`
			Args map[string]string `json:"args"`
		} `json:"toolCalls"`
	}
	if json.Unmarshal([]byte(response), &r) != nil || len(r.ToolCalls) == 0 {
		return ""
	}
	var parts []string
	for _, c := range r.ToolCalls {
		arg := c.Args["path"]
		if arg == "" {
			arg = c.Args["command"] + c.Args["pattern"]
		}
		parts = append(parts, c.Name+"("+oneLine(arg)+")")
	}
	return " → " + strings.Join(parts, ", ")
}
