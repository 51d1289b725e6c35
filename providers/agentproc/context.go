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
// gets only this run's message; a recovery or restart attempt also gets
// the steering messages and a note that it continues. A fresh session of
// a thread with history gets that history first, as recorded in the
// journal, so nothing hidden is added: every line of it is in `nexus
// thread show`.
func Prompt(t *core.Turn, hasHistory bool) string {
	before, own := RunMessages(t)
	var b strings.Builder
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

// NativeRef is the provider conversation a start_turn effect resumes, as
// the kernel knows it ("" for a new one).
func NativeRef(e core.Effect) string {
	if e.Turn != nil {
		return e.Turn.NativeRef
	}
	return ""
}
