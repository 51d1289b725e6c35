package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// A long message from the person (a run's text or a steer, a big paste
// sent) shows folded in the transcript: its first msgHeadRows rows and a
// line that says how long it is. It is a fold item like a tool step:
// enter on it, or a click on it, shows it all, and again folds it.

const (
	// foldMsgLines and foldMsgBytes: a message of more lines or bytes than
	// these shows folded. Twelve lines are half a screen of a small
	// terminal; past 4 KiB even a message of few lines wraps to more.
	foldMsgLines = 12
	foldMsgBytes = 4 << 10
	// msgHeadRows is how many rows of a folded message show.
	msgHeadRows = 4
)

// msgItem is the fold item of a run's text; steerItem of its i-th steer.
func msgItem(run string) string          { return "msg:" + run }
func steerItem(run string, i int) string { return "steer:" + itoa(i) + ":" + run }

// msgRun is the run whose message a fold item is, if it is one.
func msgRun(id string) (string, bool) {
	if run, ok := strings.CutPrefix(id, "msg:"); ok {
		return run, true
	}
	if rest, ok := strings.CutPrefix(id, "steer:"); ok {
		_, run, ok := strings.Cut(rest, ":")
		return run, ok
	}
	return "", false
}

func longMessage(text string) bool {
	return len(text) > foldMsgBytes || countLines(text) > foldMsgLines
}

// addMessage adds a message of the person to a run's lines after the
// styled prefix first ("› ", "↪ steer: "): whole, or folded when long.
func (m *Model) addMessage(d *runDoc, item, text, first string, st lipgloss.Style, w int) {
	if !longMessage(text) {
		d.add("", wrapIndent(text, first, w, st)...)
		return
	}
	if m.folds[item] == foldOpen {
		d.add(item, wrapIndent(text, first, w, st)...)
		return
	}
	lines := wrapIndent(messageHead(text, w), first, w, st)
	if len(lines) > msgHeadRows {
		lines = lines[:msgHeadRows]
	}
	pad := strings.Repeat(" ", ansi.StringWidth(first))
	more := pad + "… " + linesLabel(countLines(text)) + " · " + sizeLabel(len(text)) + " in all · enter or click shows all"
	d.add(item, append(lines, m.st.Muted.Render(trunc(more, w)))...)
}

// messageHead is the start of a message, enough for msgHeadRows rows at
// width w, so a folded message never wraps the whole of a large paste.
func messageHead(text string, w int) string {
	end := 0
	for range msgHeadRows {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			end = len(text)
			break
		}
		end += i + 1
	}
	head := strings.TrimSuffix(text[:end], "\n")
	if limit := msgHeadRows * max(1, w) * 4; len(head) > limit {
		head = head[:limit]
		for len(head) > 0 && !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
	}
	return head
}

// clickMessage opens or folds the long message under a click on row y of
// the screen, in the transcript.
func (m *Model) clickMessage(y int) {
	th := m.selectedThread()
	if th == nil || m.mainShowsTerm() {
		return
	}
	row := y - m.lay.main.y - 1
	if m.termNotice(th) != "" {
		row--
	}
	w, h := m.mainSize()
	if row < 0 || row >= h {
		return
	}
	blocks := m.blocks(th, w)
	total := 0
	for _, b := range blocks {
		total += len(b.lines)
	}
	line := m.topLine(total, h) + row
	for _, it := range flatItems(blocks) {
		if _, ok := msgRun(it.id); ok && it.line <= line && line < it.line+it.rows {
			m.conv.cursor = it.id
			m.toggleFold()
			return
		}
	}
}
