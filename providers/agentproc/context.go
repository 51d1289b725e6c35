package agentproc

import (
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// RunMessages splits a turn's messages into the context before this run
// and this run's own user messages (its text and steering messages).
func RunMessages(t *core.Turn) (before, own []core.Message) {
	msgs := t.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			break
		}
		if msgs[i].Text == t.Text {
			return msgs[:i], msgs[i:]
		}
	}
	return msgs, []core.Message{{Role: "user", Text: t.Text}}
}

// Prompt is the text nexus sends an agent for a turn. A session that
// already holds the conversation (live, or resumed by its native ref)
// gets only this run's message, after the texts the run brings (a
// provider-switch handoff: the runs it missed; a merge-back delta); a
// recovery or restart attempt also gets the steering messages and a note
// that it continues. A fresh session of a thread with history gets that
// history first, as recorded in the journal (a handoff, which only
// restates it, is left out; a merge-back delta is kept), so nothing hidden
// is added: every line of it is in `nexus thread show`.
//
// A thread started as an agent identity (core.Agent) has the agent's
// instructions first in every prompt (AgentPreamble): an external agent's
// conversation is its own, so a section it gets with each turn is the one
// place every agent (Codex, Claude Code, any ACP agent) reads them alike,
// and a changed or resumed conversation never misses them.
func Prompt(t *core.Turn, hasHistory bool) string {
	before, own := RunMessages(t)
	before = dropBridge(before, t)
	var b strings.Builder
	b.WriteString(AgentPreamble(t))
	if hasHistory && (t.Handoff != "" || t.Transfer != "") {
		for _, text := range []string{t.Handoff, t.Transfer} {
			if text != "" {
				b.WriteString(text)
				b.WriteString("\n\n")
			}
		}
		b.WriteString("The user now says:\n")
	}
	if !hasHistory && t.Transfer != "" {
		before = append(before, core.Message{Role: "user", Text: t.Transfer})
	}
	if !hasHistory && len(before) > 0 {
		b.WriteString("Conversation so far (recorded by nexus; you are continuing it):\n")
		for _, m := range before {
			b.WriteString(m.Role)
			b.WriteString(": ")
			b.WriteString(m.Text)
			b.WriteString("\n")
		}
		b.WriteString("\nThe user now says:\n")
	}
	if t.Reason == core.ReasonInitial || len(own) == 0 {
		b.WriteString(t.Text)
		return b.String()
	}
	if t.Reason == core.ReasonProviderRecovery {
		b.WriteString("(nexus: the previous attempt at this request was cut off; continue it.)\n")
	}
	for i, m := range own {
		if i > 0 {
			b.WriteString("\n\nFollow-up: ")
		}
		b.WriteString(m.Text)
	}
	return b.String()
}

// dropBridge takes the run's handoff and transfer messages, which the
// kernel puts last before the run's own, off the history.
func dropBridge(before []core.Message, t *core.Turn) []core.Message {
	for _, text := range []string{t.Transfer, t.Handoff} {
		if n := len(before); text != "" && n > 0 && before[n-1].Role == "user" && before[n-1].Text == text {
			before = before[:n-1]
		}
	}
	return before
}

// NativeRef is the provider conversation a start_turn effect resumes, as
// the kernel knows it ("" for a new one).
func NativeRef(e core.Effect) string {
	if e.Turn != nil {
		return e.Turn.NativeRef
	}
	return ""
}

// Workspace is the directory a start_turn effect's agent runs in ("" for
// the host's own).
func Workspace(e core.Effect) string {
	if e.Turn != nil {
		return e.Turn.Workspace
	}
	return ""
}

// AgentPreamble is the section that carries a turn's agent instructions
// ("" when the thread was not started as an agent, or the agent has none).
func AgentPreamble(t *core.Turn) string {
	if strings.TrimSpace(t.Instructions) == "" {
		return ""
	}
	return "Instructions for you as agent @" + t.Agent + " (from nexus; they hold for every turn):\n" +
		strings.TrimSpace(t.Instructions) + "\n\n"
}
