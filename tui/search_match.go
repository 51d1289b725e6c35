package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// Where a query shows in the transcript (search.go is the box): the
// folds that hide it are opened, then the rendered lines are searched.

// searchHits unfolds what hides the query in a thread and lists where
// it shows in the rendered transcript.
func (m *Model) searchHits(th *core.Thread, q string) []hit {
	lq := strings.ToLower(q)
	m.unfoldFor(th, lq)
	w, _ := m.mainSize()
	var out []hit
	pos := 0
	for _, b := range m.blocks(th, w) {
		for i, l := range b.lines {
			plain := strings.ToLower(ansi.Strip(l))
			for off := 0; ; {
				j := strings.Index(plain[off:], lq)
				if j < 0 {
					break
				}
				c0 := ansi.StringWidth(plain[:off+j])
				out = append(out, hit{line: pos + i, c0: c0, c1: c0 + ansi.StringWidth(lq)})
				off += j + len(lq)
			}
		}
		pos += len(b.lines)
	}
	return out
}

// unfoldFor opens the folds of a thread's transcript that hide text
// holding lq (lower case): long messages, closed runs, steps whose
// output holds it and the steps above them.
func (m *Model) unfoldFor(th *core.Thread, lq string) {
	has := func(s string) bool { return s != "" && strings.Contains(strings.ToLower(sanitize(s)), lq) }
	for _, r := range m.state.RunsOf(th.ID) {
		changed := false
		open := func(id string) {
			if m.folds[id] != foldOpen {
				m.folds[id], changed = foldOpen, true
			}
		}
		if longMessage(r.Text) && has(r.Text) {
			open(msgItem(r.ID))
		}
		for i, st := range r.Steers {
			if longMessage(st) && has(st) {
				open(steerItem(r.ID, i))
			}
		}
		inNodes := false
		if a := m.state.CurrentAttempt(r); a != nil {
			for _, n := range m.state.NodesOf(a.ID) {
				inText := has(n.Text + m.live[n.ID])
				if !inText && !has(n.Title) {
					continue
				}
				inNodes = true
				if inText && foldable(n) {
					open(n.ID)
				}
				for p := m.state.Node(n.Parent); p != nil && p.Kind != core.NodeRootTurn; p = m.state.Node(p.Parent) {
					if m.folds[p.ID] == foldClosed {
						open(p.ID)
					}
				}
			}
		}
		if inNodes && m.folds[runItem(r.ID)] == foldClosed {
			open(runItem(r.ID))
		}
		if changed {
			m.dropRun(r.ID)
		}
	}
}

// hitItem is the fold item that holds a transcript line: the innermost
// item around it, else the run whose lines hold it.
func hitItem(runs []*core.Run, blocks []runDoc, line int) string {
	pos := 0
	for bi, b := range blocks {
		if line >= pos+len(b.lines) {
			pos += len(b.lines)
			continue
		}
		id := ""
		if bi > 0 && bi-1 < len(runs) {
			id = runItem(runs[bi-1].ID)
		}
		for _, it := range b.items {
			if pos+it.line <= line && line < pos+it.line+it.rows {
				id = it.id
			}
		}
		return id
	}
	return ""
}

// searchHighlight marks the current match on transcript line n of th
// while the box is open, if the line still holds it there.
func (m *Model) searchHighlight(th *core.Thread, n int, l string) string {
	s := &m.search
	if !s.open || s.total == 0 || s.line != n || s.thread != th.ID {
		return l
	}
	seg := ansi.Cut(ansi.Strip(l), s.c0, s.c1)
	if !strings.EqualFold(seg, s.query) {
		return l
	}
	w := ansi.StringWidth(l)
	return ansi.Cut(l, 0, s.c0) + ansi.ResetStyle + m.matchStyle().Render(seg) + ansi.ResetStyle + ansi.Cut(l, s.c1, w)
}

// matchStyle marks the current match: the selection's colours,
// underlined, so it stands out on the cursor's line too (which is drawn
// in the selection's colours) and without colour.
func (m *Model) matchStyle() lipgloss.Style { return m.st.Selected.Underline(true) }
