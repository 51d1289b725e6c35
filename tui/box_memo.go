package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// boxParts are a box's borders: everything of it but the body, which
// is all that changes from frame to frame in a pane that streams.
type boxParts struct {
	top, bottom string
	left, right string // a body line's sides, padding included
	blank       string // an empty body line
}

func newBoxParts(bs, ts lipgloss.Style, title, footer string, w int) boxParts {
	inner := w - 2
	left, right := bs.Render("│")+" ", ansi.ResetStyle+" "+bs.Render("│")
	return boxParts{
		top:    edge(bs, ts, "╭", "╮", title, inner),
		bottom: edge(bs, ts, "╰", "╯", footer, inner),
		left:   left, right: right,
		blank: left + strings.Repeat(" ", max(0, inner-2)) + right,
	}
}

// lines frames body in the parts: h lines of exactly w cells.
func (p *boxParts) lines(w, h int, body []string) []string {
	inner := w - 2
	out := make([]string, 0, h)
	out = append(out, p.top)
	for i := 0; i < h-2; i++ {
		if i >= len(body) || body[i] == "" {
			out = append(out, p.blank)
			continue
		}
		out = append(out, p.left+fit(body[i], inner-2)+p.right)
	}
	return append(out, p.bottom)
}

// boxKey is what a pane's box parts depend on besides the theme.
type boxKey struct {
	title, footer string
	focused       bool
	w             int
}

// boxMemo keeps the parts of the boxes drawn lately: the panes' borders
// were a sixth of a streaming frame's cost, drawn through lipgloss for
// every frame though they change only with a title, a size or the focus.
// invalidateAll empties it (a theme change); it never holds more than
// boxMemoMax boxes (titles with a count or a time in them come and go).
type boxMemo map[boxKey]*boxParts

const boxMemoMax = 64

func (m *Model) boxParts(k boxKey) *boxParts {
	if p, ok := m.boxes[k]; ok {
		return p
	}
	if m.boxes == nil || len(m.boxes) >= boxMemoMax {
		m.boxes = boxMemo{}
	}
	bs, ts := m.st.Border, m.st.Title
	if k.focused {
		bs, ts = m.st.BorderFocused, m.st.TitleFocused
	}
	p := newBoxParts(bs, ts, k.title, k.footer, k.w)
	m.boxes[k] = &p
	return &p
}
