package tui

import (
	"regexp"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// requestGuard is how long a request is on screen before a digit answers
// it. A key typed in the moment the request appeared was meant for the
// draft, so until then digits type into the draft like any other key.
const requestGuard = 700 * time.Millisecond

// requestBox is the waiting request of the selected thread, shown in the
// composer area above the draft (request_box_view.go draws it). Only
// digit keys answer it, and only once it is armed.
type requestBox struct {
	// id is the request shown; "" when the composer area shows only the
	// draft.
	id string
	// armed: digits answer. A request that appears by itself is armed
	// after requestGuard; one the person asked for (ctrl+o, alt+m) at
	// once.
	armed bool
	// typing: the person chose "type an answer"; keys go to input.
	typing bool
	input  textinput.Model
	// top is the first prompt line shown when the prompt is too long for
	// the box.
	top int
	// lines is the prompt wrapped to width for request id (a cache: a
	// command or a diff can be long).
	lines     []string
	linesFor  string
	linesW    int
	linesMore int // lines cut off beyond maxRequestLines
	// cs are the choices of request csFor (a cache: parsing a long
	// prompt on every key would cost a frame).
	cs    []choice
	csFor string
	// answered is the request an answer was sent for; the box says so
	// and takes no digit until the journal resolves it.
	answered string
	// aside are requests the person set aside to see the draft (alt+m).
	aside map[string]bool
	// explicit is a request the person asked to see: armed on sight.
	explicit string
}

// requestArmMsg arms the box for a request once the guard has passed.
type requestArmMsg struct{ id string }

// requestAnsweredMsg is the outcome of an answer's submit.
type requestAnsweredMsg struct {
	id  string
	res submitResultMsg
}

// choice is one numbered answer of a request.
type choice struct {
	label    string
	response core.Response
	answer   string
	// typing opens the box's input for a free-text answer.
	typing bool
}

// optionsRE finds the options a question offers: the agents' adapters
// (Claude Code's AskUserQuestion, Codex's requestUserInput) write one
// question as "Which colour? [red / blue]", with an optional
// "(reason)" after it.
var optionsRE = regexp.MustCompile(`\[([^\[\]]+)\](\s*\([^()]*\))?\s*$`)

// maxOptions bounds the numbered options: digits 1-9 name the choices,
// and one of them is "type an answer".
const maxOptions = 8

// choices are a request's answers in the order the agent offers them.
func choices(q *core.Request) []choice {
	if q.Kind != core.RequestUserInput {
		return []choice{{label: "allow once", response: core.RespAllow},
			{label: "allow always", response: core.RespAllowAlways}, {label: "deny", response: core.RespDeny}}
	}
	var out []choice
	prompt := strings.TrimSpace(q.Prompt)
	if !strings.Contains(prompt, "\n") { // several questions take one line each: typed
		if m := optionsRE.FindStringSubmatch(prompt); m != nil {
			for _, o := range strings.Split(m[1], " / ") {
				if o = strings.TrimSpace(o); o != "" && len(out) < maxOptions {
					out = append(out, choice{label: o, response: core.RespAnswer, answer: o})
				}
			}
		}
	}
	return append(out, choice{label: "type an answer…", typing: true})
}

// boxChoices are the choices of the shown request q, cached.
func (m *Model) boxChoices(q *core.Request) []choice {
	if m.reqBox.csFor != q.ID || m.reqBox.cs == nil {
		m.reqBox.cs, m.reqBox.csFor = choices(q), q.ID
	}
	return m.reqBox.cs
}

// boxRequest is the request the composer area should show: the oldest
// one waiting on the selected thread, unless it was set aside or the
// grid hides the composer.
func (m *Model) boxRequest() *core.Request {
	if m.state == nil || m.gridShown() {
		return nil
	}
	for _, q := range m.pending {
		if q.Thread == m.selected {
			if m.reqBox.aside[q.ID] {
				return nil
			}
			return q
		}
	}
	return nil
}

// shownRequest is the request the box shows, or nil.
func (m *Model) shownRequest() *core.Request {
	if m.reqBox.id == "" || m.state == nil {
		return nil
	}
	return m.state.Requests[m.reqBox.id]
}

// syncRequestBox follows the projection and the selection after every
// Update: a request that appears starts unarmed with a timer to arm it.
func (m *Model) syncRequestBox() tea.Cmd {
	b := &m.reqBox
	for id := range b.aside {
		if q := m.state.Requests[id]; q == nil || q.Status != core.RequestPending {
			delete(b.aside, id)
		}
	}
	id := ""
	if q := m.boxRequest(); q != nil {
		id = q.ID
	}
	if id == b.id {
		return nil
	}
	b.id, b.armed, b.top = id, false, 0
	m.stopTyping()
	b.input.SetValue("")
	if b.answered != "" && b.answered != id {
		b.answered = ""
	}
	m.relayout()
	if id == "" {
		return nil
	}
	if b.explicit == id {
		b.armed, b.explicit = true, ""
		return nil
	}
	return m.after(requestGuard, requestArmMsg{id: id})
}

// requestBoxMsg handles the box's own messages.
func (m *Model) requestBoxMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case requestArmMsg:
		if msg.id == m.reqBox.id {
			m.reqBox.armed = true
			m.relayout()
		}
	case requestAnsweredMsg:
		if r := msg.res; (r.err != nil || (r.rec != nil && r.rec.Reject != nil)) && m.reqBox.answered == msg.id {
			m.reqBox.answered = "" // not answered: the digits work again
		}
		return m.submitted(msg.res)
	}
	return nil
}

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
