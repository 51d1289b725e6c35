package tui

import (
	"regexp"
	"strings"
	"time"

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
	if q.Kind == core.RequestBudget {
		// The thread's next turn would pass its budget.
		return []choice{{label: "run this turn", response: core.RespAllow},
			{label: "lift the budget", response: core.RespAllowAlways}, {label: "stop", response: core.RespDeny}}
	}
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
