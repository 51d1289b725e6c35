package agentproc

import (
	"context"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// stateReader is what the Runner offers besides the Sink: the journal's
// projection. Adapters read a thread's native resume ref from it, since
// the start_turn effect does not carry it (see doc.go).
type stateReader interface {
	State(ctx context.Context) (*core.State, error)
}

// NativeRef returns the resume ref the journal holds for a thread on a
// provider profile ("" when none, or when the sink cannot tell).
func NativeRef(ctx context.Context, sink any, thread, provider string) string {
	sr, ok := sink.(stateReader)
	if !ok {
		return ""
	}
	st, err := sr.State(ctx)
	if err != nil || st == nil {
		return ""
	}
	if pt := st.ProviderThreads[thread+"/"+provider]; pt != nil && pt.Available {
		return pt.NativeRef
	}
	return ""
}

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
