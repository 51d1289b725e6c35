package tui

import (
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// A shell thread (the PTY provider) has no protocol to say it waits for
// input: the provider guesses it from the look of the program's last
// line and posts a runtime warning (core.GuessedInputNote). The thread
// list marks such a wait "◇ needs input?", apart from the waits an
// agent's protocol reports ("◆ waiting for you", "✎ needs input"), so a
// person knows which to trust. The mark lasts until the thread's next
// run starts; it is not kept across a restart of the UI.

// noteGuess records a guessed wait from a journaled event.
func (m *Model) noteGuess(ev *core.Event) {
	if ev.Type != core.EvRuntimeWarning || ev.Run == "" || !strings.Contains(ev.Payload.Note, core.GuessedInputNote) {
		return
	}
	if m.notify.guessed == nil {
		m.notify.guessed = map[string]string{}
	}
	m.notify.guessed[ev.Thread] = ev.Run
}

// inputGuessed reports whether th's latest run ended on a guessed wait
// for input.
func (m *Model) inputGuessed(th *core.Thread) bool {
	run, ok := m.notify.guessed[th.ID]
	return ok && th.Caps.PTY && th.Status != core.ThreadRunning && run == core.RunID(th.ID, th.Runs)
}

// waitMarkLines explain the thread list's wait marks at the end of the
// help dialog.
func waitMarkLines(st *themes.Styles) []string {
	return []string{"", st.DialogTitle.Render("Waits in the thread list"),
		"  " + st.BadgeWaiting.Render("◆ waiting for you") + "  " + st.KeyDesc.Render("the agent asked for approval (its protocol says so)"),
		"  " + st.BadgeWaiting.Render("✎ needs input") + "      " + st.KeyDesc.Render("the agent asked a question (its protocol says so)"),
		"  " + st.BadgeWaiting.Render("◇ needs input?") + "     " + st.KeyDesc.Render("a shell's program looks like it waits: a guess from its last line"),
	}
}
