package tui

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// Copying puts text on the clipboard of the terminal the person sits at
// with OSC 52 (ESC ] 52 ; c ; BASE64 BEL), which works over ssh and
// needs no clipboard tool on the machine nexus runs on. The text is the
// exact text the agent or tool produced, not what the screen shows: it
// travels base64-encoded, so no byte of it can act on the terminal.
//
// Inside tmux the sequence is written twice: as is, which tmux takes
// into its paste buffer (and passes on to the outer terminal) with
// `set -s set-clipboard on`, and wrapped for passthrough, which reaches
// the outer terminal with `set -g allow-passthrough on`. Either setting
// is enough; with both the terminal gets the same text twice.

// maxCopy bounds what one copy sends: terminals refuse or truncate much
// larger OSC 52 payloads, and a flood of base64 would stall an ssh link.
const maxCopy = 1 << 20

// osc52 is the sequence that sets the clipboard to text, wrapped for
// tmux when tmux is true.
func osc52(text string, tmux bool) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
	if !tmux {
		return seq
	}
	return seq + passthrough(seq, true)
}

// clip cuts text to at most n bytes without splitting a UTF-8 character.
func clip(text string, n int) string {
	if len(text) <= n {
		return text
	}
	text = text[:n]
	i := len(text) - 1
	for i > 0 && i > len(text)-utf8.UTFMax && !utf8.RuneStart(text[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRuneInString(text[i:]) {
		text = text[:i]
	}
	return text
}

// copyText sends text to the clipboard and says so in the status line:
// what was copied and how much, or that it was cut.
func (m *Model) copyText(text, what string) tea.Cmd {
	sent := clip(text, maxCopy)
	note := "copied " + what + " · " + sizeLabel(len(sent))
	if len(sent) < len(text) {
		note = "copied " + what + ": only the first " + sizeLabel(len(sent)) + " of " + sizeLabel(len(text)) +
			" (" + sizeLabel(maxCopy) + " at most)"
	}
	return tea.Batch(m.raw(osc52(sent, inTmux())), m.setFlash(note, false))
}

// copyKey copies what the person is looking at: the diff in the diff
// view; in the transcript the item at the cursor (a run: its reply; a
// step: its output; a long message: the message); else the latest reply
// of the selected thread.
func (m *Model) copyKey() tea.Cmd {
	if m.diff.open {
		switch d := &m.diff; {
		case d.loading:
			return m.setFlash("the diff is still loading: copy it when it shows", true)
		case d.err != "":
			return m.setFlash("no diff to copy: "+d.err, true)
		case d.text == "":
			return m.setFlash("the diff of "+d.what+" is empty: nothing to copy", true)
		}
		return m.copyText(m.diff.text, "the diff of "+m.diff.what)
	}
	th := m.selectedThread()
	if th == nil {
		return m.setFlash("nothing to copy: no thread selected", true)
	}
	if m.focus == focusMain && m.conv.cursor != "" {
		text, what := m.cursorText(m.conv.cursor)
		if text == "" {
			return m.setFlash("nothing to copy: "+what+" is empty", true)
		}
		return m.copyText(text, what)
	}
	runs := m.state.RunsOf(th.ID)
	for i := len(runs) - 1; i >= 0; i-- {
		if text := m.reply(runs[i]); text != "" {
			return m.copyText(text, "the reply of run "+itoa(runs[i].Ordinal))
		}
	}
	return m.setFlash("nothing to copy: no reply in this thread yet (tab to the transcript picks a step)", true)
}

// cursorText is the exact text of a transcript item and what it is.
func (m *Model) cursorText(id string) (text, label string) {
	if runID, ok := strings.CutPrefix(id, "run:"); ok {
		r := m.state.Runs[runID]
		if r == nil {
			return "", "the run"
		}
		return m.reply(r), "the reply of run " + itoa(r.Ordinal)
	}
	if runID, ok := msgRun(id); ok {
		r := m.state.Runs[runID]
		if r == nil {
			return "", "the message"
		}
		if rest, ok := strings.CutPrefix(id, "steer:"); ok {
			i, _, _ := strings.Cut(rest, ":")
			for j, s := range r.Steers {
				if itoa(j) == i {
					return s, "your steer of run " + itoa(r.Ordinal)
				}
			}
			return "", "the steer"
		}
		return r.Text, "your message of run " + itoa(r.Ordinal)
	}
	n := m.state.Node(id)
	if n == nil {
		return "", "the step"
	}
	label = "the output of " + trunc(oneLine(nodeTitle(n)), 40)
	if n.Kind == core.NodeLLMCall {
		label = "the response of " + trunc(oneLine(n.Title), 40)
	}
	return n.Text + m.live[n.ID], label
}

// reply is a run's reply as the agent wrote it: the one the kernel
// recorded when the run ended (what `nexus thread show` prints), else,
// while it runs, its current attempt's top-level assistant messages so
// far, live text included, joined the same way.
func (m *Model) reply(r *core.Run) string {
	if r.Reply != "" {
		return r.Reply
	}
	a := m.state.CurrentAttempt(r)
	if a == nil {
		return ""
	}
	nodes := m.state.NodesOf(a.ID)
	top := map[string]bool{"": true}
	for _, n := range nodes {
		if n.Kind == core.NodeRootTurn {
			top[n.ID] = true
		}
	}
	var parts []string
	for _, n := range nodes {
		if n.Kind != core.NodeAssistantMessage || !top[n.Parent] {
			continue
		}
		if text := n.Text + m.live[n.ID]; text != "" {
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, "\n")
}
