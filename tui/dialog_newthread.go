package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// Fields of the new thread dialog; the last two only when the UI can
// make worktrees.
const (
	fieldProvider = iota
	fieldTitle
	fieldWorkspace
	fieldWorktree
	fieldBranch
)

// newThreadDialog picks a provider profile, a title, a workspace and
// whether the thread gets a worktree of its own.
type newThreadDialog struct {
	id        string // the new thread's id, chosen now: its branch may be named after it
	profiles  []Profile
	choice    int
	field     int
	fields    int
	title     textinput.Model
	workspace textinput.Model
	wt        wtOption
	checked   string // the workspace the worktree default was decided for
}

func newNewThreadDialog(st themes.Styles, profiles []Profile, workspace string, worktrees bool) *newThreadDialog {
	id := core.NewID("t")
	d := &newThreadDialog{id: id, profiles: profiles, field: fieldTitle, fields: fieldWorkspace + 1,
		title: newInput(st, "optional title"), workspace: newInput(st, "workspace directory"),
		wt: newWTOption(st, branchFor("", id))}
	if worktrees {
		d.fields = fieldBranch + 1
	}
	d.workspace.SetValue(workspace)
	d.title.CharLimit = core.MaxTitleBytes
	d.title.Focus()
	return d
}

// openNewThread opens the dialog and asks which repository holds the
// default workspace, to decide whether a worktree is on by default.
func (m *Model) openNewThread() tea.Cmd {
	d := newNewThreadDialog(m.st, withAgents(m.opts.Profiles, m.state), m.opts.Workspace, m.worktreesOffered())
	m.pushDialog(d)
	if !m.worktreesOffered() {
		return nil
	}
	d.checked = d.workspace.Value()
	return m.checkRepo(d, d.checked)
}

func (d *newThreadDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey {
		switch {
		case key.Matches(k, keys.CancelDialog):
			return actClose{}, nil
		case key.Matches(k, keys.Confirm):
			a := actCreate{id: d.id, profile: d.profiles[d.choice], title: strings.TrimSpace(d.title.Value()),
				workspace: strings.TrimSpace(d.workspace.Value())}
			if d.fields > fieldWorktree {
				a.worktree = d.wt.choice()
			}
			return a, nil
		// Up and down pick the provider from any field, as the hint
		// says: the others are one line each, and the dialog opens on
		// the title (tab and shift+tab move between fields).
		case key.Matches(k, keys.Up):
			d.choice = max(0, d.choice-1)
			return actNone{}, nil
		case key.Matches(k, keys.Down):
			d.choice = min(len(d.profiles)-1, d.choice+1)
			return actNone{}, nil
		case d.field == fieldWorktree && key.Matches(k, keys.ToggleOption):
			d.wt.toggle()
			return actNone{}, nil
		case key.Matches(k, keys.NextField):
			return d.setField((d.field + 1) % d.fields), nil
		case key.Matches(k, keys.PrevField):
			return d.setField((d.field + d.fields - 1) % d.fields), nil
		}
	}
	var cmd tea.Cmd
	switch d.field {
	case fieldTitle:
		before := d.title.Value()
		d.title, cmd = d.title.Update(msg)
		if d.title.Value() != before {
			d.wt.follow(branchFor(d.title.Value(), d.id))
		}
	case fieldWorkspace:
		d.workspace, cmd = d.workspace.Update(msg)
	case fieldBranch:
		before := d.wt.branch.Value()
		d.wt.branch, cmd = d.wt.branch.Update(msg)
		if d.wt.branch.Value() != before {
			d.wt.branchEdited = true
		}
	}
	return actNone{}, cmd
}

// setField moves the focus to field f. Leaving a changed workspace asks
// again whether it is in a repository where a thread works.
func (d *newThreadDialog) setField(f int) action {
	left := d.field
	d.field = f
	d.title.Blur()
	d.workspace.Blur()
	d.wt.branch.Blur()
	switch f {
	case fieldTitle:
		d.title.Focus()
	case fieldWorkspace:
		d.workspace.Focus()
	case fieldBranch:
		d.wt.branch.Focus()
	}
	if ws := strings.TrimSpace(d.workspace.Value()); left == fieldWorkspace && d.fields > fieldWorktree && ws != d.checked {
		d.checked = ws
		d.wt.note = "checking the workspace…"
		return actCheckRepo{dir: ws}
	}
	return actNone{}
}

// repoChecked sets the worktree default: on when the workspace is in a
// git repository where a live thread works.
func (d *newThreadDialog) repoChecked(st *core.State, msg repoCheckedMsg) {
	if msg.dir != d.checked {
		return // the workspace changed since
	}
	switch n := liveIn(st, msg.top); {
	case msg.err != nil:
		d.wt.settle(false, oneLine(msg.err.Error()))
	case msg.top == "":
		d.wt.settle(false, "not a git repository")
	case n == 1:
		d.wt.settle(true, "a thread works in this repository")
	case n > 1:
		d.wt.settle(true, itoa(n)+" threads work in this repository")
	default:
		d.wt.settle(false, "no thread works here yet")
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
		line := choiceLabel(p)
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
	hints := "enter create · tab next field · up/down provider · esc cancel"
	if d.fields > fieldWorktree {
		body = append(body, d.wt.lines(st, label, fieldWorktree, fieldBranch, inner)...)
		hints = "enter create · tab next · space worktree · up/down provider · esc cancel"
	}
	return dialogFrame(st, "New thread", body, hints, maxW, maxH)
}
