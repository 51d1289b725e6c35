package tui

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// conversation is the main pane's scroll state and a cache of rendered
// runs. A run is re-rendered only when an event touched it or the width
// changed, and only the visible window of lines is ever styled onto the
// screen, so a thread with thousands of runs costs what one screen does.
type conversation struct {
	// follow keeps the newest line at the bottom (live tail).
	follow bool
	// top is the first visible line when not following.
	top int
	// cursor is the fold item (run or node) the transcript cursor is on.
	cursor string
	// cache holds the rendered runs of one thread.
	cache  renderCache
	thread string
}

func newConversation() conversation {
	return conversation{follow: true}
}

// reset goes back to the live tail of a (new) thread.
func (c *conversation) reset() {
	c.follow, c.top, c.cursor = true, 0, ""
	c.cache.clear()
}

// renderCache holds rendered runs by run id, each at the width it was
// drawn for. The main pane and the grid each keep one; the model drops a
// run from both when an event touches it.
type renderCache struct{ runs map[string]cachedRun }

type cachedRun struct {
	w   int
	doc runDoc
}

func (c *renderCache) get(run string, w int) (runDoc, bool) {
	e, ok := c.runs[run]
	if !ok || e.w != w {
		return runDoc{}, false
	}
	return e.doc, true
}

func (c *renderCache) put(run string, w int, doc runDoc) {
	if c.runs == nil {
		c.runs = map[string]cachedRun{}
	}
	c.runs[run] = cachedRun{w: w, doc: doc}
}

func (c *renderCache) drop(run string) { delete(c.runs, run) }
func (c *renderCache) clear()          { c.runs = nil }

// invalidateAll drops every rendered run.
func (m *Model) invalidateAll() {
	m.conv.cache.clear()
	m.grid.cache.clear()
	m.wraps.drop()
	m.boxes, m.edge = nil, composerEdge{}
	m.threadsGen++
}

// dropRun drops the rendered lines of one run everywhere.
func (m *Model) dropRun(run string) {
	if run != "" {
		m.conv.cache.drop(run)
		m.grid.cache.drop(run)
	}
}

// invalidateEvent drops the rendered lines of the runs an event touched.
func (m *Model) invalidateEvent(ev *core.Event) {
	m.dropRun(ev.Run)
	p := &ev.Payload
	if p.Run != nil {
		m.dropRun(p.Run.ID)
	}
	if p.Node != nil {
		m.dropRun(p.Node.Run)
	}
	if p.Request != nil {
		m.dropRun(p.Request.Run)
	}
	if p.Plan != nil {
		m.dropRun(p.Plan.Run)
	}
	// A checkpoint's files show in its run; a rollback's progress in the
	// run it goes back to.
	if c := p.Checkpoint; c != nil && c.Run > 0 {
		m.dropRun(core.RunID(c.Thread, c.Run))
	}
	if op := p.Operation; op != nil && op.ToRun > 0 {
		m.dropRun(core.RunID(op.Thread, op.ToRun))
	}
}

// invalidateNode drops the rendered lines of the run that owns a node.
func (m *Model) invalidateNode(node string) {
	if n := m.state.Node(node); n != nil {
		m.dropRun(n.Run)
	}
}

// runDocOf renders a run at width w through a cache.
func (m *Model) runDocOf(c *renderCache, r *core.Run, w int) runDoc {
	if doc, ok := c.get(r.ID, w); ok {
		return doc
	}
	doc := m.renderRun(r, w)
	c.put(r.ID, w, doc)
	return doc
}

// runLines is the rendered lines of a run at width w.
func (m *Model) runLines(c *renderCache, r *core.Run, w int) []string {
	return m.runDocOf(c, r, w).lines
}

// blocks returns the rendered runs of the selected thread (the thread
// header first), re-rendering only what changed since the last call.
func (m *Model) blocks(th *core.Thread, width int) []runDoc {
	c := &m.conv
	if c.thread != th.ID {
		c.thread = th.ID
		c.cache.clear()
	}
	runs := m.state.RunsOf(th.ID)
	out := make([]runDoc, 0, len(runs)+1)
	out = append(out, runDoc{lines: m.threadHeader(th, width)})
	for _, r := range runs {
		out = append(out, m.runDocOf(&c.cache, r, width))
	}
	return out
}

// mainSize is the inner size of the transcript in the main pane: a
// thread with a PTY that shows its transcript gives one line to the
// terminal notice.
func (m *Model) mainSize() (w, h int) {
	h = m.lay.main.h - 2
	if m.termNotice(m.selectedThread()) != "" {
		h--
	}
	return max(1, m.lay.main.w-padW), max(1, h)
}

// totalLines counts the transcript's lines at the current width.
func (m *Model) totalLines() int {
	th := m.selectedThread()
	if th == nil {
		return 0
	}
	w, _ := m.mainSize()
	n := 0
	for _, b := range m.blocks(th, w) {
		n += len(b.lines)
	}
	return n
}

// scroll moves the transcript by delta lines (negative is up).
func (m *Model) scroll(delta int) {
	_, h := m.mainSize()
	total := m.totalLines()
	maxTop := max(0, total-h)
	top := m.conv.top
	if m.conv.follow {
		top = maxTop
	}
	top = clamp(top+delta, 0, maxTop)
	m.conv.top = top
	m.conv.follow = top >= maxTop
}

// scrollToTop and scrollToBottom jump to either end.
func (m *Model) scrollToTop()    { m.conv.follow, m.conv.top = false, 0; m.scroll(0) }
func (m *Model) scrollToBottom() { m.conv.follow = true }

// topLine is the first visible line for a transcript of total lines.
func (m *Model) topLine(total, h int) int {
	top := m.conv.top
	if m.conv.follow || top > max(0, total-h) {
		top = max(0, total-h)
	}
	return top
}

// window returns the visible lines of the transcript and how many lines
// lie below them. The cursor's line is highlighted while the transcript
// has the focus.
func (m *Model) window(th *core.Thread, w, h int) (lines []string, below int) {
	blocks := m.blocks(th, w)
	total := 0
	for _, b := range blocks {
		total += len(b.lines)
	}
	top := m.topLine(total, h)
	cursor := -1
	if m.focus == focusMain {
		cursor = m.cursorLine(blocks)
	}
	pos := 0
	for _, b := range blocks {
		if pos+len(b.lines) <= top {
			pos += len(b.lines)
			continue
		}
		for i := max(0, top-pos); i < len(b.lines) && len(lines) < h; i++ {
			l := b.lines[i]
			if pos+i == cursor {
				l = m.st.Selected.Render(fit(ansi.Strip(l), w))
			}
			l = m.searchHighlight(th, pos+i, l)
			lines = append(lines, l)
		}
		pos += len(b.lines)
		if len(lines) >= h {
			break
		}
	}
	return lines, max(0, total-top-h)
}

func (m *Model) renderMain(r rect) []string {
	th := m.selectedThread()
	w, h := max(1, r.w-padW), max(1, r.h-2)
	if th == nil {
		body := wrapStyled("No thread yet: write a message below and press enter to start one (ctrl+n chooses the agent). f1 lists every key.", w, m.st.Muted)
		if m.state == nil {
			body = wrapStyled("Connecting to the host…", w, m.st.Muted)
		}
		return m.box("Conversation", "", m.focus == focusMain, r.w, r.h, body)
	}
	if m.mainShowsTerm() {
		return m.renderTermMain(r, th, m.terms.panes[th.ID])
	}
	notice := m.termNotice(th)
	if notice != "" {
		h = max(1, h-1)
	}
	lines, below := m.window(th, w, h)
	if notice != "" {
		lines = append([]string{m.st.Muted.Render(trunc(notice, w))}, lines...)
	}
	footer := ""
	if below > 0 {
		footer = "↓ " + itoa(below) + " more lines · pgdn/end"
	}
	return m.box(threadTitle(th), footer, m.focus == focusMain, r.w, r.h, lines)
}

// threadHeader is the line above the first run.
func (m *Model) threadHeader(th *core.Thread, w int) []string {
	meta := th.Provider + " · " + th.ID
	if th.Workspace != "" {
		meta += " · " + th.Workspace
	}
	if th.ForkedFrom != "" {
		meta += " · forked from " + th.ForkedFrom + " at run " + itoa(th.ForkRun)
	}
	if th.QueueHeld {
		meta += " · queue held"
	}
	lines := wrapStyled(oneLine(meta), w, m.st.Muted)
	if th.Runs == 0 {
		lines = append(lines, "")
		lines = append(lines, wrapStyled("No runs yet: write a message below and press enter.", w, m.st.Muted)...)
	}
	return append(lines, m.rollbackLines(th.ID, 0, w)...)
}
