package tui

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// termView is a pane's screen as last drawn: View fits a snapshot to the
// pane only when the snapshot, the pane's size or the scroll changed.
type termView struct {
	snap   *termSnap
	w, h   int
	top    int64 // the first line shown, when scrolled back
	back   bool
	lines  []string
	cur    uv.Position // the cursor within lines; -1 when not on them
	hidden bool
}

// termLines is the pane's published screen as h lines of exactly w
// cells, or, scrolled back (sc), the lines from sc's top on: the
// scrollback, then the screen. At the bottom, when the screen is taller
// than the pane (a grid cell, or before a resize took effect) it shows
// the rows that end at the cursor. It reads the snapshot the pane's
// goroutines published and never the emulator, whose lock a flood holds.
func (m *Model) termLines(p *termPane, w, h int, sc termScroll) termView {
	s := p.snap.Load()
	if s == nil {
		s = &termSnap{hist: &histView{}}
	}
	sc = sc.at(s, h)
	if c := p.cache; c.lines != nil && c.snap == s && c.w == w && c.h == h && c.back == sc.back && c.top == sc.top {
		return c
	}
	cur := s.cur
	v := termView{snap: s, w: w, h: h, top: sc.top, back: sc.back, lines: make([]string, h), hidden: s.hidden}
	_, top := scrollSpan(s, h) // the bottom view's first line
	if sc.back {
		top = sc.top
	}
	for i := range h {
		l := s.lineAt(top + int64(i))
		if m.st.Theme.NoColor {
			l = ansi.Strip(l)
		}
		v.lines[i] = cutPad(l, w)
	}
	// The cursor is the program's; scrolled back, typing is not where
	// the person looks.
	v.cur = uv.Pos(cur.X, cur.Y-int(top-s.hist.total))
	if sc.back || cur.X < 0 || cur.X >= w || v.cur.Y < 0 || v.cur.Y >= h {
		v.cur = uv.Pos(-1, -1)
	}
	p.cache = v
	return v
}

// cutPad cuts a styled line to exactly w cells (no ellipsis: a terminal
// shows what fits) and closes its styles.
func cutPad(s string, w int) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "")
	}
	if s != "" && strings.Contains(s, "\x1b") {
		s += ansi.ResetStyle
	}
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

// renderTermMain is the main area showing the selected thread's terminal
// in a frame without padding, so the child gets every inner cell.
func (m *Model) renderTermMain(r rect, th *core.Thread, p *termPane) []string {
	focused := m.focus == focusMain
	footer := "tab or click to type · " + m.keys.TermZoom.Help().Key + " zoom · " +
		m.keys.TermToggle.Help().Key + " transcript"
	if focused {
		footer = "keys go to the terminal · " + m.keys.TermLeave.Help().Key + " leave"
	}
	sc := p.scroll.at(p.snap.Load(), r.h-2)
	switch {
	case p.snap.Load() == nil:
		footer = "attaching…"
	case sc.back:
		footer = m.scrollNote(sc)
	case p.dropped.Load() > 0:
		footer = "⚠ input dropped: the terminal is not reading it"
	}
	if r.w < 4 || r.h < 3 {
		return nil
	}
	bs, ts := m.st.Border, m.st.Title
	if focused {
		bs, ts = m.st.BorderFocused, m.st.TitleFocused
	}
	body := m.termLines(p, r.w-2, r.h-2, sc).lines
	out := make([]string, 0, r.h)
	out = append(out, edge(bs, ts, "╭", "╮", threadTitle(th)+" · "+th.Provider+" terminal", r.w-2))
	side := bs.Render("│")
	for _, l := range body {
		out = append(out, side+l+side)
	}
	return append(out, edge(bs, ts, "╰", "╯", footer, r.w-2))
}

// renderZoom is the zoomed terminal: the whole screen but the last line.
func (m *Model) renderZoom(r rect) []string {
	if p := m.terms.panes[m.selected]; p != nil {
		return m.termLines(p, r.w, r.h, p.scroll).lines
	}
	return nil
}

// renderZoomLine is the one line the zoom leaves: whose terminal it is,
// how to get out, and whether something waits for the person.
func (m *Model) renderZoomLine(w int) string {
	left := " " + m.selected
	if th := m.selectedThread(); th != nil {
		left = " " + threadTitle(th) + " · " + th.Provider + " terminal"
	}
	if n := len(m.pending); n > 0 {
		left += " · ◆ " + itoa(n) + " waiting"
	}
	right := " " + m.keys.TermLeave.Help().Key + " detach "
	if p := m.terms.panes[m.selected]; p != nil {
		if note := m.scrollNote(p.scroll.at(p.snap.Load(), m.lay.zoom.h)); note != "" {
			right = " " + note + " ·" + right
		}
	}
	left = trunc(left, max(0, w-ansi.StringWidth(right)))
	gap := max(0, w-ansi.StringWidth(left)-ansi.StringWidth(right))
	return m.st.Status.Render(left+strings.Repeat(" ", gap)) + m.st.StatusKey.Render(trunc(right, w-ansi.StringWidth(left)-gap))
}

// termCursor places the terminal's cursor on the screen while the
// terminal has the keys and the child shows its cursor.
func (m *Model) termCursor() *tea.Cursor {
	if !m.termFocused() || len(m.dialogs) > 0 || m.lay.tooSmall {
		return nil
	}
	p := m.terms.panes[m.selected]
	if p == nil || p.cache.hidden || p.cache.cur.X < 0 {
		return nil
	}
	x, y := m.lay.main.x+1, m.lay.main.y+1
	if m.terms.zoom {
		x, y = m.lay.zoom.x, m.lay.zoom.y
	}
	c := tea.NewCursor(x+p.cache.cur.X, y+p.cache.cur.Y)
	c.Blink = false
	return c
}

// termNotice is the line a PTY thread's transcript starts with when its
// terminal is not shown, saying why and what to do; "" for other threads.
func (m *Model) termNotice(th *core.Thread) string {
	if th == nil || !th.Caps.PTY || m.mainShowsTerm() {
		return ""
	}
	if m.terms.backend != nil && m.terms.transcript[th.ID] && m.sessionLive(th.ID) {
		return "transcript · " + m.keys.TermToggle.Help().Key + " shows the terminal"
	}
	return m.noTermReason(th)
}

// noTermReason says why a thread shows no terminal.
func (m *Model) noTermReason(th *core.Thread) string {
	switch {
	case th == nil:
		return "no thread selected"
	case m.terms.backend == nil:
		return "no terminal: this connection to the host does not carry terminals"
	case !th.Caps.PTY:
		return "showing the transcript: " + m.keys.TermToggle.Help().Key + " shows the terminal of " + th.Provider +
			"'s last command"
	case m.terms.transcript[th.ID]:
		return "showing the transcript: " + m.keys.TermToggle.Help().Key + " shows the terminal"
	}
	if f := m.terms.failed[th.ID]; f != nil && m.sessionLive(th.ID) {
		switch {
		case errors.Is(f.err, core.ErrTerminalExited):
			return "no terminal: " + th.Provider + " exited · send a message to start it again"
		case !errors.Is(f.err, core.ErrNoTerminal):
			return "no terminal: " + oneLine(f.err.Error())
		}
	}
	if m.sessionLive(th.ID) && m.terms.panes[th.ID] == nil && !m.termBlocked(th.ID) {
		return "attaching to the terminal…"
	}
	return "no terminal: send a message to start " + th.Provider
}
