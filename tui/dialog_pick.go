package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

type (
	// actFork: fork a thread at a run (into new thread id, in a worktree
	// of its own when worktree is set), then close.
	actFork struct {
		thread   string
		run      int
		id       string
		worktree *wtChoice
	}
	// actSwitch: move a thread to another provider profile, then close.
	actSwitch struct {
		thread  string
		profile Profile
	}
)

func (actFork) isAction()   {}
func (actSwitch) isAction() {}

// pickItem is one line of a pick dialog.
type pickItem struct {
	label string
	note  string // muted text after the label
}

// pickDialog is a list to choose one item from: up/down move, enter
// picks, esc cancels. pick turns the chosen index into the action.
type pickDialog struct {
	title  string
	intro  string
	items  []pickItem
	cursor int
	top    int
	hints  string
	pick   func(i int) action
	// wide, when set, lets the dialog grow past dialogMaxW to this many
	// cells (as far as the screen allows).
	wide int
}

func (d *pickDialog) maxWidth() int { return max(d.wide, dialogMaxW) }

func (d *pickDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.CancelDialog):
		return actClose{}, nil
	case key.Matches(k, keys.Confirm) && len(d.items) > 0:
		return d.pick(d.cursor), nil
	case key.Matches(k, keys.Up, keys.PrevField):
		d.cursor = max(0, d.cursor-1)
	case key.Matches(k, keys.Down, keys.NextField):
		d.cursor = min(len(d.items)-1, d.cursor+1)
	}
	return actNone{}, nil
}

func (d *pickDialog) view(st *themes.Styles, maxW, maxH int) []string {
	body := introLines(st, d.intro, maxW)
	body = append(body, d.listLines(st, max(20, maxW-4), max(1, maxH-4-len(body)-2))...)
	return dialogFrame(st, d.title, body, d.hints, maxW, maxH)
}

// introLines is a dialog's muted introduction and the blank line after
// it; none without one.
func introLines(st *themes.Styles, intro string, maxW int) []string {
	if intro == "" {
		return nil
	}
	var body []string
	for _, l := range wrapBody(intro, maxW) {
		body = append(body, st.Muted.Render(l))
	}
	return append(body, "")
}

// listLines draws the items in at most room rows of inner cells, scrolled
// so that the cursor shows; the cursor's row is highlighted.
func (d *pickDialog) listLines(st *themes.Styles, inner, room int) []string {
	if d.cursor < d.top {
		d.top = d.cursor
	}
	if d.cursor >= d.top+room {
		d.top = d.cursor - room + 1
	}
	if len(d.items) == 0 {
		return []string{st.Muted.Render("nothing to choose from")}
	}
	var body []string
	for i := d.top; i < len(d.items) && i < d.top+room; i++ {
		it := d.items[i]
		line := "  " + oneLine(it.label)
		if i == d.cursor {
			line = "▸ " + oneLine(it.label)
		}
		if it.note != "" {
			line += " · " + oneLine(it.note)
		}
		line = trunc(line, inner)
		if i == d.cursor {
			line = st.Selected.Render(fit(line, inner))
		} else {
			line = st.Text.Render(line)
		}
		body = append(body, line)
	}
	return body
}

// newSwitchDialog lists the provider profiles to move a thread to; the
// current one is preselected.
func newSwitchDialog(th *core.Thread, profiles []Profile) *pickDialog {
	d := &pickDialog{title: "Switch provider of " + threadTitle(th),
		hints: "enter switch · up/down pick · esc cancel",
		intro: "The thread keeps its runs; the new provider is given a summary of them. Switch between runs, not during one."}
	for i, p := range profiles {
		note := p.Description
		if p.Name == th.Provider {
			note = "current · " + note
			d.cursor = i
		}
		d.items = append(d.items, pickItem{label: p.Name, note: note})
	}
	id := th.ID
	d.pick = func(i int) action { return actSwitch{thread: id, profile: profiles[i]} }
	return d
}

// openSwitch opens the provider dialog for the selected thread.
func (m *Model) openSwitch() tea.Cmd {
	th := m.selectedThread()
	if th == nil {
		return m.setFlash("no thread selected", true)
	}
	m.pushDialog(newSwitchDialog(th, m.opts.Profiles))
	return nil
}
