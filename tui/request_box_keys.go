package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// requestBoxKey gives the box the keys it owns while it shows: the
// digits (once armed), its scroll keys, enter (which must not send the
// draft as a steer by accident), and everything while typing an answer.
func (m *Model) requestBoxKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if key.Matches(k, m.keys.RequestDraft) {
		return m.toggleRequestDraft(), true
	}
	q := m.shownRequest()
	if q == nil {
		return nil, false
	}
	b := &m.reqBox
	if b.typing {
		return m.typingKey(q, k)
	}
	switch {
	case key.Matches(k, m.keys.AnswerDigit):
		if !b.armed {
			return nil, false // too early to be meant for the request: it types into the draft
		}
		if b.answered == q.ID {
			return m.setFlash("answer sent; waiting for the agent", false), true
		}
		cs := m.boxChoices(q)
		n := int(k.Code - '0')
		if n < 1 || n > len(cs) {
			return m.setFlash("choose 1-"+itoa(len(cs))+" (alt+m: back to your draft)", false), true
		}
		if cs[n-1].typing {
			b.typing = true
			m.setFocus(focusComposer)
			m.composer.blur()
			b.input.Focus()
			m.relayout()
			return nil, true
		}
		return m.answer(q, cs[n-1].response, cs[n-1].answer), true
	case key.Matches(k, m.keys.RequestScrollUp):
		b.top = max(0, b.top-1)
		return nil, true
	case key.Matches(k, m.keys.RequestScrollDown):
		b.top++ // clamped when drawn
		return nil, true
	case m.focus == focusComposer && key.Matches(k, m.keys.Send):
		return m.setFlash("a request waits: a number answers it; "+m.keys.RequestDraft.Help().Key+
			" to send your draft instead", false), true
	}
	return nil, false
}

// typingKey edits a free-text answer: enter sends it, esc goes back to
// the choices, ctrl+c clears it (on an empty one goes back, so it never
// reaches the draft), text and the input's editing keys edit it; other
// keys work as they do everywhere, and never reach the draft.
func (m *Model) typingKey(q *core.Request, k tea.KeyPressMsg) (tea.Cmd, bool) {
	b := &m.reqBox
	switch {
	case key.Matches(k, m.keys.Confirm):
		if strings.TrimSpace(b.input.Value()) == "" {
			return m.setFlash("type an answer first, or esc for the choices", false), true
		}
		if b.answered == q.ID {
			return nil, true
		}
		return m.answer(q, core.RespAnswer, b.input.Value()), true
	case key.Matches(k, m.keys.CancelDialog), key.Matches(k, m.keys.Quit) && b.input.Value() == "":
		m.stopTyping()
		m.relayout()
		return nil, true
	case key.Matches(k, m.keys.Quit):
		b.input.SetValue("")
		return nil, true
	}
	km := b.input.KeyMap
	if printable(k) || key.Matches(k, km.CharacterForward, km.CharacterBackward, km.WordForward, km.WordBackward,
		km.DeleteWordBackward, km.DeleteWordForward, km.DeleteAfterCursor, km.DeleteBeforeCursor,
		km.DeleteCharacterBackward, km.DeleteCharacterForward, km.LineStart, km.LineEnd, km.Paste) {
		var cmd tea.Cmd
		b.input, cmd = b.input.Update(k)
		return cmd, true
	}
	cmd, _ := m.globalKey(k)
	return cmd, true
}

// requestBoxPaste puts a paste into the answer being typed; false when
// no answer is being typed.
func (m *Model) requestBoxPaste(p tea.PasteMsg) (tea.Cmd, bool) {
	if !m.reqBox.typing || m.shownRequest() == nil {
		return nil, false
	}
	var cmd tea.Cmd
	m.reqBox.input, cmd = m.reqBox.input.Update(p)
	return cmd, true
}

// stopTyping leaves the answer input; the draft takes the keys again.
func (m *Model) stopTyping() {
	if !m.reqBox.typing {
		return
	}
	m.reqBox.typing = false
	m.reqBox.input.Blur()
	if m.focus == focusComposer {
		m.composer.focus()
	}
}

// answer submits the person's answer. The box keeps the request, marked
// answered, until the journal resolves it.
func (m *Model) answer(q *core.Request, resp core.Response, text string) tea.Cmd {
	m.reqBox.answered = q.ID
	m.stopTyping()
	m.relayout()
	send := m.submit(core.Command{Kind: core.CmdRequestRespond, Request: q.ID, Response: resp, Answer: text}, "")
	id := q.ID
	return func() tea.Msg {
		r, _ := send().(submitResultMsg)
		return requestAnsweredMsg{id: id, res: r}
	}
}

// toggleRequestDraft switches the composer area between the selected
// thread's waiting request and the draft.
func (m *Model) toggleRequestDraft() tea.Cmd {
	if m.reqBox.id != "" {
		if m.reqBox.aside == nil {
			m.reqBox.aside = map[string]bool{}
		}
		m.reqBox.aside[m.reqBox.id] = true
		m.setFocus(focusComposer)
		return nil
	}
	if m.state != nil {
		for _, q := range m.pending {
			if q.Thread == m.selected && m.reqBox.aside[q.ID] {
				delete(m.reqBox.aside, q.ID)
				m.reqBox.explicit = q.ID
				m.setFocus(focusComposer)
				return nil
			}
		}
	}
	return m.setFlash("no request waits on this thread; "+m.keys.Answer.Help().Key+" jumps to the oldest one", false)
}

// openRequest jumps to the oldest request waiting across all threads:
// it selects the thread, and its request shows in the composer area,
// armed at once (the person asked for it).
func (m *Model) openRequest() tea.Cmd {
	if len(m.pending) == 0 {
		return m.setFlash("nothing is waiting for you", false)
	}
	q := m.pending[0]
	if m.diff.open {
		m.closeDiff()
	}
	if m.gridShown() {
		m.grid.zoomed = true // the normal view, esc goes back to the grid
	}
	m.selectThread(q.Thread)
	delete(m.reqBox.aside, q.ID)
	if m.reqBox.id == q.ID {
		m.reqBox.armed = true
	} else {
		m.reqBox.explicit = q.ID
	}
	m.setFocus(focusComposer)
	return nil
}
