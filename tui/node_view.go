package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/nexus-tui/nexus/core"
)

// foldable reports whether a node has something to open or close: tool
// output, a subagent's children, a model call's tool calls.
func foldable(n *core.Node) bool {
	switch n.Kind {
	case core.NodeToolCall, core.NodeWorkerStep, core.NodeSubagent:
		return true
	case core.NodeLLMCall:
		return len(toolCalls(n.Text)) > 0
	}
	return false
}

// renderNode draws one node at a tree depth; kids is its number of
// children (hidden when it is closed).
func (m *Model) renderNode(n *core.Node, q *core.Request, depth, w, kids int) []string {
	indent := strings.Repeat("  ", depth)
	switch n.Kind {
	case core.NodeAssistantMessage:
		text := n.Text
		if live := m.live[n.ID]; live != "" {
			text += live // a copy of the whole text: only while it streams
		}
		if text == "" {
			if n.Status == core.NodeRunning {
				return []string{m.st.Muted.Render(indent + "  …")}
			}
			return nil
		}
		return m.wrapIndentCached(n.ID, text, indent+"  ", w, m.st.Assistant)
	case core.NodeApproval, core.NodeUserInput:
		return m.renderRequestNode(n, q, indent, w)
	case core.NodeLLMCall:
		return m.renderLLMNode(n, indent, w)
	}
	fold := m.folds[n.ID]
	glyph, st := m.nodeGlyph(n.Status)
	meta := nodeMeta(n) + m.subagentCheckpoint(n)
	text, bw := n.Text, max(1, w-len(indent)-4)
	if n.Kind == core.NodeWorkerStep && n.Action == "run_command" {
		text = m.commandOutput(n.ID, text, bw, n.Status == core.NodeRunning)
	}
	body := m.bodyLinesCached(n.ID, text, bw, indent+"    ")
	if fold == foldClosed {
		hidden := len(body) + kids
		if hidden > 0 {
			meta += fmt.Sprintf(" · ▸ %d line(s) folded", hidden)
		}
	}
	out := m.nodeHead(indent, glyph, st, nodeTitle(n), meta, w, fold == foldOpen)
	if fold == foldClosed || n.Kind == core.NodeSubagent {
		return out
	}
	if fold != foldOpen && len(body) > maxToolLines {
		// Count the text's lines left out, not the screen rows they wrap
		// to: "243 lines" means what the file or the output has.
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		rows, shown := 0, 0
		for _, l := range lines {
			r := max(1, len(m.bodyLines(l, bw, indent+"    ")))
			if rows+r > maxToolLines {
				break
			}
			rows += r
			shown++
		}
		body = append(body[:rows], m.st.Muted.Render(fmt.Sprintf("%s    … %d more lines · enter on it shows all", indent, len(lines)-shown)))
	}
	return append(out, body...)
}

// nodeHead is a node's first line: glyph, title (its arguments) and
// muted metadata. Open, the whole title wraps onto as many lines as it
// needs; else it is cut to fit the line.
func (m *Model) nodeHead(indent, glyph string, st lipgloss.Style, title, meta string, w int, open bool) []string {
	avail := max(1, w-len(indent)-2)
	if !open || lipgloss.Width(oneLine(title)+meta) <= avail {
		t := trunc(oneLine(title), max(1, avail-lipgloss.Width(meta)))
		return []string{indent + st.Render(glyph+" ") + m.st.Text.Render(t) + m.st.Muted.Render(meta)}
	}
	lines := wrapIndent(title, indent+st.Render(glyph+" "), w, m.st.Text)
	if len(lines) == 0 {
		lines = []string{indent + st.Render(glyph+" ")}
	}
	return append(lines, m.st.Muted.Render(trunc(indent+"  "+strings.TrimPrefix(meta, " · "), w)))
}

// subagentCheckpoint is a subagent's checkpoint in its line's metadata
// (" · checkpoint: 1 file +1", a place ctrl+z can go back to), or "".
func (m *Model) subagentCheckpoint(n *core.Node) string {
	if n.Kind != core.NodeSubagent {
		return ""
	}
	c := m.state.Checkpoints[core.CheckpointID(n.Thread, core.NodeScope(n.Thread, n.ID))]
	switch {
	case c == nil:
		return ""
	case c.Status == core.CkReady:
		return " · checkpoint: " + fileSummary(c)
	case c.Status == core.CkStale:
		return " · checkpoint stale"
	}
	return " · " + fileSummary(c)
}

// nodeTitle is what a tool node does: its action and its arguments
// (the path or command) as the provider titled it.
func nodeTitle(n *core.Node) string {
	title := n.Title
	if title == "" {
		title = string(n.Kind)
	}
	if n.Action != "" && !strings.HasPrefix(title, n.Action) {
		title = n.Action + " " + title
	}
	return title
}

// nodeMeta is a node's timing, exit code and cost: " · 1.2s · exit 2".
func nodeMeta(n *core.Node) string {
	var s string
	switch {
	case n.DurationMS > 0:
		s += " · " + duration(time.Duration(n.DurationMS)*time.Millisecond)
	case n.StartedAt > 0 && n.EndedAt > n.StartedAt:
		s += " · " + duration(time.Duration(n.EndedAt-n.StartedAt))
	}
	if n.Exit != 0 {
		s += " · exit " + itoa(n.Exit)
	}
	if n.TokensIn+n.TokensOut > 0 {
		s += " · " + usage(n.TokensIn, n.TokensOut, n.CostUSD)
	}
	return s
}

// bodyLines wraps a node's output under an indent and colours diff
// lines: added lines, removed lines and hunk or file headers each get
// their theme style; other lines are muted.
func (m *Model) bodyLines(text string, w int, indent string) []string {
	if text == "" {
		return nil
	}
	var out []string
	for _, line := range strings.Split(sanitize(text), "\n") {
		out = append(out, m.bodyLine(line, w, indent)...)
	}
	return out
}

// bodyLine is one sanitized output line of bodyLines.
func (m *Model) bodyLine(line string, w int, indent string) []string {
	st := m.diffStyle(line)
	parts := wrap(line, w)
	if len(parts) == 0 {
		parts = []string{""}
	}
	for i, p := range parts {
		parts[i] = st.Render(indent + p)
	}
	return parts
}

// diffStyle is the style of one output line.
func (m *Model) diffStyle(line string) lipgloss.Style {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"),
		strings.HasPrefix(line, "diff --git"):
		return m.st.DiffMeta
	case strings.HasPrefix(line, "+"):
		return m.st.DiffAdd
	case strings.HasPrefix(line, "-"):
		return m.st.DiffRemove
	}
	return m.st.Muted
}

func (m *Model) nodeGlyph(status core.NodeStatus) (string, lipgloss.Style) {
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

// renderLLMNode is a model call: one line with its usage and the tool
// calls it asked for; opened, each call with all its arguments.
func (m *Model) renderLLMNode(n *core.Node, indent string, w int) []string {
	glyph, st := m.nodeGlyph(n.Status)
	calls := toolCalls(n.Text)
	line := fmt.Sprintf("%s · %d in, %d out · $%.4f · %d ms", n.Title, n.TokensIn, n.TokensOut, n.CostUSD, n.DurationMS)
	if m.folds[n.ID] != foldOpen {
		if len(calls) > 0 {
			var names []string
			for _, c := range calls {
				names = append(names, c.short())
			}
			line += " → " + strings.Join(names, ", ")
		}
		return []string{indent + st.Render(glyph+" ") + m.st.Muted.Render(trunc(oneLine(line), max(1, w-len(indent)-2)))}
	}
	out := []string{indent + st.Render(glyph+" ") + m.st.Muted.Render(trunc(oneLine(line), max(1, w-len(indent)-2)))}
	for _, c := range calls {
		out = append(out, wrapIndent(c.full(), indent+"    → ", w, m.st.Text)...)
	}
	return out
}

// toolCall is one tool call of a journaled model response.
type toolCall struct {
	Name string            `json:"name"`
	Args map[string]string `json:"args"`
}

// toolCalls decodes the tool calls of a journaled model response; none
// when it answered in text or is not JSON.
func toolCalls(response string) []toolCall {
	var r struct {
		ToolCalls []toolCall `json:"toolCalls"`
	}
	if json.Unmarshal([]byte(response), &r) != nil {
		return nil
	}
	return r.ToolCalls
}

// short is a call with its main argument: read_file(README.md).
func (c toolCall) short() string {
	arg := c.Args["path"]
	if arg == "" {
		arg = c.Args["command"] + c.Args["pattern"]
	}
	return c.Name + "(" + oneLine(arg) + ")"
}

// full is a call with every argument, sorted by name.
func (c toolCall) full() string {
	keys := make([]string, 0, len(c.Args))
	for k := range c.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+fmt.Sprintf("%q", c.Args[k]))
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
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
		state = string(q.Status)
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
