package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// flashDuration is how long a status-line message stays.
const flashDuration = 6 * time.Second

// clearFlashMsg removes a flash message unless a newer one replaced it.
type clearFlashMsg struct{ id int }

// spinnerFrames turn in the status line while runs are active, so a
// long quiet step still looks alive. Each frame changes one cell.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinInterval is the spinner's frame time. It ticks only while runs
// are active and it is on screen (spin.go); an idle screen writes
// nothing.
const spinInterval = 100 * time.Millisecond

// spinMsg advances the spinner.
type spinMsg struct{}

// startSpinner starts the tick of what moves on screen (spinEvery) if
// something does and it is not ticking yet.
func (m *Model) startSpinner() tea.Cmd {
	d := m.spinEvery()
	if m.spinning || d == 0 {
		return nil
	}
	m.spinning = true
	return m.after(d, spinMsg{})
}

// spin advances the spinner and re-arms the tick while something moving
// is on screen.
func (m *Model) spin() tea.Cmd {
	m.spinning = false
	if m.active == 0 {
		return nil
	}
	m.spinFrame++
	return m.startSpinner()
}

// setFlash shows a message in the status line for a while.
func (m *Model) setFlash(text string, isErr bool) tea.Cmd {
	m.flashID++
	id := m.flashID
	m.flash = flash{text: oneLine(text), isErr: isErr, id: id}
	return m.after(flashDuration, clearFlashMsg{id: id})
}

// bannerText is the top banner: a lost host first, else the oldest
// request waiting for the person. "" hides the banner.
func (m *Model) bannerText() string {
	if m.conn != nil {
		return "✗ lost the host: " + oneLine(m.conn.Error()) + " · reconnecting… (ctrl+c quits)"
	}
	if len(m.pending) == 0 {
		return ""
	}
	q := m.pending[0]
	where := q.Thread
	if th := m.state.Threads[q.Thread]; th != nil {
		where = threadTitle(th)
	}
	kind := "approval"
	if q.Kind == "user_input" {
		kind = "question"
	}
	more := ""
	if n := len(m.pending) - 1; n > 0 {
		more = " (+" + itoa(n) + " more)"
	}
	return "◆ waiting for you" + more + " · " + where + " · " + kind + ": " + oneLine(q.Prompt)
}

func (m *Model) renderBanner(w int) string {
	text := m.bannerText()
	if m.conn != nil {
		return m.st.Banner.Render(fit(text, w))
	}
	hint := " " + m.keys.Answer.Help().Key + " to answer "
	body := fit(" "+text, max(0, w-ansi.StringWidth(hint)))
	return m.st.Banner.Render(body) + m.st.BannerKey.Render(fit(hint, w-ansi.StringWidth(body)))
}

// renderStatus is the bottom line: where the kernel runs, the state dir,
// how many requests wait, then a flash message or key hints.
func (m *Model) renderStatus(w int) string {
	if m.search.open {
		return m.renderSearchBar(w)
	}
	label := m.opts.HostLabel
	if m.opts.HostLabelNow != nil {
		label = m.opts.HostLabelNow()
	}
	left := " " + orDefault(label, "host")
	if n := len(m.pending); n > 0 {
		left += " · ◆ " + itoa(n) + " waiting"
	}
	if n := m.missionsAsking(); n > 0 {
		left += " · ◈ 1 mission needs you (f3)"
		if n > 1 {
			left = strings.TrimSuffix(left, "1 mission needs you (f3)") + itoa(n) + " missions need you (f3)"
		}
	}
	if n := m.activeRuns(); n > 0 {
		left += " · ● " + itoa(n) + " active " + spinnerFrames[m.spinFrame%len(spinnerFrames)]
	}
	if !m.opts.Remote {
		left += " · " + m.opts.StateDir
	}
	left += " "
	st := m.st.Status
	var right string
	if m.flash.text != "" {
		right = " " + m.flash.text + " "
		if m.flash.isErr {
			st = m.st.Error
		}
	} else {
		// The longest hint that leaves the left part whole, else the
		// shortest one.
		for _, h := range m.hints() {
			right = " " + h + " "
			if ansi.StringWidth(left)+ansi.StringWidth(right) <= w {
				break
			}
		}
	}
	lw := ansi.StringWidth(left)
	rw := ansi.StringWidth(right)
	if lw+rw > w {
		// Hints and messages matter more than the state dir's full path.
		left = trunc(left, max(0, w-rw))
		lw = ansi.StringWidth(left)
	}
	gap := max(0, w-lw-rw)
	return m.st.Status.Render(left+strings.Repeat(" ", gap)) + st.Render(trunc(right, w-lw-gap))
}

// hints are the keys that matter most in the current focus, longest
// first.
func (m *Model) hints() []string {
	switch {
	case len(m.dialogs) > 0:
		return []string{"esc close"}
	case m.diff.open:
		return []string{"up/down pgup/pgdn home/end scroll · esc close · f1 help", "esc close"}
	case m.threads.filtering:
		return []string{"enter keep filter · esc clear", "esc clear"}
	case m.gridShown():
		page := m.gridPage()
		n := len(m.visibleRows())
		where := "grid " + itoa(m.grid.size) + " · " + itoa(min(n, page+1)) + "-" + itoa(min(n, page+m.grid.size)) +
			" of " + itoa(n)
		return []string{where + " · arrows move · enter zoom · ctrl+g size · esc close · ? help",
			where + " · enter zoom · esc close", where}
	case m.termFocused():
		return []string{"keys go to the terminal · " + m.keys.TermLeave.Help().Key + " leave it (then " +
			m.keys.TermZoom.Help().Key + " zooms)", m.keys.TermLeave.Help().Key + " leave the terminal"}
	case m.grid.zoomed:
		return []string{"esc back to the grid · enter send · tab panes · f1 help", "esc grid · f1 help", "f1 help"}
	case m.focus == focusComposer && m.mainShowsTerm():
		return []string{"enter send · tab panes · " + m.keys.TermZoom.Help().Key + " zoom the terminal · " +
			m.keys.TermToggle.Help().Key + " transcript · f1 help",
			"tab panes · " + m.keys.TermZoom.Help().Key + " zoom · f1 help", "f1 help"}
	case m.reqBox.id != "" && !m.reqBox.typing:
		return []string{"a number answers the request · " + m.keys.RequestDraft.Help().Key + " your draft · f1 help",
			"a number answers · f1 help", "f1 help"}
	case m.focus == focusComposer:
		return []string{"enter send · tab panes · ctrl+n new · f1 help · ctrl+c quit",
			"tab panes · f1 help · ctrl+c quit", "f1 help"}
	}
	if m.focus == focusMain {
		return []string{"up/down steps · enter open/close · i write · tab panes · ? help · q quit",
			"enter open/close · ? help · q quit", "? help"}
	}
	return []string{"tab panes · / filter · ctrl+n new · ? help · q quit", "tab panes · ? help · q quit", "? help"}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
