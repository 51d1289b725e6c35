package tui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A terminal pane keeps a scrollback: the lines that scrolled off the top
// of its main screen, as rendered text, at most Options.Scrollback of
// them. The reader moves them out of the emulator after every write
// (keepHistory) into the pane's history and publishes a read-only view of
// it with each snapshot; View draws from that view and never touches the
// emulator. A Reset (attach, resize) starts a new history, which the
// replay of the output ring fills again; the program erasing its
// scrollback (ED 3, as `clear` does) empties it.
//
// The person scrolls with shift+pgup and shift+pgdown, the wheel, and,
// once scrolled back, shift+home and shift+end (termScroll). Scrolled
// back, the view stays on the same lines while output arrives, as tmux's
// copy mode does; any key or paste sent to the program takes it back to
// the bottom.

// histBlockLines is how many lines one block of a history holds.
const histBlockLines = 256

// histBlock is a fixed run of history lines. A slot is written once and
// never again: the reader appends past what any view can read, and drops
// whole blocks from the front.
type histBlock [histBlockLines]string

// termSpill bounds the emulator's own scrollback, which only carries the
// lines of one write to keepHistory. x/vt keeps cells (about 112 bytes
// each) and drops its oldest line by copying all the others, so the pane
// keeps text itself. One write of termWriteSize bytes scrolls off at most
// that many lines with line feeds; past twice that its oldest are lost.
const termSpill = 2 * termWriteSize

// histView is a read-only view of a pane's history: n lines, oldest
// first, starting at slot first of blocks[0]. Lines are numbered from
// the start of the history (its epoch): the view holds lines total-n to
// total-1, and the screen's first row is line total.
type histView struct {
	blocks []*histBlock
	first  int
	n      int
	total  int64
	epoch  uint64 // counts the Resets: a new epoch numbers lines afresh
}

// line is the i-th line the view holds, 0 the oldest.
func (v *histView) line(i int) string {
	j := v.first + i
	return v.blocks[j/histBlockLines][j%histBlockLines]
}

// history is the reader's side: the lines and the cap.
type history struct {
	max int // lines kept; 0 or less keeps none
	histView
}

// push appends a rendered line, dropping the oldest past max.
func (h *history) push(line string) {
	j := h.first + h.n
	if j == len(h.blocks)*histBlockLines {
		h.blocks = append(h.blocks, new(histBlock))
	}
	h.blocks[j/histBlockLines][j%histBlockLines] = line
	h.n++
	h.total++
	if h.n > h.max {
		h.drop(h.n - h.max)
	}
}

// drop forgets the k oldest lines; line numbers do not change.
func (h *history) drop(k int) {
	h.first += k
	h.n -= k
	for h.first >= histBlockLines {
		h.blocks[0] = nil // views hold their own copy of the slice
		h.blocks = h.blocks[1:]
		h.first -= histBlockLines
	}
}

// reset starts a new, empty history (a Reset replays the ring into it).
func (h *history) reset() {
	*h = history{max: h.max, histView: histView{epoch: h.epoch + 1}}
}

// view is a copy that stays valid while the reader goes on.
func (h *history) view() *histView {
	v := h.histView
	v.blocks = slices.Clone(h.blocks)
	return &v
}

// keepHistory moves the lines the last write scrolled off the emulator's
// main screen into the pane's history and publishes a view of it for the
// next snapshot. Only the reader calls it, after each write, with keyMu
// held: the reader is the only one that writes output into the emulator,
// so the only one that changes its scrollback (keys, pastes and resizes
// never do), and reading it outside the emulator's lock is safe.
func (p *termPane) keepHistory() {
	sb := p.emu.Scrollback()
	lines := sb.Lines()
	if len(lines) == 0 && !p.histErased {
		return
	}
	if p.histErased {
		p.hist.drop(p.hist.n)
		p.histErased = false
	}
	if p.hist.max > 0 {
		for _, l := range lines {
			p.hist.push(l.Render())
		}
	}
	sb.Clear()
	p.hview.Store(p.hist.view())
}

// onErase notes an erase of the scrollback (ED 3, CSI 3 J) for
// keepHistory, and leaves the erase itself to the emulator. It runs
// inside the reader's writes.
func (p *termPane) onErase(params ansi.Params) bool {
	if n, _, _ := params.Param(0, 0); n == 3 {
		p.histErased = true
	}
	return false
}

// termScroll is where a pane's view is. The zero value is the bottom:
// the pane follows the program. Scrolled back, top is the line number of
// the first line shown, in the history of epoch; toCur is how many lines
// lie from there to the cursor's, which a rebuilt history (a new epoch)
// keeps (the cursor is where the output ends, so this holds whatever
// height the screen was replayed at); up is how far above the bottom the
// view is, for the footer.
type termScroll struct {
	back  bool
	epoch uint64
	top   int64
	toCur int64
	up    int
}

// scrollSpan is what a snapshot drawn h rows high can show: the oldest
// line it holds and the first line of the bottom view (the screen's rows
// that end at the cursor, as termLines draws them).
func scrollSpan(s *termSnap, h int) (oldest, bottom int64) {
	total := s.hist.total
	return total - int64(s.hist.n), total + int64(max(0, s.cur.Y-h+1))
}

// at resolves the scroll against a snapshot drawn h rows high: a rebuilt
// history keeps the distance to the cursor's line, lines dropped from
// the history move the view to the oldest kept, and reaching the bottom
// (or the program taking the alternate screen, which has no scrollback)
// follows the program again.
func (sc termScroll) at(s *termSnap, h int) termScroll {
	if !sc.back || s == nil || s.alt {
		return termScroll{}
	}
	oldest, bottom := scrollSpan(s, h)
	cur := s.hist.total + int64(s.cur.Y)
	if sc.epoch != s.hist.epoch {
		sc.top, sc.epoch = cur-sc.toCur, s.hist.epoch
	}
	sc.top = max(sc.top, oldest)
	if sc.top >= bottom {
		return termScroll{}
	}
	sc.toCur, sc.up = cur-sc.top, int(bottom-sc.top)
	return sc
}

// by scrolls n lines, back when n < 0.
func (sc termScroll) by(s *termSnap, h, n int) termScroll {
	if s == nil || s.alt {
		return termScroll{}
	}
	sc = sc.at(s, h)
	oldest, bottom := scrollSpan(s, h)
	if !sc.back {
		sc = termScroll{back: true, epoch: s.hist.epoch, top: bottom}
	}
	sc.top = max(oldest, sc.top+int64(n))
	return sc.at(s, h)
}

// oldest scrolls to the oldest line kept.
func (sc termScroll) oldest(s *termSnap, h int) termScroll {
	if s == nil || s.alt {
		return termScroll{}
	}
	oldest, _ := scrollSpan(s, h)
	return termScroll{back: true, epoch: s.hist.epoch, top: oldest}.at(s, h)
}

// lineAt is line number i of a snapshot: from the history, else a row of
// the screen ("" past either).
func (s *termSnap) lineAt(i int64) string {
	if i < s.hist.total {
		if j := int(i - (s.hist.total - int64(s.hist.n))); j >= 0 {
			return s.hist.line(j)
		}
		return ""
	}
	if r := i - s.hist.total; r < int64(len(s.lines)) {
		return s.lines[r]
	}
	return ""
}

// termViewHeight is how many rows the selected thread's terminal is
// drawn in: the zoom's, else the inside of the main area's frame.
func (m *Model) termViewHeight() int {
	if m.terms.zoom {
		return m.lay.zoom.h
	}
	return m.lay.main.h - 2
}

// scrollPane is the pane the scroll keys and the wheel move: the
// selected thread's, while the zoom or the main area shows it.
func (m *Model) scrollPane() *termPane {
	if !m.terms.zoom && !m.mainShowsTerm() {
		return nil
	}
	return m.terms.panes[m.selected]
}

// termScrollKey handles the scroll keys of the terminal on screen,
// focused or not: shift+pgup and shift+pgdown always (they never reach
// the program), shift+home and shift+end only while scrolled back (else
// they are the program's). ok is false for any other key.
func (m *Model) termScrollKey(k tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	p := m.scrollPane()
	if p == nil {
		return nil, false
	}
	s, h := p.snap.Load(), m.termViewHeight()
	page := max(1, h-1)
	switch {
	case key.Matches(k, m.keys.TermScrollUp):
		return m.scrollTerm(p, -page), true
	case key.Matches(k, m.keys.TermScrollDown):
		return m.scrollTerm(p, page), true
	case key.Matches(k, m.keys.TermScrollTop) && p.scroll.at(s, h).back:
		p.scroll = p.scroll.oldest(s, h)
	case key.Matches(k, m.keys.TermScrollBottom) && p.scroll.at(s, h).back:
		p.scroll = termScroll{}
	default:
		return nil, false
	}
	return nil, true
}

// scrollTerm scrolls a pane n lines, back when n < 0, and says why when
// there can be nothing to go back to.
func (m *Model) scrollTerm(p *termPane, n int) tea.Cmd {
	s := p.snap.Load()
	switch {
	case s == nil:
		return nil
	case n < 0 && s.alt:
		return m.setFlash("no scrollback: the program in the terminal uses the whole screen", false)
	case n < 0 && m.terms.scrollback <= 0:
		return m.setFlash("no scrollback: the config file sets [ui] scrollback = 0", false)
	}
	p.scroll = p.scroll.by(s, m.termViewHeight(), n)
	return nil
}

// wheelTerm scrolls the terminal on screen by a wheel notch (delta -1
// back, 1 forward). It says nothing when there is nothing to scroll: a
// wheel turns in bursts.
func (m *Model) wheelTerm(delta int) {
	if p := m.scrollPane(); p != nil {
		if s := p.snap.Load(); s != nil {
			p.scroll = p.scroll.by(s, m.termViewHeight(), delta*wheelLines)
		}
	}
}

// termFollow returns a pane to the bottom: something was sent to its
// program, which the person wants to see answer.
func (p *termPane) follow() { p.scroll = termScroll{} }

// scrollNote says how far back a pane is scrolled and how to come back;
// "" at the bottom.
func (m *Model) scrollNote(sc termScroll) string {
	if !sc.back {
		return ""
	}
	lines := " lines up"
	if sc.up == 1 {
		lines = " line up"
	}
	return "scrolled: " + itoa(sc.up) + lines + " · " + m.keys.TermScrollDown.Help().Key + " · " +
		m.keys.TermScrollBottom.Help().Key + " bottom"
}
