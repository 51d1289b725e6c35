package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// requestDialog shows what a waiting request asks and takes the answer:
// y, a or n for an approval, typed text for a question.
type requestDialog struct {
	req    core.Request // a copy: the projection may move on meanwhile
	thread string       // title of the thread that asks
	run    int          // ordinal of the run that asks
	input  textinput.Model
}

func newRequestDialog(st themes.Styles, q *core.Request, thread string, run int) *requestDialog {
	d := &requestDialog{req: *q, thread: thread, run: run, input: newInput(st, "your answer")}
	if q.Kind == core.RequestUserInput {
		d.input.Focus()
	}
	return d
}

func (d *requestDialog) question() bool { return d.req.Kind == core.RequestUserInput }

func (d *requestDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey && key.Matches(k, keys.CancelDialog) {
		return actClose{}, nil
	}
	if d.question() {
		if isKey && key.Matches(k, keys.Confirm) {
			if strings.TrimSpace(d.input.Value()) == "" {
				return actNone{}, nil
			}
			return actRespond{request: d.req.ID, response: core.RespAnswer, answer: d.input.Value()}, nil
		}
		var cmd tea.Cmd
		d.input, cmd = d.input.Update(msg)
		return actNone{}, cmd
	}
	if !isKey {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.Allow):
		return actRespond{request: d.req.ID, response: core.RespAllow}, nil
	case key.Matches(k, keys.AllowAlways):
		return actRespond{request: d.req.ID, response: core.RespAllowAlways}, nil
	case key.Matches(k, keys.Deny):
		return actRespond{request: d.req.ID, response: core.RespDeny}, nil
	}
	return actNone{}, nil
}

func (d *requestDialog) view(st *themes.Styles, maxW, maxH int) []string {
	title := "Approval " + d.req.ID
	hints := "y allow once · a allow always · n deny · esc later"
	if d.question() {
		title = "Question " + d.req.ID
		hints = "enter answer · esc later"
	}
	if d.req.Kind == core.RequestBudget {
		title, hints = "Budget "+d.req.ID, "y run this turn · a lift the budget · n stop · esc later"
	}
	body := []string{st.Muted.Render(trunc(oneLine(d.thread)+" · run "+itoa(d.run), maxW-4)), ""}
	for _, l := range wrapBody(d.req.Prompt, maxW) {
		body = append(body, st.Request.Render(l))
	}
	if d.question() {
		d.input.SetWidth(max(10, maxW-8))
		body = append(body, "", st.Muted.Render("› ")+d.input.View())
	}
	return dialogFrame(st, title, body, hints, maxW, maxH)
}
