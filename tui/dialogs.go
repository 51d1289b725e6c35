package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// dialog is a modal on the root model's stack. It gets the keys while it
// is on top and returns a typed action for the root to carry out; it never
// submits anything itself.
type dialog interface {
	// update handles a key or paste and says what should happen.
	update(msg tea.Msg, keys KeyMap) (action, tea.Cmd)
	// view renders the dialog: lines of equal width, at most maxW wide
	// and maxH high.
	view(st *themes.Styles, maxW, maxH int) []string
}

// action is what a dialog asks the root model to do.
type action interface{ isAction() }

type (
	// actNone: keep the dialog open, nothing to do.
	actNone struct{}
	// actClose: pop the dialog.
	actClose struct{}
	// actCreate: create a thread (in a worktree of its own when
	// worktree is set), then close.
	actCreate struct {
		id               string
		profile          Profile
		title, workspace string
		worktree         *wtChoice
	}
	// actCheckRepo: keep the dialog open and tell it whether dir is in a
	// git repository (repoCheckedMsg).
	actCheckRepo struct{ dir string }
	// actQuit: leave the program; stopHost: stop the background host
	// first.
	actQuit struct{ stopHost bool }
)

func (actNone) isAction()      {}
func (actClose) isAction()     {}
func (actCreate) isAction()    {}
func (actCheckRepo) isAction() {}
func (actQuit) isAction()      {}

// pushDialog opens a dialog on top of the stack.
func (m *Model) pushDialog(d dialog) {
	m.dialogs = append(m.dialogs, d)
}

func (m *Model) popDialog() {
	if len(m.dialogs) > 0 {
		m.dialogs = m.dialogs[:len(m.dialogs)-1]
	}
}

// dialogKey routes a message to the top dialog and carries out its action.
func (m *Model) dialogKey(msg tea.Msg) tea.Cmd {
	d := m.dialogs[len(m.dialogs)-1]
	act, cmd := d.update(msg, m.keys)
	switch a := act.(type) {
	case actClose:
		m.popDialog()
	case actCreate:
		m.popDialog()
		create := m.createThread(a.id, a.profile, a.title, a.workspace, a.worktree)
		if a.worktree != nil {
			return tea.Batch(cmd, m.setFlash("making the thread's worktree…", false), create)
		}
		return tea.Batch(cmd, create)
	case actCheckRepo:
		return tea.Batch(cmd, m.checkRepo(d, a.dir))
	case actPalette:
		m.popDialog()
		return tea.Batch(cmd, m.runPalette(a.entry))
	case actFork:
		m.popDialog()
		return tea.Batch(cmd, m.fork(a))
	case actSwitch:
		m.popDialog()
		return tea.Batch(cmd, m.submit(core.Command{Kind: core.CmdProviderSwitch, Thread: a.thread,
			Provider: a.profile.Name, Caps: a.profile.Caps}, ""))
	case actRollback:
		m.popDialog()
		return tea.Batch(cmd, m.submit(a.command(), ""))
	case actMark:
		return tea.Batch(cmd, m.submit(core.Command{Kind: core.CmdCheckpoint, Thread: a.thread}, ""),
			m.setFlash("marking the workspace…", false))
	case actQuit:
		m.popDialog()
		if a.stopHost && m.opts.StopHost != nil {
			stop := m.opts.StopHost
			ctx := m.ctx
			return tea.Sequence(func() tea.Msg {
				_ = stop(ctx) // the host closes in order; its error has nowhere to go once quit
				return nil
			}, tea.Quit)
		}
		return tea.Quit
	default:
		if c, ok := m.threadAction(act); ok {
			return tea.Batch(cmd, c)
		}
		if c, ok := m.worktreeAction(act); ok {
			return tea.Batch(cmd, c)
		}
		if c, ok := m.missionAction(act); ok {
			return tea.Batch(cmd, c)
		}
		if c, ok := m.teamAction(act); ok {
			return tea.Batch(cmd, c)
		}
	}
	return cmd
}

// closeSettledDialogs brings rollback dialogs up to date after the
// journal moved, and closes those with nothing left to do.
func (m *Model) closeSettledDialogs() {
	kept := m.dialogs[:0]
	for _, d := range m.dialogs {
		if rd, ok := d.(*rollbackDialog); ok && !rd.refresh(m.state) {
			continue
		}
		kept = append(kept, d)
	}
	m.dialogs = kept
}

// dialogFrame draws a dialog: a titled border around body lines, with a
// line of key hints at the bottom.
func dialogFrame(st *themes.Styles, title string, body []string, hints string, maxW, maxH int) []string {
	w := 0
	for _, l := range body {
		w = max(w, ansi.StringWidth(l))
	}
	w = clamp(max(w, ansi.StringWidth(title)+4, ansi.StringWidth(hints))+4, 20, max(20, maxW))
	inner := w - 4
	lines := make([]string, 0, len(body)+2)
	lines = append(lines, body...)
	if hints != "" {
		lines = append(lines, "", st.Muted.Render(trunc(hints, inner)))
	}
	h := clamp(len(lines)+2, 3, max(3, maxH))
	return frame(st.DialogBorder, st.DialogTitle, title, "", w, h, lines)
}

// wrapBody wraps text for a dialog of at most maxW cells.
func wrapBody(text string, maxW int) []string {
	return wrap(text, max(10, maxW-4))
}

// confirmDialog asks a yes/no question; yes quits. stopHost adds a
// third answer: s stops the background host too, then quits.
type confirmDialog struct {
	title    string
	text     string
	stopHost bool
}

func (d *confirmDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.Allow, keys.Confirm, keys.Quit):
		return actQuit{}, nil
	case d.stopHost && key.Matches(k, keys.StopHost):
		return actQuit{stopHost: true}, nil
	case key.Matches(k, keys.Deny, keys.CancelDialog, keys.QuitIdle):
		return actClose{}, nil
	}
	return actNone{}, nil
}

func (d *confirmDialog) view(st *themes.Styles, maxW, maxH int) []string {
	hint := "y/enter quit · n/esc stay"
	if d.stopHost {
		hint = "y/enter quit · s stop the host too · n/esc stay"
	}
	return dialogFrame(st, d.title, wrapBody(d.text, maxW), hint, maxW, maxH)
}

// helpDialog lists every key of the KeyMap, grouped; it scrolls.
type helpDialog struct {
	keys KeyMap
	top  int
}

func (d *helpDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.CancelDialog, keys.Help, keys.HelpIdle, keys.QuitIdle, keys.Confirm):
		return actClose{}, nil
	case key.Matches(k, keys.Down, keys.PageDown):
		d.top++
	case key.Matches(k, keys.Up, keys.PageUp):
		d.top = max(0, d.top-1)
	}
	return actNone{}, nil
}

// helpLines renders the KeyMap: one line per binding.
func helpLines(st *themes.Styles, keys KeyMap) []string {
	var out []string
	keyW := 0
	for _, g := range keys.groups() {
		for _, b := range g.bindings {
			keyW = max(keyW, ansi.StringWidth(b.Help().Key))
		}
	}
	for i, g := range keys.groups() {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, st.DialogTitle.Render(g.title))
		for _, b := range g.bindings {
			h := b.Help()
			pad := strings.Repeat(" ", keyW-ansi.StringWidth(h.Key))
			out = append(out, "  "+st.Key.Render(h.Key)+pad+"  "+st.KeyDesc.Render(h.Desc))
		}
	}
	return append(out, waitMarkLines(st)...)
}

func (d *helpDialog) view(st *themes.Styles, maxW, maxH int) []string {
	body, hints := scrollPage(helpLines(st, d.keys), &d.top, maxH)
	return dialogFrame(st, "Keys", body, hints, maxW, maxH)
}

// scrollPage is the page of all lines that a scrolling dialog of at most
// maxH rows shows from *top (kept in range), and its hints.
func scrollPage(all []string, top *int, maxH int) ([]string, string) {
	room := max(1, maxH-4)
	*top = clamp(*top, 0, max(0, len(all)-room))
	if len(all) > room {
		return all[*top:min(len(all), *top+room)], "up/down scroll · esc close"
	}
	return all, "esc close"
}
