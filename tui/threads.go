package tui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// threadsPane is the list of threads: three rows per thread (title and
// age; status badge, elapsed time and activity; where it works, provider,
// runs, tokens and cost), a filter, and a scroll offset that keeps the
// selection visible.
type threadsPane struct {
	filter    textinput.Model
	filtering bool // the filter input has the keys
	top       int  // first visible thread
	width     int
}

// rowHeight is the number of screen rows per thread.
const rowHeight = 3

func newThreadsPane(st themes.Styles) threadsPane {
	return threadsPane{filter: newInput(st, "filter")}
}

func itoa(n int) string { return strconv.Itoa(n) }

// visibleRows are the rows that pass the filter (title, provider or id,
// case-insensitive).
func (m *Model) visibleRows() []threadRow {
	q := strings.ToLower(strings.TrimSpace(m.threads.filter.Value()))
	if q == "" {
		return m.rows
	}
	var out []threadRow
	for _, r := range m.rows {
		hay := strings.ToLower(r.th.Title + " " + r.th.Provider + " " + r.th.ID)
		if strings.Contains(hay, q) {
			out = append(out, r)
		}
	}
	return out
}

// moveSelection selects the thread delta rows away in the visible list.
func (m *Model) moveSelection(delta int) {
	rows := m.visibleRows()
	if len(rows) == 0 {
		return
	}
	i := indexOf(rows, m.selected)
	if i < 0 {
		i = 0
	} else {
		i = clamp(i+delta, 0, len(rows)-1)
	}
	m.selectThread(rows[i].th.ID)
}

func indexOf(rows []threadRow, id string) int {
	for i, r := range rows {
		if r.th.ID == id {
			return i
		}
	}
	return -1
}

// badge is the status label of a thread and its style: what most needs
// the person first.
func (m *Model) badge(r threadRow) (string, lipgloss.Style) {
	th := r.th
	switch {
	case r.approvals > 0:
		return "◆ waiting for you", m.st.BadgeWaiting
	case r.questions > 0:
		return "✎ needs input", m.st.BadgeWaiting
	case m.inputGuessed(th):
		return "◇ needs input?", m.st.BadgeWaiting
	case th.Status == core.ThreadWaiting:
		return "◆ waiting for you", m.st.BadgeWaiting
	case th.Status == core.ThreadRunning:
		return "● running", m.st.BadgeRunning
	case r.recoverable:
		return "⏸ interrupted", m.st.BadgeFailed
	case th.Status == core.ThreadFailed:
		return "✗ failed", m.st.BadgeFailed
	case th.Caps.PTY && m.sessionLive(th.ID):
		// Its program waits in its terminal (a shell at its prompt).
		return "▣ live", m.st.BadgeRunning
	case th.Runs > 0:
		return "✓ done", m.st.BadgeDone
	}
	return "○ new", m.st.BadgeIdle
}

// age is how long ago a unix-nano time was, in one short unit: now, 5m,
// 3h, 2d, 7w.
func age(now time.Time, at int64) string {
	if at <= 0 {
		return ""
	}
	d := now.Sub(time.Unix(0, at))
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return itoa(int(d/time.Hour)) + "h"
	case d < 14*24*time.Hour:
		return itoa(int(d/(24*time.Hour))) + "d"
	}
	return itoa(int(d/(7*24*time.Hour))) + "w"
}

// threadTitle is a thread's title, or its id when it has none.
func threadTitle(th *core.Thread) string {
	if t := oneLine(th.Title); t != "" {
		return t
	}
	return th.ID
}

// threadsKey is everything the threads pane's drawing depends on; the
// pane is redrawn only when it changes (typing in the composer does not
// redraw fifty thread rows).
type threadsKey struct {
	gen       int // bumped when rows, selection or read marks change
	selected  string
	focused   bool
	filter    string
	filtering bool
	r         rect
	top       int
	minute    int64
	second    int64 // while a run is active: its elapsed time ticks
	order     string
}

func (m *Model) renderThreads(r rect) []string {
	k := threadsKey{gen: m.threadsGen, selected: m.selected, focused: m.focus == focusThreads,
		filter: m.threads.filter.View(), filtering: m.threads.filtering, r: r, top: m.threads.top,
		minute: m.now().Unix() / 60, order: m.prefs.ThreadOrder}
	if m.active > 0 {
		k.second = m.now().Unix()
	}
	if m.threadsCache.lines != nil && m.threadsCache.key == k {
		return m.threadsCache.lines
	}
	lines := m.drawThreads(r)
	m.threadsCache.key, m.threadsCache.lines = k, lines
	return lines
}

func (m *Model) drawThreads(r rect) []string {
	rows := m.visibleRows()
	inner := r.w - padW
	bodyH := r.h - 2
	var body []string
	if m.threads.filtering || m.threads.filter.Value() != "" {
		body = append(body, m.st.Muted.Render("/ ")+m.threads.filter.View())
		bodyH--
	}
	if len(m.rows) == 0 {
		body = append(body, wrapStyled("No threads yet: type a message and press enter, or ctrl+n.", inner, m.st.Muted)...)
	} else if len(rows) == 0 {
		body = append(body, m.st.Muted.Render("no thread matches"))
	}
	fitRows := max(1, bodyH/rowHeight)
	sel := indexOf(rows, m.selected)
	if sel >= 0 {
		if sel < m.threads.top {
			m.threads.top = sel
		}
		if sel >= m.threads.top+fitRows {
			m.threads.top = sel - fitRows + 1
		}
	}
	m.threads.top = clamp(m.threads.top, 0, max(0, len(rows)-fitRows))
	for i := m.threads.top; i < len(rows) && i < m.threads.top+fitRows; i++ {
		body = append(body, m.threadLines(rows[i], inner, i == sel)...)
	}
	title := "Threads"
	if len(m.rows) > 0 {
		title += " (" + itoa(len(m.rows)) + ")"
	}
	if m.prefs.ThreadOrder != orderCreated {
		title += " · " + m.prefs.ThreadOrder
	}
	footer := ""
	if hidden := len(rows) - (m.threads.top + fitRows); hidden > 0 {
		footer = "↓ " + itoa(hidden) + " more"
	}
	return m.box(title, footer, m.focus == focusThreads, r.w, r.h, body)
}

// threadLines renders one thread as rowHeight rows.
func (m *Model) threadLines(r threadRow, w int, selected bool) []string {
	mark := " "
	if m.unread(r.th.ID) {
		mark = "•"
	}
	label, bst := m.badge(r)
	label = strings.TrimSuffix(label, " for you") // the prompt follows
	if r.started > 0 {
		label += " " + elapsed(m.now().Sub(time.Unix(0, r.started)))
	}
	doing := ""
	if r.queued > 0 {
		doing += " · +" + itoa(r.queued) + " queued"
	}
	if r.activity != "" {
		doing += " · " + r.activity
	}
	place, pst := m.rowPlace(r)
	rest := m.rowMeta(r)
	// The age of the last change goes to the right of the title.
	ago := age(m.now(), r.th.UpdatedAt)
	if ago != "" {
		ago = " " + ago
	}
	titleW := max(1, w-3-ansi.StringWidth(ago))
	title := fit(trunc(threadTitle(r.th), titleW), titleW)
	if selected {
		st := m.st.SelectedBlur
		if m.focus == focusThreads {
			st = m.st.Selected
		}
		line1 := "›" + mark + " " + title + ago
		line2 := "   " + label + doing
		line3 := "   " + place + rest
		return []string{st.Render(fit(line1, w)), st.Render(fit(line2, w)), st.Render(fit(line3, w))}
	}
	first := " " + m.st.Unread.Render(mark) + " " + m.st.Text.Render(title) + m.st.Muted.Render(ago)
	second := fit("   "+bst.Render(label)+m.st.Text.Render(doing), w)
	third := fit("   "+pst.Render(place)+m.st.Muted.Render(rest), w)
	return []string{first, second, third}
}

// rowPlace says where a thread works, first on its third row (so it is
// cut last): that its directory is shared with another live thread,
// whose agent writes in the same files, the branch of its own worktree
// ("worktree" when detached), else its repository's or workspace's
// name.
func (m *Model) rowPlace(r threadRow) (string, lipgloss.Style) {
	var parts []string
	st := m.st.Muted
	if r.th.Mission != "" {
		mark := "◈ " + oneLine(r.th.Mission)
		if r.th.Task == core.ReviewTask {
			mark += " reviewer"
		} else if r.th.Task != "" {
			mark += " task " + oneLine(r.th.Task)
		} else {
			mark += " planner"
		}
		parts = append(parts, mark)
	}
	if r.shared {
		parts, st = append(parts, "⇄ shared dir"), m.st.BadgeWaiting
	}
	switch {
	case r.th.Worktree != "" && r.th.Branch != "":
		parts = append(parts, "⎇ "+oneLine(r.th.Branch))
	case r.th.Worktree != "":
		parts = append(parts, "⎇ worktree")
	}
	if name := oneLine(repoName(r.th)); name != "" && (r.th.Worktree == "" || m.prefs.ThreadOrder == orderRepo) {
		parts = append(parts, name)
	}
	return strings.Join(parts, " · "), st
}

// rowMeta is the rest of the third row: provider, run count, and the
// thread's tokens and cost so far (as `thread show --json`
// sums them).
func (m *Model) rowMeta(r threadRow) string {
	runs := itoa(r.th.Runs) + " run"
	if r.th.Runs != 1 {
		runs += "s"
	}
	parts := []string{oneLine(r.th.Provider), runs}
	if n := r.th.TokensIn + r.th.TokensOut; n > 0 || r.th.CostUSD > 0 {
		u := core.Usage{CostUSD: r.th.CostUSD, CostUnknown: r.th.NoCost}
		parts = append(parts, tokens(n)+" tok · "+u.Cost())
	}
	rest := strings.Join(parts, " · ")
	if place, _ := m.rowPlace(r); place != "" {
		rest = " · " + rest
	}
	return rest
}

// wrapStyled wraps text to width and styles each line.
func wrapStyled(text string, width int, st lipgloss.Style) []string {
	lines := wrap(text, width)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}
