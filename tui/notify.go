package tui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// NotifyOptions say how the UI tells the person that a thread they are
// not looking at started waiting on a request, failed or finished a run
// (internal/cli fills them from the config's [notify] table). The zero
// value notifies nothing and keeps the title "nexus".
type NotifyOptions struct {
	// Bell rings the terminal bell.
	Bell bool
	// Desktop writes desktop notification sequences (OSC 9, OSC 777, and
	// OSC 99 where the terminal advertises it; wrapped inside tmux).
	Desktop bool
	// Title keeps the terminal title at "nexus · N waiting" while N
	// requests wait.
	Title bool
	// Events are the core.NoticeKinds that notify.
	Events []string
}

// maxDesktopPerFrame bounds the desktop notifications one frame of
// events writes; a burst of failures is not a burst of popups.
const maxDesktopPerFrame = 3

// notifyState is the model's side of notifications.
type notifyState struct {
	term notifyTerm
	// blurred: the terminal reported it lost focus (focus reporting; a
	// terminal that reports nothing counts as focused).
	blurred bool
	// guessed is, per thread, the run whose shell heuristic said its
	// program waits for input (notify_guess.go).
	guessed map[string]string
}

// focusReporting: the view asks the terminal for focus reports only when
// they change what notifies.
func (m *Model) focusReporting() bool {
	n := m.opts.Notify
	return (n.Bell || n.Desktop) && len(n.Events) > 0
}

// windowTitleNow is the title the view sets.
func (m *Model) windowTitleNow() string {
	if !m.opts.Notify.Title {
		return "nexus"
	}
	return windowTitle(len(m.pending))
}

// focusChanged follows the terminal's focus reports.
func (m *Model) focusChanged(msg tea.Msg) {
	_, m.notify.blurred = msg.(tea.BlurMsg)
}

// looking reports whether the person sees thread now: it is selected
// and the terminal has focus.
func (m *Model) looking(thread string) bool {
	return !m.notify.blurred && thread == m.selected
}

// notifyFrame returns the Cmd that notifies about the frame's notices
// the person is not looking at, or nil. It runs before the frame is
// applied, so it skips events the model has already seen.
func (m *Model) notifyFrame(f frameMsg) tea.Cmd {
	n := m.opts.Notify
	if m.state == nil {
		return nil
	}
	var out strings.Builder
	count := 0
	for i := range f.journal {
		ev := &f.journal[i]
		if ev.Seq <= m.state.Seq {
			continue
		}
		m.noteGuess(ev)
		if !(n.Bell || n.Desktop) {
			continue
		}
		no, ok := core.NoticeOf(ev)
		if !ok || !slices.Contains(n.Events, no.Kind) || m.looking(no.Thread) {
			continue
		}
		if count == 0 && n.Bell {
			out.WriteString(bellSeq)
		}
		if count < maxDesktopPerFrame && n.Desktop {
			out.WriteString(desktopSeq("nexus · "+m.noticeThread(no.Thread), noticeBody(no), m.notify.term))
		}
		count++
	}
	if out.Len() == 0 {
		return nil
	}
	return m.raw(out.String())
}

// noticeThread names a thread in a notification.
func (m *Model) noticeThread(id string) string {
	if th := m.state.Threads[id]; th != nil {
		return threadTitle(th)
	}
	return id
}

// noticeBody says what happened, in a line.
func noticeBody(n core.Notice) string {
	if n.Kind == core.NoticeWaiting {
		if n.RequestKind == core.RequestUserInput {
			return "question: " + n.Text
		}
		return "approval: " + n.Text
	}
	return n.Text
}
