package tui

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// rect is a screen rectangle in cells.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout is where each pane goes. It is computed on resize and whenever a
// pane's wanted height changes (banner shown, composer grows), never in
// View.
type layout struct {
	banner, threads, todos, main, composer, status rect
	// request is the waiting request above the composer (request_box.go);
	// zero when none shows.
	request rect
	// zoom is the zoomed terminal: all but the status line.
	zoom rect
	// diff is the diff view, over the panes (laid out as usual under
	// it) but the banner and the status line; zero when closed.
	diff rect
	// grid and its cells, only while the grid view is shown.
	grid     rect
	cells    []rect
	tooSmall bool
}

// Minimum usable size; below it the screen says so instead of overlapping.
const (
	minWidth  = 40
	minHeight = 12
)

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.invalidateAll()
	m.relayout()
}

// relayout computes the rectangles for the current size and content.
//
//	banner (1 row, only while something waits or the host is lost)
//	threads | main
//	todos   |
//	composer (full width, grows with its text up to 6 lines)
//	status line
//
// The diff view, when open, covers all but the banner and the status
// line (layoutDiff).
func (m *Model) relayout() {
	m.layoutPanes()
	m.layoutDiff()
}

func (m *Model) layoutPanes() {
	w, h := m.width, m.height
	l := layout{tooSmall: w < minWidth || h < minHeight}
	if l.tooSmall {
		m.lay = l
		return
	}
	if m.terms.zoom {
		l.zoom, l.status = rect{0, 0, w, h - 1}, rect{0, h - 1, w, 1}
		m.lay = l
		return
	}
	y := 0
	if m.bannerText() != "" {
		l.banner = rect{0, 0, w, 1}
		y = 1
	}
	l.status = rect{0, h - 1, w, 1}
	if m.gridShown() {
		l.grid = rect{0, y, w, h - 1 - y}
		cols, rows := gridShape(m.grid.size, l.grid.w, l.grid.h)
		l.cells = gridCells(l.grid, cols, rows)
		m.lay = l
		return
	}
	maxInput := max(1, min(6, h/4))
	inputLines := clamp(m.composer.lines(w-padW-1, maxInput), 1, maxInput)
	l.composer = rect{0, h - 1 - (inputLines + 2), w, inputLines + 2}
	if rh := m.requestBoxHeight(w, l.composer.y-y); rh > 0 {
		l.request = rect{0, l.composer.y - rh, w, rh}
	}
	bodyH := l.composer.y - y - l.request.h
	leftW := clamp(w*3/10, 22, 40)
	if p := m.prefs.LeftPercent; p > 0 {
		leftW = clamp(w*p/100, 22, max(22, w-30))
	}
	todoH := clamp(m.todoCount()+2, 3, max(3, bodyH/3))
	if p := m.prefs.TodoPercent; p > 0 {
		todoH = clamp(bodyH*p/100, 3, max(3, bodyH-5))
	}
	l.threads = rect{0, y, leftW, bodyH - todoH}
	l.todos = rect{0, y + bodyH - todoH, leftW, todoH}
	l.main = rect{leftW, y, w - leftW, bodyH}
	m.lay = l
	// The input is always as tall as it may grow and the pane shows its
	// first inputLines lines: growing a textarea after a newline keeps it
	// scrolled one line down, hiding the first line.
	m.composer.setSize(w-padW, maxInput)
	m.threads.width = leftW - 2
	m.threads.filter.SetWidth(max(1, leftW-padW-3))
}

// View implements tea.Model. It only formats what Update prepared.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = m.windowTitleNow()
	v.ReportFocus = m.focusReporting()
	v.Cursor = m.termCursor()
	return v
}

// render draws the whole screen: exactly height lines of exactly width
// cells each.
func (m *Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.lay.tooSmall {
		lines := make([]string, h)
		msg := wrap("nexus needs at least 40x12 cells; this terminal is "+itoa(w)+"x"+itoa(h)+". Enlarge it, or ctrl+c to quit.", w)
		for i := range lines {
			s := ""
			if i < len(msg) {
				s = msg[i]
			}
			lines[i] = fit(s, w)
		}
		return strings.Join(lines, "\n")
	}
	// Panes tile the screen without overlapping, so each row is its
	// panes' lines side by side, left to right. Boxes are exactly their
	// width already; other lines are fitted.
	rows := make([][]segment, h)
	put := func(r rect, lines []string) {
		for i := 0; i < r.h && i < len(lines); i++ {
			if row := r.y + i; row >= 0 && row < h {
				rows[row] = append(rows[row], segment{x: r.x, w: r.w, s: lines[i]})
			}
		}
	}
	if m.lay.banner.h > 0 {
		put(m.lay.banner, []string{m.renderBanner(w)})
	}
	if m.lay.diff.h > 0 {
		put(m.lay.diff, m.renderDiff(m.lay.diff))
		put(m.lay.status, []string{m.renderStatus(w)})
		return m.overlayDialog(joinRows(rows, w))
	}
	if m.terms.zoom {
		put(m.lay.zoom, m.renderZoom(m.lay.zoom))
		put(m.lay.status, []string{m.renderZoomLine(w)})
		return m.overlayDialog(joinRows(rows, w))
	}
	if m.gridShown() {
		m.renderGrid(put)
	} else {
		put(m.lay.threads, m.renderThreads(m.lay.threads))
		put(m.lay.todos, m.renderTodos(m.lay.todos))
		put(m.lay.main, m.renderMain(m.lay.main))
		put(m.lay.composer, m.renderComposer(m.lay.composer))
		put(m.lay.request, m.renderRequestBox(m.lay.request))
	}
	put(m.lay.status, []string{m.renderStatus(w)})
	return m.overlayDialog(joinRows(rows, w))
}

// joinRows lays out every row of the screen.
func joinRows(rows [][]segment, w int) []string {
	screen := make([]string, len(rows))
	for i, segs := range rows {
		screen[i] = joinRow(segs, w)
	}
	return screen
}

// segment is one pane's line on a screen row: exactly w cells from x.
type segment struct {
	x, w int
	s    string
}

// joinRow lays a row's segments side by side, spaces between and after
// them, into exactly w cells. Segments are trusted to be exactly their
// width (box and fit make them so, and the tests check every screen's
// widths): measuring them again was a third of a frame's cost.
func joinRow(segs []segment, w int) string {
	sort.Slice(segs, func(i, j int) bool { return segs[i].x < segs[j].x })
	var b strings.Builder
	pos := 0
	for _, sg := range segs {
		if sg.x < pos || sg.x+sg.w > w {
			continue // overlaps what is drawn: never happens with a valid layout
		}
		b.WriteString(strings.Repeat(" ", sg.x-pos))
		b.WriteString(sg.s)
		pos = sg.x + sg.w
	}
	b.WriteString(strings.Repeat(" ", w-pos))
	return b.String()
}

// dialogMaxW is how wide a dialog grows at most, unless it says
// otherwise (a maxWidth method: a list of long lines).
const dialogMaxW = 76

// overlayDialog draws the top dialog, centred, over the screen lines and
// joins them.
func (m *Model) overlayDialog(screen []string) string {
	w, h := m.width, m.height
	if len(m.dialogs) > 0 {
		d := m.dialogs[len(m.dialogs)-1]
		capW := dialogMaxW
		if wd, ok := d.(interface{ maxWidth() int }); ok {
			capW = wd.maxWidth()
		}
		box := d.view(&m.st, min(w-4, capW), h-2)
		if len(box) > 0 {
			bw := ansi.StringWidth(box[0])
			overlay(screen, box, max(0, (w-bw)/2), max(0, (h-len(box))/2), w)
		}
	}
	return strings.Join(screen, "\n")
}

// padW is what a box takes from its width: a border and a space of
// padding on each side.
const padW = 4

// box frames body lines in a rounded border with a title in the top edge
// and an optional label in the bottom edge. The result is h lines of
// exactly w cells.
func (m *Model) box(title, footer string, focused bool, w, h int, body []string) []string {
	if w < 2 || h < 2 {
		return nil
	}
	return m.boxParts(boxKey{title: title, footer: footer, focused: focused, w: w}).lines(w, h, body)
}

// frame draws a bordered box with the given border and title styles.
func frame(bs, ts lipgloss.Style, title, footer string, w, h int, body []string) []string {
	p := newBoxParts(bs, ts, title, footer, w)
	return p.lines(w, h, body)
}

// edge is a horizontal border with an embedded label.
func edge(bs, ts lipgloss.Style, l, r, label string, inner int) string {
	if label == "" || inner < 6 {
		return bs.Render(l + strings.Repeat("─", max(0, inner)) + r)
	}
	label = " " + trunc(oneLine(label), inner-4) + " "
	rest := inner - 1 - ansi.StringWidth(label)
	return bs.Render(l+"─") + ts.Render(label) + bs.Render(strings.Repeat("─", max(0, rest))+r)
}
