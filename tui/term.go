package tui

import (
	"errors"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/nexus-tui/nexus/core"
)

// terms is the model's side of the terminal panes: which threads are
// attached, the zoom, and why a thread shows no terminal. It is owned by
// the event loop; the panes' goroutines report through termDirtyMsg and
// termEndedMsg.
type terms struct {
	// backend is the Backend as core.Terminals; nil when it streams no
	// terminals (then PTY threads show their transcript and say why).
	backend core.Terminals
	// send is program.Send (a no-op until Run sets it).
	send   func(tea.Msg)
	wg     *sync.WaitGroup // the panes' goroutines; Run waits for them
	panes  map[string]*termPane
	nextID int
	// zoom gives the selected thread's terminal the whole screen.
	zoom bool
	// transcript lists the PTY threads the person switched to the
	// transcript; shown lists the threads without a PTY of their own (an
	// ACP agent's) that the person switched to their terminal (ctrl+s):
	// each is the default view's opposite.
	transcript map[string]bool
	shown      map[string]bool
	failed     map[string]*termFailure
	// scrollback is how many lines each pane keeps above its screen; 0
	// or less keeps none.
	scrollback int
}

// termFailure is why a thread's last attach ended. The thread is not
// attached again until its journal moves (a new session event, say) or a
// retry timer fires: no polling.
type termFailure struct {
	seq   uint64 // the thread's activity when it failed
	err   error
	tries int
	retry bool
}

// maxTerms bounds the attached panes: the selected thread's, then the
// shell threads in view in the grid.
const maxTerms = 4

// termRetryDelay is the first retry after "no terminal" while the
// thread's session is live (it may be starting); it doubles, 3 times.
const (
	termRetryDelay = 250 * time.Millisecond
	termRetries    = 3
)

// termRetryMsg lets a failed thread attach again.
type termRetryMsg struct{ thread string }

// DefaultScrollback is how many lines a terminal pane keeps above its
// screen unless Options.Scrollback says otherwise.
const DefaultScrollback = 10_000

func newTerms(b Backend, scrollback int) terms {
	if scrollback == 0 {
		scrollback = DefaultScrollback
	}
	t := terms{send: func(tea.Msg) {}, wg: &sync.WaitGroup{}, panes: map[string]*termPane{}, transcript: map[string]bool{},
		shown: map[string]bool{}, failed: map[string]*termFailure{}, scrollback: scrollback}
	t.backend, _ = b.(core.Terminals)
	return t
}

// sessionLive reports whether the thread's provider session is up, so
// its PTY may be.
func (m *Model) sessionLive(thread string) bool {
	s := m.state.Sessions[core.SessionID(thread)]
	if s == nil {
		return false
	}
	switch s.State {
	case core.SessStopped, core.SessFailed, "":
		return false
	}
	return true
}

// termWanted reports whether a thread's terminal should be attached and
// shown: its session is live, the backend streams terminals, and either
// its provider has a PTY and the person did not switch to the transcript,
// or it has none (an ACP agent, whose commands may run in terminals) and
// the person switched to its terminal.
func (m *Model) termWanted(th *core.Thread) bool {
	if th == nil || m.terms.backend == nil || !m.sessionLive(th.ID) {
		return false
	}
	if th.Caps.PTY {
		return !m.terms.transcript[th.ID]
	}
	return m.terms.shown[th.ID]
}

// termBlocked: the thread's last attach failed and nothing changed since.
func (m *Model) termBlocked(thread string) bool {
	f := m.terms.failed[thread]
	return f != nil && !f.retry && f.seq == m.activity[thread]
}

// mainShowsTerm reports whether the main area shows the selected
// thread's terminal (instead of its transcript).
func (m *Model) mainShowsTerm() bool {
	th := m.selectedThread()
	return !m.gridShown() && m.termWanted(th) && m.terms.panes[th.ID] != nil
}

// termFocused reports whether keys go to the selected thread's terminal.
func (m *Model) termFocused() bool {
	return m.terms.zoom || (m.focus == focusMain && m.mainShowsTerm())
}

// wantedTerms lists the threads to attach, most important first.
func (m *Model) wantedTerms() []string {
	var out []string
	add := func(th *core.Thread) {
		if len(out) < maxTerms && m.termWanted(th) && !m.termBlocked(th.ID) && indexOfString(out, th.ID) < 0 {
			out = append(out, th.ID)
		}
	}
	if m.terms.zoom || !m.gridShown() {
		add(m.selectedThread())
		return out
	}
	rows := m.visibleRows()
	add(m.selectedThread())
	for i := m.gridPage(); i < len(rows) && i < m.gridPage()+m.grid.size; i++ {
		add(rows[i].th)
	}
	return out
}

func indexOfString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// termSize is the size a thread's pane is drawn at, or 0 x 0 when it
// does not drive its PTY's size (a grid cell shows the PTY as it is).
func (m *Model) termSize(thread string) (cols, rows int) {
	switch {
	case thread != m.selected:
		return 0, 0
	case m.terms.zoom:
		return m.lay.zoom.w, m.lay.zoom.h
	case m.gridShown():
		return 0, 0
	}
	return m.lay.main.w - 2, m.lay.main.h - 2
}

// syncTerms attaches the panes the screen shows and detaches the others,
// and hands each its size. Update calls it after every message; it only
// starts goroutines, cancels contexts and stores sizes, so it never
// blocks.
func (m *Model) syncTerms() {
	t := &m.terms
	if t.backend == nil || m.state == nil {
		return
	}
	for id := range t.shown {
		if !m.sessionLive(id) {
			delete(t.shown, id) // its terminals ended with the session
		}
	}
	want := m.wantedTerms()
	for id, p := range t.panes {
		if indexOfString(want, id) < 0 {
			p.stop()
			delete(t.panes, id)
		}
	}
	if t.zoom && t.panes[m.selected] == nil && indexOfString(want, m.selected) < 0 {
		t.zoom = false // the terminal went away: back to the normal view
		m.relayout()
	}
	for _, id := range want {
		if t.panes[id] == nil {
			t.nextID++
			cols, rows := m.termSize(id)
			t.panes[id] = startTermPane(m.ctx, t.wg, t.backend, t.send, id, t.nextID, cols, rows, t.scrollback)
		}
	}
	for id, p := range t.panes {
		p.setSize(m.termSize(id))
	}
}

// termMsg handles the panes' messages.
func (m *Model) termMsg(msg tea.Msg) tea.Cmd {
	t := &m.terms
	switch msg := msg.(type) {
	case termDirtyMsg:
		if p := t.panes[msg.thread]; p != nil && p.id == msg.id {
			p.dirty.Store(false)
			delete(t.failed, msg.thread) // it works: later failures retry afresh
			if p == m.scrollPane() {
				// Keep how far above the cursor the view is, for a rebuild.
				p.scroll = p.scroll.at(p.snap.Load(), m.termViewHeight())
			}
		}
	case termEndedMsg:
		p := t.panes[msg.thread]
		if p == nil || p.id != msg.id {
			return nil // a detached pane's late news
		}
		p.stop()
		delete(t.panes, msg.thread)
		if th := m.threadOf(msg.thread); th != nil && !th.Caps.PTY {
			return m.agentTermEnded(th, msg.err)
		}
		f := t.failed[msg.thread]
		if f == nil {
			f = &termFailure{}
			t.failed[msg.thread] = f
		}
		f.seq, f.err, f.retry = m.activity[msg.thread], msg.err, false
		f.tries++
		if errors.Is(msg.err, core.ErrNoTerminal) && m.sessionLive(msg.thread) && f.tries <= termRetries {
			return m.after(termRetryDelay<<(f.tries-1), termRetryMsg{thread: msg.thread})
		}
	case termRetryMsg:
		if f := t.failed[msg.thread]; f != nil {
			f.retry = true
		}
	}
	return nil
}

// termKey handles a key while the terminal has the keys: the leave key
// leaves (the zoom, else the pane), the scroll keys scroll it; every
// other key goes to the child and takes the view back to the bottom.
func (m *Model) termKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.TermLeave) {
		if m.terms.zoom {
			m.terms.zoom = false
			m.relayout()
		} else {
			m.setFocus(focusComposer)
		}
		return nil
	}
	if cmd, ok := m.termScrollKey(k); ok {
		return cmd
	}
	if p := m.terms.panes[m.selected]; p != nil {
		p.follow()
		p.input(termInput{key: uv.KeyPressEvent(k), isKey: true})
	}
	return nil
}

// termPaste sends a paste to the focused terminal (bracketed when the
// child asked for bracketed paste) and takes its view to the bottom.
func (m *Model) termPaste(text string) {
	if p := m.terms.panes[m.selected]; p != nil {
		p.follow()
		p.input(termInput{paste: text})
	}
}

// zoomTerm gives the selected thread's terminal the whole screen.
func (m *Model) zoomTerm() tea.Cmd {
	th := m.selectedThread()
	if th == nil || !m.termWanted(th) || m.terms.panes[th.ID] == nil {
		return m.setFlash(m.noTermReason(th), true)
	}
	m.terms.zoom = true
	m.relayout()
	return nil
}

// toggleTranscript switches a thread's main area between its terminal
// and its transcript.
func (m *Model) toggleTranscript() tea.Cmd {
	th := m.selectedThread()
	if th == nil {
		return m.setFlash(m.noTermReason(th), true)
	}
	if !th.Caps.PTY {
		return m.toggleAgentTerm(th)
	}
	m.terms.transcript[th.ID] = !m.terms.transcript[th.ID]
	m.relayout()
	return nil
}

// threadOf is a thread of the state, nil if unknown.
func (m *Model) threadOf(id string) *core.Thread {
	if m.state == nil {
		return nil
	}
	return m.state.Threads[id]
}

// toggleAgentTerm switches a thread without a PTY of its own between its
// transcript (the default) and its terminal: the one its agent last ran
// a command in. Whether there is one shows only when it attaches (no
// polling): a failure switches back and says why (agentTermEnded).
func (m *Model) toggleAgentTerm(th *core.Thread) tea.Cmd {
	switch {
	case m.terms.shown[th.ID]:
		delete(m.terms.shown, th.ID)
	case m.terms.backend == nil:
		return m.setFlash(m.noTermReason(th), true)
	case !m.sessionLive(th.ID):
		return m.setFlash(noAgentTermYet(th), false)
	default:
		m.terms.shown[th.ID] = true
	}
	m.relayout()
	return nil
}

// agentTermEnded switches a thread without a PTY of its own back to its
// transcript when its terminal could not be attached or went away, and
// says why in the status line. It is not retried: the person asks again.
func (m *Model) agentTermEnded(th *core.Thread, err error) tea.Cmd {
	delete(m.terms.shown, th.ID)
	delete(m.terms.failed, th.ID)
	m.relayout()
	switch {
	case errors.Is(err, core.ErrNoTerminal):
		return m.setFlash(noAgentTermYet(th), false)
	case errors.Is(err, core.ErrTerminalExited):
		return m.setFlash("terminal closed: the "+th.Provider+" session ended", false)
	}
	return m.setFlash("no terminal: "+oneLine(err.Error()), true)
}

// noAgentTermYet is why a thread without a PTY of its own shows no
// terminal: its agent has run no command in one in this session.
func noAgentTermYet(th *core.Thread) string {
	return "no terminal yet: " + th.Provider + " has run no command in a terminal"
}
