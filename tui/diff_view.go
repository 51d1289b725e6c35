package tui

import (
	"context"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// The diff view shows the unified diff of one run of the selected thread
// over the whole screen but the banner and the status line: what `nexus
// diff THREAD --run N` prints (Options.Diff), the file list first, then
// the patch with added lines in the theme's DiffAdd, removed ones in
// DiffRemove, hunk headers in DiffMeta and file headers muted. Long lines
// wrap, so nothing is cut. The diff is fetched by a tea.Cmd; until it
// arrives the view says so, and a failure is one line in the view.

// diffKind is what a line of the diff text is, which decides its style.
type diffKind uint8

const (
	diffText    diffKind = iota // context, and anything not recognised
	diffStat                    // " M path | +1 -0"
	diffSummary                 // " 2 file(s) changed, 3 insertion(s), 1 deletion(s)"
	diffHeader                  // diff --git, index, ---, +++, modes, "Binary files … differ"
	diffHunk                    // @@ -1,2 +1,3 @@
	diffAdd
	diffRemove
	diffNote // "\ No newline at end of file", "[diff truncated]"
)

// diffLine is one line of the diff (or one wrapped part of one).
type diffLine struct {
	text string
	kind diffKind
}

// diffView is the state of the diff view; open is false when closed.
type diffView struct {
	open   bool
	thread string
	title  string // the thread's title, for the frame
	what   string // what the diff is of: "run 2", "worktree"
	// seq numbers each opening, so a diff that arrives after its view
	// was closed (or replaced) is dropped.
	seq    int
	cancel context.CancelFunc // ends the fetch when the view closes
	// loading until the Cmd reports; then err, or the lines.
	loading bool
	err     string
	raw     []diffLine // the diff's lines, classified
	text    string     // the diff as fetched, byte for byte (copy, $EDITOR)
	// lines are raw wrapped to width w (relayout keeps them so).
	w     int
	lines []diffLine
	top   int
}

// diffMsg carries a run's diff (or why there is none) to the view.
type diffMsg struct {
	seq  int
	text string
	err  error
}

// openDiff opens the diff view on the run at the transcript cursor
// (while the transcript has the focus), else the thread's latest run
// with a ready checkpoint, and starts fetching its diff. A run without a
// ready checkpoint only gets a status-line message saying why.
func (m *Model) openDiff() tea.Cmd {
	th := m.selectedThread()
	switch {
	case m.state == nil:
		return m.setFlash("not connected to the host yet", true)
	case th == nil:
		return m.setFlash("no thread selected to show a diff of", true)
	case m.opts.Diff == nil:
		return m.setFlash("this UI cannot show diffs (`nexus diff` can)", true)
	}
	run, why := m.diffTarget(th)
	if why != "" {
		return m.setFlash(why, true)
	}
	diff, thread := m.opts.Diff, th.ID
	return m.startDiff(th, "run "+itoa(run), func(ctx context.Context) (string, error) { return diff(ctx, thread, run) })
}

// startDiff opens the view on what fetch returns, labelled what (the
// run, or the worktree), and fetches it in a Cmd whose context ends when
// the view closes.
func (m *Model) startDiff(th *core.Thread, what string, fetch func(context.Context) (string, error)) tea.Cmd {
	m.closeDiff()
	ctx, cancel := context.WithCancel(m.ctx)
	seq := m.diff.seq + 1
	m.diff = diffView{open: true, thread: th.ID, title: threadTitle(th), what: what, seq: seq, cancel: cancel,
		loading: true}
	m.relayout()
	return func() tea.Msg {
		text, err := fetch(ctx)
		return diffMsg{seq: seq, text: text, err: err}
	}
}

// diffTarget is the run whose diff ctrl+d shows, or why there is none.
func (m *Model) diffTarget(th *core.Thread) (run int, why string) {
	if th.Workspace == "" {
		return 0, "this thread has no workspace, so its runs have no checkpoints to diff"
	}
	if r := m.cursorRun(th); r != nil {
		c := checkpointOf(m.state, th.ID, r.Ordinal)
		switch {
		case c == nil && (r.Status == core.RunRunning || r.Status == core.RunWaiting || r.Status == core.RunQueued):
			return 0, "run " + itoa(r.Ordinal) + " has no checkpoint yet (" + string(r.Status) + "): its diff is ready when it ends"
		case c == nil:
			return 0, "run " + itoa(r.Ordinal) + " has no checkpoint"
		case c.Status != core.CkReady:
			reason := string(c.Status)
			if c.Reason != "" {
				reason += ": " + c.Reason
			}
			return 0, "run " + itoa(r.Ordinal) + " has no ready checkpoint (" + reason + ")"
		}
		return r.Ordinal, ""
	}
	runs := m.state.RunsOf(th.ID)
	for i := len(runs) - 1; i >= 0; i-- {
		if c := checkpointOf(m.state, th.ID, runs[i].Ordinal); c != nil && c.Status == core.CkReady {
			return runs[i].Ordinal, ""
		}
	}
	return 0, "no run of this thread has a ready checkpoint yet"
}

// cursorRun is the run the transcript cursor is on (a run's rule or one
// of its steps) while the transcript has the focus, or nil.
func (m *Model) cursorRun(th *core.Thread) *core.Run {
	id := m.conv.cursor
	if m.focus != focusMain || m.gridShown() || id == "" {
		return nil
	}
	runID, isRun := strings.CutPrefix(id, "run:")
	if !isRun {
		n := m.state.Node(id)
		if n == nil {
			return nil
		}
		runID = n.Run
	}
	if r := m.state.Runs[runID]; r != nil && r.Thread == th.ID {
		return r
	}
	return nil
}

// diffLoaded shows a fetched diff, unless its view has gone.
func (m *Model) diffLoaded(msg diffMsg) tea.Cmd {
	d := &m.diff
	if !d.open || msg.seq != d.seq {
		return nil
	}
	d.loading = false
	if msg.err != nil {
		d.err = oneLine(msg.err.Error())
		return nil
	}
	d.raw, d.text = classifyDiff(msg.text), msg.text
	d.w = 0
	m.relayout()
	return nil
}

// closeDiff closes the view and abandons a fetch still running.
func (m *Model) closeDiff() {
	if m.diff.cancel != nil {
		m.diff.cancel()
	}
	m.diff = diffView{seq: m.diff.seq}
	m.relayout()
}

// diffKey handles keys while the diff view is open: scrolling; esc or
// ctrl+d again closes; quit, help and answering a request work over it.
// Nothing else reaches the panes under it.
func (m *Model) diffKey(k tea.KeyPressMsg) tea.Cmd {
	_, h := m.diffSize()
	page := max(1, h-1)
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Help):
		m.pushDialog(&helpDialog{keys: m.keys})
	case key.Matches(k, m.keys.Answer):
		return m.openRequest()
	case key.Matches(k, m.keys.CancelDialog, m.keys.Diff):
		m.closeDiff()
	case key.Matches(k, m.keys.ViewUp):
		m.scrollDiff(-1)
	case key.Matches(k, m.keys.ViewDown):
		m.scrollDiff(1)
	case key.Matches(k, m.keys.PageUp):
		m.scrollDiff(-page)
	case key.Matches(k, m.keys.PageDown):
		m.scrollDiff(page)
	case key.Matches(k, m.keys.ViewTop):
		m.diff.top = 0
	case key.Matches(k, m.keys.ViewBottom):
		m.scrollDiff(len(m.diff.lines))
	case key.Matches(k, m.keys.Copy):
		return m.copyKey()
	case key.Matches(k, m.keys.OpenEditor):
		return m.openInEditor()
	}
	return nil
}

// diffSize is the inner size of the view's frame.
func (m *Model) diffSize() (w, h int) {
	return max(1, m.lay.diff.w-padW), max(1, m.lay.diff.h-2)
}

// scrollDiff moves the view by delta lines, within the text.
func (m *Model) scrollDiff(delta int) {
	_, h := m.diffSize()
	m.diff.top = clamp(m.diff.top+delta, 0, max(0, len(m.diff.lines)-h))
}

// layoutDiff places the view (over everything but the banner and the
// status line) and wraps the text to its width. relayout calls it last,
// so the panes under the view keep their sizes (a terminal pane's PTY
// is not resized by opening a diff).
func (m *Model) layoutDiff() {
	if !m.diff.open || m.lay.tooSmall {
		m.lay.diff = rect{}
		return
	}
	y := m.lay.banner.h
	m.lay.diff = rect{0, y, m.width, max(0, m.height-1-y)}
	w, h := m.diffSize()
	if d := &m.diff; d.w != w && d.raw != nil {
		d.lines, d.w = wrapDiff(d.raw, w), w
	}
	m.diff.top = clamp(m.diff.top, 0, max(0, len(m.diff.lines)-h))
}

// renderDiff draws the view: only the lines on screen are styled.
func (m *Model) renderDiff(r rect) []string {
	d := &m.diff
	w, h := m.diffSize()
	title := "Diff · " + d.what + " · " + d.title
	var body []string
	footer := m.keys.CancelDialog.Help().Key + " close"
	switch {
	case d.loading:
		body = []string{m.st.Muted.Render(trunc("loading diff of "+d.what+"…", w))}
	case d.err != "":
		body = []string{m.st.Error.Render(trunc("✗ "+d.err, w))}
	case len(d.lines) == 0:
		body = []string{m.st.Muted.Render(trunc("the diff of "+d.what+" is empty", w))}
	default:
		end := min(len(d.lines), d.top+h)
		for _, l := range d.lines[d.top:end] {
			body = append(body, m.diffLineStyled(l, w))
		}
		if len(d.lines) > h {
			footer = "lines " + itoa(d.top+1) + "-" + itoa(end) + " of " + itoa(len(d.lines)) +
				" · up/down pgup/pgdn home/end · " + footer
		}
	}
	return m.box(title, footer, true, r.w, r.h, body)
}

// diffLineStyled styles one line by its kind, fitted to w cells.
func (m *Model) diffLineStyled(l diffLine, w int) string {
	var st lipgloss.Style
	switch l.kind {
	case diffStat:
		return fit(m.statLine(l.text), w)
	case diffSummary, diffHeader, diffNote:
		st = m.st.Muted
	case diffHunk:
		st = m.st.DiffMeta
	case diffAdd:
		st = m.st.DiffAdd
	case diffRemove:
		st = m.st.DiffRemove
	default:
		st = m.st.Text
	}
	return fit(st.Render(l.text), w)
}

// statLine styles " M path | +1 -0": the status letter and the counts in
// the diff styles, as the transcript's file lists do.
func (m *Model) statLine(s string) string {
	i := strings.LastIndex(s, " | ")
	if i < 0 || len(s) < 3 || s[0] != ' ' || s[2] != ' ' {
		return m.st.Text.Render(s)
	}
	var counts []string
	for _, f := range strings.Fields(s[i+3:]) {
		switch {
		case strings.HasPrefix(f, "+"):
			counts = append(counts, m.st.DiffAdd.Render(f))
		case strings.HasPrefix(f, "-"):
			counts = append(counts, m.st.DiffRemove.Render(f))
		default:
			counts = append(counts, m.st.Text.Render(f))
		}
	}
	return " " + statusStyle(&m.st, s[1:2]).Render(s[1:2]) + m.st.Text.Render(s[2:i]) + m.st.Muted.Render(" | ") +
		strings.Join(counts, " ")
}

// classifyDiff splits the text of `nexus diff` into lines and tells what
// each is. Before the first "diff --git" come the file list and the
// total; in a hunk the @@ header's counts say how many lines belong to
// it, so a removed line that reads "--- x" is not taken for a header.
func classifyDiff(text string) []diffLine {
	text = strings.TrimRight(sanitize(text), "\n")
	if text == "" {
		return nil
	}
	raw := strings.Split(text, "\n")
	out := make([]diffLine, len(raw))
	inPatch := false
	oldLeft, newLeft := 0, 0
	for i, l := range raw {
		k := diffText
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(l, "+"):
				k, newLeft = diffAdd, newLeft-1
			case strings.HasPrefix(l, "-"):
				k, oldLeft = diffRemove, oldLeft-1
			case strings.HasPrefix(l, `\`):
				k = diffNote
			case l == "" || strings.HasPrefix(l, " "):
				oldLeft, newLeft = oldLeft-1, newLeft-1
			default:
				// Not a hunk line: the patch was cut ("[diff truncated]").
				oldLeft, newLeft = 0, 0
				k = diffNote
			}
			out[i] = diffLine{text: l, kind: k}
			continue
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inPatch, k = true, diffHeader
		case !inPatch && strings.Contains(l, " file(s) changed, "):
			k = diffSummary
		case !inPatch && strings.Contains(l, " | "):
			k = diffStat
		case !inPatch:
		case strings.HasPrefix(l, "@@"):
			k = diffHunk
			oldLeft, newLeft = hunkCounts(l)
		case l == "[diff truncated]", strings.HasPrefix(l, `\`):
			k = diffNote
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			k = diffHeader
		case strings.HasPrefix(l, "+"): // a hunk whose header did not parse
			k = diffAdd
		case strings.HasPrefix(l, "-"):
			k = diffRemove
		case l == "" || strings.HasPrefix(l, " "):
		default: // index, new file mode, Binary files … differ
			k = diffHeader
		}
		out[i] = diffLine{text: l, kind: k}
	}
	return out
}

// hunkCounts reads the old and new line counts of "@@ -a,b +c,d @@"
// (a missing count is 1).
func hunkCounts(l string) (oldN, newN int) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0
	}
	count := func(s, sign string) int {
		s, ok := strings.CutPrefix(s, sign)
		if !ok {
			return 0
		}
		_, n, found := strings.Cut(s, ",")
		if !found {
			return 1
		}
		c, err := strconv.Atoi(n)
		if err != nil || c < 0 {
			return 0
		}
		return c
	}
	return count(f[1], "-"), count(f[2], "+")
}

// wrapDiff wraps the lines to w cells, keeping their spaces (code's
// indentation); each part keeps its line's kind.
func wrapDiff(raw []diffLine, w int) []diffLine {
	out := make([]diffLine, 0, len(raw))
	for _, l := range raw {
		if len(l.text) <= w || ansi.StringWidth(l.text) <= w {
			out = append(out, l)
			continue
		}
		for _, p := range strings.Split(ansi.Hardwrap(l.text, w, true), "\n") {
			out = append(out, diffLine{text: p, kind: l.kind})
		}
	}
	return out
}
