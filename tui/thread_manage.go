package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// The selected thread's own keys, from any pane: rename (a dialog with
// its title to edit), archive (asked first; a worktree thread's
// worktree goes with it, as in its worktree dialog) and the list's
// order (thread_order.go).

// threadKey handles the thread keys; false when k is none of them.
func (m *Model) threadKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.SortThreads):
		return m.cycleOrder(), true
	case key.Matches(k, m.keys.RenameThread):
		th := m.selectedThread()
		if th == nil {
			return m.setFlash("no thread to rename", true), true
		}
		m.pushDialog(newRenameDialog(m.st, th))
		return nil, true
	case key.Matches(k, m.keys.ArchiveThread):
		th := m.selectedThread()
		if th == nil {
			return m.setFlash("no thread to archive", true), true
		}
		if th.Worktree != "" && m.opts.Worktrees != nil {
			m.pushDialog(newWorktreeDialog(th)) // popped by the ask
			cmd, _ := m.worktreeAction(actArchiveAsk{thread: th.ID})
			return cmd, true
		}
		m.pushDialog(&askDialog{title: "Archive " + threadTitle(th) + "?", yes: actArchivePlain{thread: th.ID},
			hints: "y/enter archive · n/esc not now",
			text:  "The thread leaves the list (`nexus thread list --all` still shows it); its files and history stay."})
		return nil, true
	}
	return nil, false
}

type (
	// actRename: rename the thread, then close.
	actRename struct{ thread, title string }
	// actArchivePlain: archive a thread that has no worktree.
	actArchivePlain struct{ thread string }
)

func (actRename) isAction()       {}
func (actArchivePlain) isAction() {}

// threadAction carries out the thread dialogs' actions; false when act
// is none of them.
func (m *Model) threadAction(act action) (tea.Cmd, bool) {
	switch a := act.(type) {
	case actRename:
		m.popDialog()
		return m.submit(core.Command{Kind: core.CmdThreadRename, Thread: a.thread, Title: a.title}, ""), true
	case actArchivePlain:
		m.popDialog()
		return tea.Batch(m.setFlash("archived", false),
			m.submit(core.Command{Kind: core.CmdThreadArchive, Thread: a.thread}, "")), true
	}
	return nil, false
}

// renameDialog edits a thread's title: enter renames, esc cancels.
type renameDialog struct {
	thread string
	in     textinput.Model
}

func newRenameDialog(st themes.Styles, th *core.Thread) *renameDialog {
	in := newInput(st, "title")
	in.CharLimit = 200
	in.SetValue(th.Title)
	in.CursorEnd()
	in.Focus()
	return &renameDialog{thread: th.ID, in: in}
}

func (d *renameDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, keys.CancelDialog):
			return actClose{}, nil
		case key.Matches(k, keys.Confirm):
			title := strings.TrimSpace(d.in.Value())
			if title == "" {
				return actNone{}, nil
			}
			return actRename{thread: d.thread, title: title}, nil
		}
	}
	var cmd tea.Cmd
	d.in, cmd = d.in.Update(msg)
	return actNone{}, cmd
}

func (d *renameDialog) view(st *themes.Styles, maxW, maxH int) []string {
	w := clamp(maxW-4, 20, 60)
	d.in.SetWidth(w)
	return dialogFrame(st, "Rename thread", []string{d.in.View()}, "enter rename · esc cancel", maxW, maxH)
}
