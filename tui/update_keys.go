package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// wheelLines is how far one mouse wheel notch scrolls the transcript.
const wheelLines = 3

// handleKey routes a key press: the top dialog first, then keys that work
// everywhere, then the focused pane.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if len(m.dialogs) > 0 {
		if _, confirming := m.dialogs[len(m.dialogs)-1].(*confirmDialog); !confirming && key.Matches(k, m.keys.Quit) {
			return m.quit()
		}
		return m.dialogKey(k)
	}
	if m.diff.open {
		return m.diffKey(k)
	}
	if m.termFocused() {
		return m.termKey(k)
	}
	if m.threads.filtering {
		return m.filterKey(k)
	}
	if m.search.open {
		return m.searchKey(k)
	}
	if m.gridShown() {
		if cmd, ok := m.gridKey(k); ok {
			return cmd
		}
	} else if m.grid.zoomed && key.Matches(k, m.keys.GridBack) {
		m.toggleGrid()
		return nil
	}
	if cmd, ok := m.requestBoxKey(k); ok {
		return cmd // a waiting request in the composer area (request_box.go)
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	if cmd, ok := m.termScrollKey(k); ok {
		return cmd // the terminal in the main area scrolls from any pane
	}
	if m.focus != focusComposer && printable(k) {
		// Typing goes where it looks like it goes: the composer, whatever
		// pane had the focus; no printable key is a command here.
		m.setFocus(focusComposer)
		return m.composerKey(k)
	}
	switch m.focus {
	case focusComposer:
		return m.composerKey(k)
	case focusThreads:
		return m.threadsKey(k)
	case focusMain:
		return m.mainKey(k)
	}
	return nil
}

// globalKey handles the keys that work in every pane.
func (m *Model) globalKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.keys.Quit):
		if m.focus == focusComposer && !m.composer.empty() {
			// The crush and Claude Code habit: ctrl+c clears the draft
			// first; on an empty one it quits.
			m.composer.clear()
			m.relayout()
			return m.setFlash("draft cleared (up brings it back); ctrl+c again quits", false), true
		}
		return m.quit(), true
	case key.Matches(k, m.keys.Help):
		m.pushDialog(&helpDialog{keys: m.keys})
	case key.Matches(k, m.keys.NewThread):
		if m.state == nil {
			return m.setFlash("not connected to the host yet", true), true
		}
		return m.openNewThread(), true
	case key.Matches(k, m.keys.Answer):
		return m.openRequest(), true
	case key.Matches(k, m.keys.Palette):
		return m.openPalette(), true
	case key.Matches(k, m.keys.FocusNext):
		m.setFocus((m.focus + 1) % focusCount)
	case key.Matches(k, m.keys.FocusPrev):
		m.setFocus((m.focus + focusCount - 1) % focusCount)
	case key.Matches(k, m.keys.PageUp):
		_, h := m.mainSize()
		m.scroll(-max(1, h-1))
	case key.Matches(k, m.keys.PageDown):
		_, h := m.mainSize()
		m.scroll(max(1, h-1))
	case key.Matches(k, m.keys.NextThread):
		m.moveSelection(1)
	case key.Matches(k, m.keys.PrevThread):
		m.moveSelection(-1)
	case key.Matches(k, m.keys.Interrupt):
		return m.interrupt(), true
	case key.Matches(k, m.keys.Resume):
		return m.resume(), true
	case key.Matches(k, m.keys.Grid):
		m.toggleGrid()
	case key.Matches(k, m.keys.WiderLeft):
		return m.resizeLeft(1), true
	case key.Matches(k, m.keys.NarrowerLeft):
		return m.resizeLeft(-1), true
	case key.Matches(k, m.keys.TallerTodos):
		return m.resizeTodos(1), true
	case key.Matches(k, m.keys.ShorterTodos):
		return m.resizeTodos(-1), true
	case key.Matches(k, m.keys.Fork):
		return m.openFork(), true
	case key.Matches(k, m.keys.Switch):
		return m.openSwitch(), true
	case key.Matches(k, m.keys.Rollback):
		return m.openRollback(), true
	case key.Matches(k, m.keys.Worktree):
		return m.openWorktree(), true
	case key.Matches(k, m.keys.Usage):
		return m.openUsage(), true
	case key.Matches(k, m.keys.Missions):
		return m.openMissions(), true
	case key.Matches(k, m.keys.Team):
		return m.openTeam(), true
	case key.Matches(k, m.keys.Diff):
		return m.openDiff(), true
	case key.Matches(k, m.keys.TermZoom):
		return m.zoomTerm(), true
	case key.Matches(k, m.keys.TermToggle):
		return m.toggleTranscript(), true
	case key.Matches(k, m.keys.Copy):
		return m.copyKey(), true
	case key.Matches(k, m.keys.Search):
		return m.openSearch(), true
	case key.Matches(k, m.keys.EditDraft):
		return m.editDraft(), true
	case key.Matches(k, m.keys.OpenEditor):
		return m.openInEditor(), true
	default:
		return m.threadKey(k)
	}
	return nil, true
}

// composerKey handles keys while typing.
func (m *Model) composerKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Send):
		return m.send(core.ModeAuto)
	case key.Matches(k, m.keys.Queue):
		return m.send(core.ModeQueue)
	case key.Matches(k, m.keys.Restart):
		return m.send(core.ModeRestart)
	case key.Matches(k, m.keys.Leave):
		m.setFocus(focusThreads)
		return nil
	case key.Matches(k, m.keys.ClearDraft):
		if m.composer.empty() {
			return nil
		}
		m.composer.clear()
		m.relayout()
		return m.setFlash("draft cleared (up brings it back)", false)
	case key.Matches(k, m.keys.HistoryPrev) && (m.composer.empty() || m.composer.browsing()):
		m.composer.historyStep(-1)
		m.relayout()
		return nil
	case key.Matches(k, m.keys.HistoryNext) && m.composer.browsing():
		m.composer.historyStep(1)
		m.relayout()
		return nil
	}
	cmd := m.composer.update(k)
	m.relayout()
	return cmd
}

// threadsKey handles the threads list when it has the focus.
func (m *Model) threadsKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Up):
		m.moveSelection(-1)
	case key.Matches(k, m.keys.Down):
		m.moveSelection(1)
	case key.Matches(k, m.keys.Top):
		m.moveSelection(-len(m.rows))
	case key.Matches(k, m.keys.Bottom):
		m.moveSelection(len(m.rows))
	case key.Matches(k, m.keys.Filter):
		m.threads.filtering = true
		m.threads.filter.Focus()
		m.relayout()
	case key.Matches(k, m.keys.Open):
		m.setFocus(focusComposer)
	}
	return nil
}

// printable reports whether a key types text: it has text and no ctrl
// or alt modifier (shift is part of the text).
func printable(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModSuper|tea.ModMeta|tea.ModHyper) == 0
}

// mainKey handles the transcript when it has the focus.
func (m *Model) mainKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Up):
		m.moveCursor(-1)
	case key.Matches(k, m.keys.Down):
		m.moveCursor(1)
	case key.Matches(k, m.keys.Toggle) && m.conv.cursor != "":
		m.toggleFold()
	case key.Matches(k, m.keys.Top):
		m.scrollToTop()
	case key.Matches(k, m.keys.Bottom):
		m.scrollToBottom()
	case key.Matches(k, m.keys.Filter):
		m.setFocus(focusThreads)
		return m.threadsKey(k)
	case key.Matches(k, m.keys.Open):
		m.setFocus(focusComposer)
	}
	return nil
}

// filterKey edits the thread filter; enter keeps it, esc clears it.
func (m *Model) filterKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Confirm):
		m.threads.filtering = false
		m.threads.filter.Blur()
	case key.Matches(k, m.keys.CancelDialog):
		m.threads.filtering = false
		m.threads.filter.Blur()
		m.threads.filter.SetValue("")
	default:
		var cmd tea.Cmd
		m.threads.filter, cmd = m.threads.filter.Update(k)
		if rows := m.visibleRows(); len(rows) > 0 && indexOf(rows, m.selected) < 0 {
			m.selectThread(rows[0].th.ID)
		}
		m.relayout()
		return cmd
	}
	m.relayout()
	return nil
}

// handlePaste sends pasted text to whatever is typing.
func (m *Model) handlePaste(p tea.PasteMsg) tea.Cmd {
	switch {
	case len(m.dialogs) > 0:
		return m.dialogKey(p)
	case m.diff.open:
		return nil // nothing types in the diff view
	case m.threads.filtering:
		var cmd tea.Cmd
		m.threads.filter, cmd = m.threads.filter.Update(p)
		return cmd
	case m.search.open:
		return m.searchPaste(p)
	case m.termFocused():
		m.termPaste(p.Content)
		return nil
	}
	if cmd, ok := m.requestBoxPaste(p); ok {
		return cmd
	}
	m.setFocus(focusComposer)
	cmd := m.composer.paste(p.Content)
	m.relayout()
	return cmd
}

// send submits the composer's text to the selected thread.
func (m *Model) send(mode core.SendMode) tea.Cmd {
	th := m.selectedThread()
	if m.composer.blank() {
		return nil
	}
	if th == nil {
		if m.state == nil {
			return m.setFlash("not connected to the host yet", true)
		}
		// The first screen: enter starts a thread with the default
		// profile in the default workspace, and sends the message to it.
		d := m.composer.take()
		m.relayout()
		p := Profile{Name: "builtin"}
		if len(m.opts.Profiles) > 0 {
			p = m.opts.Profiles[0]
		}
		return m.createAndSend(p, titleFromMessage(d.text), m.opts.Workspace, d, mode)
	}
	d := m.composer.take()
	m.relayout()
	m.scrollToBottom()
	if p := m.terms.panes[th.ID]; p != nil {
		p.follow() // the shell provider types the message into its program
	}
	return m.submitDraft(core.Command{Kind: core.CmdMessageSend, Thread: th.ID, Text: d.text, Mode: mode}, d)
}

// interrupt asks the selected thread's active run to stop.
func (m *Model) interrupt() tea.Cmd {
	th := m.selectedThread()
	if th == nil || m.state.ActiveRun(th.ID) == nil {
		return m.setFlash("nothing to interrupt in this thread", false)
	}
	return m.submit(core.Command{Kind: core.CmdRunInterrupt, Thread: th.ID}, "")
}

// resume continues the selected thread's run that a host restart
// interrupted (run.resume), with a provider_recovery attempt.
func (m *Model) resume() tea.Cmd {
	th := m.selectedThread()
	if th == nil || recoverableRun(m.state, th.ID) == nil {
		return m.setFlash("nothing to resume in this thread", false)
	}
	return m.submit(core.Command{Kind: core.CmdRunResume, Thread: th.ID}, "")
}

// recoverableRun is the run of a thread that a host restart interrupted
// and run.resume would continue, or nil.
func recoverableRun(st *core.State, thread string) *core.Run {
	for _, r := range st.RunsOf(thread) {
		if r.Recoverable && r.Status == core.RunInterrupted {
			return r
		}
	}
	return nil
}

// quit leaves, after asking when work is live. A client of a background
// host leaves it running (and can stop it from the dialog); an inline
// host stops with the UI. Drafts are kept across restarts, so an unsent
// one is no reason to ask.
func (m *Model) quit() tea.Cmd {
	n := m.activeRuns()
	if m.opts.Host {
		terms := 0
		if m.opts.LiveTerminals != nil {
			terms = m.opts.LiveTerminals()
		}
		if n == 0 && terms == 0 {
			return tea.Quit
		}
		var live []string
		if n > 0 {
			live = append(live, itoa(n)+" run(s) active")
		}
		if terms > 0 {
			live = append(live, itoa(terms)+" live terminal(s)")
		}
		text := strings.Join(live, ", ") + ". This UI is the host: quitting stops it; runs are interrupted (`nexus resume` continues them later) and terminals end."
		m.pushDialog(&confirmDialog{title: "Quit nexus?", text: text})
		return nil
	}
	if n == 0 {
		return tea.Quit
	}
	text := itoa(n) + " run(s) active. They keep running in the background host after you quit; `nexus` comes back to them."
	m.pushDialog(&confirmDialog{title: "Quit nexus?", text: text, stopHost: m.opts.StopHost != nil})
	return nil
}

// handleWheel scrolls the pane under the mouse.
func (m *Model) handleWheel(w tea.MouseWheelMsg) {
	mo := w.Mouse()
	delta := 0
	switch mo.Button {
	case tea.MouseWheelUp:
		delta = -1
	case tea.MouseWheelDown:
		delta = 1
	default:
		return
	}
	switch {
	case m.diff.open:
		m.scrollDiff(delta * wheelLines)
	case m.terms.zoom:
		m.wheelTerm(delta)
	case m.lay.threads.contains(mo.X, mo.Y):
		m.moveSelection(delta)
	case !m.mainShowsTerm():
		m.scroll(delta * wheelLines)
	case m.lay.main.contains(mo.X, mo.Y):
		m.wheelTerm(delta)
	}
}

// handleClick focuses the pane under the mouse; a click on a thread
// selects it.
func (m *Model) handleClick(c tea.MouseClickMsg) {
	mo := c.Mouse()
	if len(m.dialogs) > 0 || mo.Button != tea.MouseLeft || m.terms.zoom || m.diff.open {
		return
	}
	if m.gridShown() {
		m.gridClick(mo.X, mo.Y)
		return
	}
	switch {
	case m.lay.threads.contains(mo.X, mo.Y):
		m.setFocus(focusThreads)
		row := mo.Y - m.lay.threads.y - 1
		if m.threads.filtering || m.threads.filter.Value() != "" {
			row--
		}
		if rows := m.visibleRows(); row >= 0 {
			if i := m.threads.top + row/rowHeight; i < len(rows) {
				m.selectThread(rows[i].th.ID)
			}
		}
	case m.lay.main.contains(mo.X, mo.Y):
		m.setFocus(focusMain)
		m.clickMessage(mo.Y)
	case m.lay.composer.contains(mo.X, mo.Y):
		m.setFocus(focusComposer)
	}
}
