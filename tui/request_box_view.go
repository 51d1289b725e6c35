package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nexus-tui/nexus/core"
)

// maxRequestLines bounds the prompt lines the box keeps (a command or a
// diff); the rest is counted, and `nexus requests --json` has it all.
const maxRequestLines = 2000

// requestLines is the shown request's prompt wrapped to w cells,
// sanitised and bounded; cached per request and width, since a diff can
// be long and the box is drawn every frame.
func (m *Model) requestLines(q *core.Request, w int) []string {
	b := &m.reqBox
	if b.linesFor == q.ID && b.linesW == w && b.lines != nil {
		return b.lines
	}
	lines := wrap(strings.TrimRight(q.Prompt, "\n"), max(1, w))
	b.linesMore = 0
	if len(lines) > maxRequestLines {
		b.linesMore = len(lines) - maxRequestLines
		lines = append(lines[:maxRequestLines:maxRequestLines],
			"… "+itoa(b.linesMore)+" more lines: `nexus requests --json` shows the whole request")
	}
	if len(lines) == 0 {
		lines = []string{"(no text)"}
	}
	b.lines, b.linesFor, b.linesW = lines, q.ID, w
	return lines
}

// requestTail is what the box shows under the prompt: the numbered
// choices and, while typing, the answer input.
func (m *Model) requestTail(q *core.Request, w int) []string {
	b := &m.reqBox
	var parts []string
	for i, c := range m.boxChoices(q) {
		parts = append(parts, itoa(i+1)+" "+oneLine(c.label))
	}
	var out []string
	st := m.st.KeyDesc
	if !b.armed || b.answered == q.ID || b.typing {
		st = m.st.Muted
	}
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line)+3+ansi.StringWidth(p) <= w:
			line += " · " + p
		default:
			out = append(out, st.Render(trunc(line, w)))
			line = p
		}
	}
	out = append(out, st.Render(trunc(line, w)))
	if b.typing {
		b.input.SetWidth(max(1, w-4))
		out = append(out, m.st.Muted.Render("› ")+b.input.View())
	}
	return out
}

// requestBoxHeight is the rows the box takes in the composer area (0:
// none), at most half of avail and leaving the panes above six rows.
func (m *Model) requestBoxHeight(w, avail int) int {
	q := m.shownRequest()
	if q == nil {
		return 0
	}
	inner := w - padW
	want := len(m.requestLines(q, inner)) + len(m.requestTail(q, inner)) + 2
	return clamp(want, 3, max(3, min(avail/2, avail-6)))
}

// renderRequestBox draws the request: its prompt (scrolled from top when
// it does not fit), its choices, and in the bottom edge what the keys do
// now.
func (m *Model) renderRequestBox(r rect) []string {
	q := m.shownRequest()
	if q == nil || r.h < 2 {
		return nil
	}
	b := &m.reqBox
	inner := r.w - padW
	lines := m.requestLines(q, inner)
	tail := m.requestTail(q, inner)
	room := max(0, r.h-2-len(tail))
	b.top = clamp(b.top, 0, max(0, len(lines)-room))
	var body []string
	for i := b.top; i < len(lines) && i < b.top+room; i++ {
		body = append(body, m.requestLineStyle(i, lines[i]))
	}
	for len(body) < room {
		body = append(body, "")
	}
	body = append(body, tail...)
	return frame(m.st.DialogBorder, m.st.DialogTitle, m.requestTitle(q), m.requestFooter(q, len(lines)-room), r.w, r.h, body)
}

// requestLineStyle styles a prompt line: the first as a request, diff
// lines as diffs, the rest as text.
func (m *Model) requestLineStyle(i int, l string) string {
	switch {
	case i == 0:
		return m.st.Request.Render(l)
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
		return m.st.DiffMeta.Render(l)
	case strings.HasPrefix(l, "+"):
		return m.st.DiffAdd.Render(l)
	case strings.HasPrefix(l, "-"):
		return m.st.DiffRemove.Render(l)
	}
	return m.st.Text.Render(l)
}

// requestTitle names the request, its run and its thread.
func (m *Model) requestTitle(q *core.Request) string {
	kind := "Approval "
	switch q.Kind {
	case core.RequestUserInput:
		kind = "Question "
	case core.RequestBudget:
		kind = "Budget "
	}
	title := kind + q.ID
	if r := m.state.Runs[q.Run]; r != nil {
		title += " · run " + itoa(r.Ordinal)
	}
	if th := m.state.Threads[q.Thread]; th != nil {
		title += " · " + threadTitle(th)
	}
	return title
}

// requestFooter says what the keys do now; hidden > 0 lines of the
// prompt do not fit.
func (m *Model) requestFooter(q *core.Request, hidden int) string {
	b := &m.reqBox
	var parts []string
	if hidden > 0 {
		parts = append(parts, itoa(hidden)+" more lines ("+m.keys.RequestScrollUp.Help().Key+"/"+
			strings.TrimPrefix(m.keys.RequestScrollDown.Help().Key, "shift+")+")")
	}
	draft := m.keys.RequestDraft.Help().Key + " your draft"
	switch {
	case b.answered == q.ID:
		parts = append(parts, "answer sent · waiting for the agent")
	case b.typing:
		parts = append(parts, "enter sends · esc back to the choices")
	case !b.armed:
		parts = append(parts, "just arrived…", draft)
	default:
		parts = append(parts, "press 1-"+itoa(len(m.boxChoices(q))), draft)
	}
	return strings.Join(parts, " · ")
}
