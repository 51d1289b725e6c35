package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// The transcript's search box (alt+/ or ctrl+/) takes the status line.
// What is typed searches at once, case-insensitively, from where the
// transcript was when the box opened; enter, down and ctrl+n go to the
// next match, up and ctrl+p to the previous one, both wrapping round;
// esc closes the box and leaves the transcript where the match is.
//
// A search matches what the transcript shows of the selected thread's
// runs: messages, replies, steps' titles and output, requests. Text that
// a fold hides (a closed run or step, a long message, tool output past
// its first lines) is unfolded first, when it holds the query, so every
// match can be shown. The current match is highlighted and scrolled into
// view, and the transcript cursor goes to the item that holds it (so the
// copy key copies it). A query that the pane's width wraps across two
// lines is not found.

// searchBox is the search box and its current match.
type searchBox struct {
	open  bool
	input textinput.Model
	ready bool // input is built
	// thread is the thread searched; origin the transcript line the
	// view started at when the box opened (typing searches from there).
	thread string
	origin int
	// The current match: query, transcript line and cells [c0, c1);
	// n of total (1-based); total 0 when there is none.
	query        string
	line, c0, c1 int
	n, total     int
	wrapped      bool // the last step went round the end
}

// hit is one match: a transcript line and the cells it covers.
type hit struct{ line, c0, c1 int }

// openSearch opens the box over the status line, with the last query.
func (m *Model) openSearch() tea.Cmd {
	th := m.selectedThread()
	switch {
	case th == nil:
		return m.setFlash("no thread to search: select one first", true)
	case m.gridShown():
		return m.setFlash("search reads one thread's transcript: "+m.keys.GridZoom.Help().Key+" zooms into it", true)
	case m.mainShowsTerm():
		return m.setFlash("search reads the transcript: "+m.keys.TermToggle.Help().Key+" shows it", true)
	}
	s := &m.search
	if !s.ready {
		s.input, s.ready = newInput(m.st, "search the transcript"), true
	}
	w, h := m.mainSize()
	total := 0
	for _, b := range m.blocks(th, w) {
		total += len(b.lines)
	}
	s.open, s.thread, s.origin, s.total, s.wrapped = true, th.ID, m.topLine(total, h), 0, false
	s.input.SetValue(s.query)
	s.input.CursorEnd()
	m.composer.blur()
	return s.input.Focus()
}

// closeSearch closes the box; the transcript stays where it is.
func (m *Model) closeSearch() {
	m.search.open, m.search.total = false, 0
	m.search.input.Blur()
	m.setFocus(m.focus)
}

// searchKey handles keys while the box is open: it owns every key but
// quit, help and the page keys.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Quit, m.keys.CancelDialog):
		m.closeSearch()
	case key.Matches(k, m.keys.Help):
		m.pushDialog(&helpDialog{keys: m.keys})
	case key.Matches(k, m.keys.SearchNext):
		m.findStep(1)
	case key.Matches(k, m.keys.SearchPrev):
		m.findStep(-1)
	case key.Matches(k, m.keys.PageUp, m.keys.PageDown):
		_, h := m.mainSize()
		if key.Matches(k, m.keys.PageUp) {
			h = -h
		}
		m.scroll(h)
	default:
		before := m.search.input.Value()
		var cmd tea.Cmd
		m.search.input, cmd = m.search.input.Update(k)
		if m.search.input.Value() != before {
			m.findFirst()
		}
		return cmd
	}
	return nil
}

// searchPaste types a paste into the box (on one line).
func (m *Model) searchPaste(p tea.PasteMsg) tea.Cmd {
	p.Content = strings.Join(strings.Fields(p.Content), " ")
	var cmd tea.Cmd
	m.search.input, cmd = m.search.input.Update(p)
	m.findFirst()
	return cmd
}

// findFirst searches for what the box holds from the line the view
// started at, wrapping round to the top.
func (m *Model) findFirst() {
	th := m.selectedThread()
	q := m.search.input.Value()
	if th == nil || q == "" {
		m.search.query, m.search.total = q, 0
		return
	}
	hits := m.searchHits(th, q)
	i := 0
	for j, h := range hits {
		if h.line >= m.search.origin {
			i = j
			break
		}
	}
	m.goToHit(th, q, hits, i, false)
}

// findStep moves to the next (dir 1) or previous (dir -1) match of what
// the box holds, wrapping round.
func (m *Model) findStep(dir int) {
	th := m.selectedThread()
	s := &m.search
	q := s.input.Value()
	if th == nil || q == "" {
		return
	}
	hits := m.searchHits(th, q)
	if len(hits) == 0 {
		m.goToHit(th, q, hits, 0, false)
		return
	}
	if s.total == 0 || !strings.EqualFold(s.query, q) {
		m.findFirst()
		return
	}
	// The match after (or before) the current one, by position: the
	// transcript may have changed since.
	cur := hit{s.line, s.c0, s.c1}
	i := -1
	if dir > 0 {
		for j, h := range hits {
			if h.line > cur.line || (h.line == cur.line && h.c0 > cur.c0) {
				i = j
				break
			}
		}
	} else {
		for j := len(hits) - 1; j >= 0; j-- {
			if h := hits[j]; h.line < cur.line || (h.line == cur.line && h.c0 < cur.c0) {
				i = j
				break
			}
		}
	}
	wrapped := i < 0
	if wrapped && dir > 0 {
		i = 0
	} else if wrapped {
		i = len(hits) - 1
	}
	m.goToHit(th, q, hits, i, wrapped)
}

// goToHit makes hits[i] the current match, scrolls it into view (a
// third down the pane when it was off screen) and puts the transcript
// cursor on the item that holds it.
func (m *Model) goToHit(th *core.Thread, q string, hits []hit, i int, wrapped bool) {
	s := &m.search
	s.query, s.total, s.wrapped = q, len(hits), wrapped
	if len(hits) == 0 {
		s.n = 0
		return
	}
	h := hits[i]
	s.line, s.c0, s.c1, s.n = h.line, h.c0, h.c1, i+1
	w, ph := m.mainSize()
	blocks := m.blocks(th, w)
	total := 0
	for _, b := range blocks {
		total += len(b.lines)
	}
	if top := m.topLine(total, ph); h.line < top || h.line >= top+ph {
		maxTop := max(0, total-ph)
		m.conv.top = clamp(h.line-ph/3, 0, maxTop)
		m.conv.follow = m.conv.top >= maxTop
	}
	m.conv.cursor = hitItem(m.state.RunsOf(th.ID), blocks, h.line)
}

// renderSearchBar is the status line while the box is open: the query,
// which match of how many, and the keys.
func (m *Model) renderSearchBar(w int) string {
	s := &m.search
	info := "type to search the transcript"
	switch {
	case s.input.Value() == "":
	case s.total == 0:
		info = "no match"
	default:
		info = "match " + itoa(s.n) + " of " + itoa(s.total)
		if s.wrapped {
			info += " (wrapped)"
		}
	}
	keys := m.keys.SearchNext.Help().Key + " next · " + m.keys.SearchPrev.Help().Key + " previous · " +
		m.keys.CancelDialog.Help().Key + " close"
	right := m.st.Status.Render(" · " + info + " · " + keys + " ")
	left := m.st.Status.Render(" find: ") + s.input.View()
	gap := max(1, w-ansi.StringWidth(left)-ansi.StringWidth(right))
	return fit(left+m.st.Status.Render(strings.Repeat(" ", gap))+right, w)
}
