package tui

import (
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// The transcript cursor stops on runs and on nodes that have something
// to fold (m.conv.cursor holds the item id). Enter or space opens or
// closes the item under it; the fold state lives in m.folds by item id,
// so it survives re-rendering and switching threads.

// flatItem is a fold item with its line in the whole transcript.
type flatItem struct {
	id         string
	line, rows int
}

// flatItems lists the fold items of rendered blocks in order.
func flatItems(blocks []runDoc) []flatItem {
	var out []flatItem
	pos := 0
	for _, b := range blocks {
		for _, it := range b.items {
			out = append(out, flatItem{id: it.id, line: pos + it.line, rows: it.rows})
		}
		pos += len(b.lines)
	}
	return out
}

// cursorLine is the transcript line of the cursor's item, or -1.
func (m *Model) cursorLine(blocks []runDoc) int {
	if m.conv.cursor == "" {
		return -1
	}
	for _, it := range flatItems(blocks) {
		if it.id == m.conv.cursor {
			return it.line
		}
	}
	return -1
}

// moveCursor moves the transcript cursor delta items and scrolls so that
// it is visible. With no cursor yet it starts on the last item on screen
// (moving up) or the first (moving down).
func (m *Model) moveCursor(delta int) {
	th := m.selectedThread()
	if th == nil {
		return
	}
	w, h := m.mainSize()
	blocks := m.blocks(th, w)
	items := flatItems(blocks)
	if len(items) == 0 {
		m.scroll(delta)
		return
	}
	total := 0
	for _, b := range blocks {
		total += len(b.lines)
	}
	top := m.topLine(total, h)
	i := -1
	for j, it := range items {
		if it.id == m.conv.cursor {
			i = j
		}
	}
	if i < 0 {
		// Start from what is on screen.
		i = 0
		for j, it := range items {
			if it.line < top+h {
				i = j
			}
			if delta > 0 && it.line >= top {
				i = j
				break
			}
		}
	} else {
		i = clamp(i+delta, 0, len(items)-1)
	}
	m.conv.cursor = items[i].id
	m.revealLine(items[i].line, total, h)
}

// revealLine scrolls the least needed to show a line.
func (m *Model) revealLine(line, total, h int) {
	top := m.topLine(total, h)
	switch {
	case line < top:
		top = line
	case line >= top+h:
		top = line - h + 1
	}
	maxTop := max(0, total-h)
	m.conv.top = clamp(top, 0, maxTop)
	m.conv.follow = m.conv.top >= maxTop
}

// toggleFold opens or closes the item under the cursor. A node whose
// output was cut (or a run whose file list was) opens in full first;
// after that enter closes and opens.
func (m *Model) toggleFold() {
	id := m.conv.cursor
	if id == "" {
		return
	}
	run := strings.TrimPrefix(id, "run:")
	cut := false
	if r := m.state.Runs[run]; r != nil && strings.HasPrefix(id, "run:") {
		cut = m.filesCut(r)
	}
	if n := m.state.Node(id); n != nil {
		run = n.Run
		w, _ := m.mainSize()
		cut = len(wrap(n.Text, max(1, w-4))) > maxToolLines || n.Kind == core.NodeLLMCall
	} else if r, ok := msgRun(id); ok {
		run, cut = r, true // a long message starts folded: enter opens it
	}
	switch m.folds[id] {
	case foldClosed:
		m.folds[id] = foldOpen
	case foldDefault:
		if cut {
			m.folds[id] = foldOpen
		} else {
			m.folds[id] = foldClosed
		}
	default:
		m.folds[id] = foldClosed
	}
	m.dropRun(run)
	th := m.selectedThread()
	if th == nil {
		return
	}
	w, h := m.mainSize()
	blocks := m.blocks(th, w)
	total := 0
	for _, b := range blocks {
		total += len(b.lines)
	}
	if l := m.cursorLine(blocks); l >= 0 {
		m.revealLine(l, total, h)
	}
}
