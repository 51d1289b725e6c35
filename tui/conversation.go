package tui

import (
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
	// cache holds rendered runs by run id for one thread and width.
	cache  map[string][]string
	thread string
	width  int
}

func newConversation() conversation {
	return conversation{follow: true, cache: map[string][]string{}}
}

// reset goes back to the live tail of a (new) thread.
func (c *conversation) reset() {
	c.follow, c.top = true, 0
	c.invalidateAll()
}

func (c *conversation) invalidateAll() { c.cache = map[string][]string{} }

// invalidateEvent drops the cached lines of the run an event touched.
func (c *conversation) invalidateEvent(ev *core.Event) {
	delete(c.cache, ev.Run)
	p := &ev.Payload
	if p.Run != nil {
		delete(c.cache, p.Run.ID)
	}
	if p.Node != nil {
		delete(c.cache, p.Node.Run)
	}
	if p.Request != nil {
		delete(c.cache, p.Request.Run)
	}
	if p.Plan != nil {
		delete(c.cache, p.Plan.Run)
	}
}

// invalidateNode drops the cached lines of the run that owns a node.
func (c *conversation) invalidateNode(st *core.State, node string) {
	if n := st.Nodes[node]; n != nil {
		delete(c.cache, n.Run)
	}
}

// blocks returns the rendered runs of the selected thread, re-rendering
// only what changed since the last call.
func (m *Model) blocks(th *core.Thread, width int) [][]string {
	c := &m.conv
	if c.thread != th.ID || c.width != width {
		c.thread, c.width = th.ID, width
		c.invalidateAll()
	}
	runs := m.state.RunsOf(th.ID)
	out := make([][]string, 0, len(runs)+1)
	out = append(out, m.threadHeader(th, width))
	for _, r := range runs {
		lines, ok := c.cache[r.ID]
		if !ok {
			lines = m.renderRun(r, width)
			c.cache[r.ID] = lines
		}
		out = append(out, lines)
	}
	return out
}

// mainSize is the inner size of the main pane.
func (m *Model) mainSize() (w, h int) { return max(1, m.lay.main.w-padW), max(1, m.lay.main.h-2) }

// totalLines counts the transcript's lines at the current width.
func (m *Model) totalLines() int {
	th := m.selectedThread()
	if th == nil {
		return 0
	}
	w, _ := m.mainSize()
	n := 0
	for _, b := range m.blocks(th, w) {
		n += len(b)
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

// window returns the visible lines of the transcript and how many lines
// lie below them.
func (m *Model) window(th *core.Thread, w, h int) (lines []string, below int) {
	blocks := m.blocks(th, w)
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	top := m.conv.top
	if m.conv.follow || top > max(0, total-h) {
		top = max(0, total-h)
	}
	pos := 0
	for _, b := range blocks {
		if pos+len(b) <= top {
			pos += len(b)
			continue
		}
		for i := max(0, top-pos); i < len(b) && len(lines) < h; i++ {
			lines = append(lines, b[i])
		}
		pos += len(b)
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
		body := wrapStyled("No thread selected. ctrl+n starts a thread; tab moves between panes; f1 or ? lists every key.", w, m.st.Muted)
		if m.state == nil {
			body = wrapStyled("Connecting to the host…", w, m.st.Muted)
		}
		return m.box("Conversation", "", m.focus == focusMain, r.w, r.h, body)
	}
	lines, below := m.window(th, w, h)
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
	return lines
}
