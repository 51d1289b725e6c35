package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// gridSizes are the thread counts the grid view cycles through.
var gridSizes = []int{2, 4, 6, 9}

// gridState is the multi-agent grid: a page of threads side by side, each
// cell with its status, pending requests and the live tail of its
// transcript. Enter zooms into the cursor's thread (the normal view);
// esc from there comes back.
type gridState struct {
	on bool
	// zoomed is the normal view entered from the grid: esc returns.
	zoomed bool
	size   int // one of gridSizes
	cursor int // index into the visible thread rows
	cache  renderCache
}

// gridShown reports whether the screen shows the grid now.
func (m *Model) gridShown() bool { return m.grid.on && !m.grid.zoomed }

// gridFit is the smallest grid size that holds n threads (9 at most).
func gridFit(n int) int {
	for _, s := range gridSizes {
		if n <= s {
			return s
		}
	}
	return gridSizes[len(gridSizes)-1]
}

// nextGridSize is the size after s in the cycle 2, 4, 6, 9, 2, ...
func nextGridSize(s int) int {
	for i, g := range gridSizes {
		if g == s {
			return gridSizes[(i+1)%len(gridSizes)]
		}
	}
	return gridSizes[0]
}

// gridShape arranges n cells in columns and rows for a w x h area. Cells
// are about twice as wide as tall in characters, which looks square.
func gridShape(n, w, h int) (cols, rows int) {
	switch n {
	case 2:
		if w >= 2*h {
			return 2, 1
		}
		return 1, 2
	case 4:
		return 2, 2
	case 6:
		if w >= 2*h {
			return 3, 2
		}
		return 2, 3
	}
	return 3, 3
}

// gridCells splits a rectangle into cols x rows cells, row by row; the
// last column and row take the remainder so nothing is left over.
func gridCells(r rect, cols, rows int) []rect {
	cells := make([]rect, 0, cols*rows)
	cw, ch := r.w/cols, r.h/rows
	for j := range rows {
		for i := range cols {
			c := rect{r.x + i*cw, r.y + j*ch, cw, ch}
			if i == cols-1 {
				c.w = r.w - i*cw
			}
			if j == rows-1 {
				c.h = r.h - j*ch
			}
			cells = append(cells, c)
		}
	}
	return cells
}

// toggleGrid opens the grid (sized to fit the threads), cycles its size
// while it is shown, and comes back to it from a zoomed thread.
func (m *Model) toggleGrid() {
	switch {
	case !m.grid.on:
		m.grid.on = true
		m.grid.size = gridFit(len(m.visibleRows()))
		m.grid.cursor = max(0, indexOf(m.visibleRows(), m.selected))
	case m.grid.zoomed:
		m.grid.zoomed = false
		m.grid.cursor = max(0, indexOf(m.visibleRows(), m.selected))
	default:
		m.grid.size = nextGridSize(m.grid.size)
	}
	m.relayout()
}

// closeGrid goes back to the normal view on the cursor's thread.
func (m *Model) closeGrid() {
	m.grid.on, m.grid.zoomed = false, false
	m.grid.cache.clear()
	m.relayout()
}

// gridPage is the first row index shown: pages of grid.size threads.
func (m *Model) gridPage() int {
	if m.grid.size <= 0 {
		return 0
	}
	return m.grid.cursor / m.grid.size * m.grid.size
}

// gridKey handles the keys of the grid view. It reports false for keys
// it leaves to the global handler.
func (m *Model) gridKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	rows := m.visibleRows()
	cols, _ := gridShape(m.grid.size, m.lay.grid.w, m.lay.grid.h)
	move := func(d int) {
		if len(rows) == 0 {
			return
		}
		m.grid.cursor = clamp(m.grid.cursor+d, 0, len(rows)-1)
		m.selectThread(rows[m.grid.cursor].th.ID)
	}
	switch {
	case key.Matches(k, m.keys.Grid):
		m.toggleGrid()
	case key.Matches(k, m.keys.GridLeft):
		move(-1)
	case key.Matches(k, m.keys.GridRight):
		move(1)
	case key.Matches(k, m.keys.Up):
		move(-cols)
	case key.Matches(k, m.keys.Down):
		move(cols)
	case key.Matches(k, m.keys.GridZoom):
		if len(rows) > 0 {
			m.selectThread(rows[clamp(m.grid.cursor, 0, len(rows)-1)].th.ID)
			m.grid.zoomed = true
			m.setFocus(focusComposer)
			m.relayout()
		}
	case key.Matches(k, m.keys.GridBack):
		m.closeGrid()
	case key.Matches(k, m.keys.HelpIdle):
		m.pushDialog(&helpDialog{keys: m.keys})
	default:
		return nil, false
	}
	return nil, true
}

// gridClick moves the cursor to the clicked cell; a click on the cursor's
// cell zooms into it.
func (m *Model) gridClick(x, y int) {
	rows := m.visibleRows()
	for i, c := range m.lay.cells {
		j := m.gridPage() + i
		if !c.contains(x, y) || j >= len(rows) {
			continue
		}
		if j == m.grid.cursor {
			m.grid.zoomed = true
			m.setFocus(focusComposer)
		}
		m.grid.cursor = j
		m.selectThread(rows[j].th.ID)
		m.relayout()
		return
	}
}

// markGridSeen marks the threads on the grid's page as read: their
// tails are on screen.
func (m *Model) markGridSeen() {
	rows := m.visibleRows()
	for i := m.gridPage(); i < len(rows) && i < m.gridPage()+m.grid.size; i++ {
		id := rows[i].th.ID
		m.seen[id] = m.activity[id]
	}
	m.threadsGen++
}

// renderGrid draws the cells of the current page.
func (m *Model) renderGrid(put func(rect, []string)) {
	rows := m.visibleRows()
	page := m.gridPage()
	for i, c := range m.lay.cells {
		j := page + i
		if j >= len(rows) {
			break
		}
		put(c, m.renderGridCell(c, rows[j], j == m.grid.cursor))
	}
}

// renderGridCell is one thread in the grid: its status line, its pending
// requests, then as much of the end of its transcript as fits.
func (m *Model) renderGridCell(r rect, row threadRow, focused bool) []string {
	w, h := max(1, r.w-padW), max(0, r.h-2)
	label, bst := m.badge(row)
	head := bst.Render(label) + m.st.Muted.Render(m.rowMeta(row))
	body := []string{trunc(head, w)}
	var reqs []*core.Request
	for _, q := range m.pending {
		if q.Thread == row.th.ID {
			reqs = append(reqs, q)
		}
	}
	for i, q := range reqs {
		if i == 2 && len(reqs) > 3 {
			body = append(body, m.st.Request.Render(trunc("◆ +"+itoa(len(reqs)-2)+" more waiting", w)))
			break
		}
		kind := "approval"
		if q.Kind == core.RequestUserInput {
			kind = "question"
		}
		body = append(body, m.st.Request.Render(trunc("◆ "+q.ID+" "+kind+": "+oneLine(q.Prompt), w)))
	}
	if room := h - len(body); room > 0 {
		if p := m.terms.panes[row.th.ID]; p != nil && p.snap.Load() != nil {
			body = append(body, m.termLines(p, w, room, termScroll{}).lines...)
		} else {
			body = append(body, m.tail(row.th, w, room)...)
		}
	}
	return m.box(threadTitle(row.th), "", focused, r.w, r.h, body)
}

// tail is the last n lines of a thread's transcript at width w, rendered
// from its newest runs only.
func (m *Model) tail(th *core.Thread, w, n int) []string {
	runs := m.state.RunsOf(th.ID)
	if len(runs) == 0 {
		return []string{m.st.Muted.Render(trunc("no runs yet", w))}
	}
	var out []string
	for i := len(runs) - 1; i >= 0 && len(out) < n; i-- {
		lines := m.runLines(&m.grid.cache, runs[i], w)
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		out = append(append([]string(nil), lines...), out...)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
