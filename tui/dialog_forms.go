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

// Fields of the new thread dialog.
const (
	fieldProvider = iota
	fieldTitle
	fieldWorkspace
	fieldCount
)

// newThreadDialog picks a provider profile, a title and a workspace.
type newThreadDialog struct {
	profiles  []Profile
	choice    int
	field     int
	title     textinput.Model
	workspace textinput.Model
}

func newNewThreadDialog(st themes.Styles, profiles []Profile, workspace string) *newThreadDialog {
	d := &newThreadDialog{profiles: profiles, field: fieldTitle,
		title: newInput(st, "optional title"), workspace: newInput(st, "workspace directory")}
	d.workspace.SetValue(workspace)
	d.title.CharLimit = core.MaxTitleBytes
	d.title.Focus()
	return d
}

func (d *newThreadDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey {
		switch {
		case key.Matches(k, keys.CancelDialog):
			return actClose{}, nil
		case key.Matches(k, keys.Confirm):
			return actCreate{profile: d.profiles[d.choice], title: strings.TrimSpace(d.title.Value()),
				workspace: strings.TrimSpace(d.workspace.Value())}, nil
		case d.field == fieldProvider && key.Matches(k, keys.Up):
			d.choice = max(0, d.choice-1)
			return actNone{}, nil
		case d.field == fieldProvider && key.Matches(k, keys.Down):
			d.choice = min(len(d.profiles)-1, d.choice+1)
			return actNone{}, nil
		case key.Matches(k, keys.NextField):
			d.setField((d.field + 1) % fieldCount)
			return actNone{}, nil
		case key.Matches(k, keys.PrevField):
			d.setField((d.field + fieldCount - 1) % fieldCount)
			return actNone{}, nil
		}
	}
	var cmd tea.Cmd
	switch d.field {
	case fieldTitle:
		d.title, cmd = d.title.Update(msg)
	case fieldWorkspace:
		d.workspace, cmd = d.workspace.Update(msg)
	}
	return actNone{}, cmd
}

func (d *newThreadDialog) setField(f int) {
	d.field = f
	d.title.Blur()
	d.workspace.Blur()
	switch f {
	case fieldTitle:
		d.title.Focus()
	case fieldWorkspace:
		d.workspace.Focus()
	}
}

func (d *newThreadDialog) view(st *themes.Styles, maxW, maxH int) []string {
	inner := max(20, maxW-4)
	label := func(f int, name string) string {
		mark := "  "
		if d.field == f {
			mark = st.Key.Render("› ")
		}
		return mark + st.Text.Render(name)
	}
	body := []string{label(fieldProvider, "Provider")}
	for i, p := range d.profiles {
		line := p.Name
		if p.Description != "" {
			line += " · " + p.Description
		}
		mark := "    "
		if i == d.choice {
			mark = "  ▸ "
		}
		line = trunc(mark+oneLine(line), inner)
		switch {
		case i == d.choice && d.field == fieldProvider:
			line = st.Selected.Render(fit(line, inner))
		case i == d.choice:
			line = st.SelectedBlur.Render(line)
		default:
			line = st.Muted.Render(line)
		}
		body = append(body, line)
	}
	d.title.SetWidth(max(10, inner-14))
	d.workspace.SetWidth(max(10, inner-14))
	body = append(body, "", label(fieldTitle, "Title      ")+d.title.View(),
		label(fieldWorkspace, "Workspace  ")+d.workspace.View())
	return dialogFrame(st, "New thread", body, "enter create · tab next field · up/down provider · esc cancel", maxW, maxH)
}
