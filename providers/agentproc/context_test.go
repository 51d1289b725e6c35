package agentproc

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// bridgeTurn is run 3 of a thread switched back to a provider: it brings
// a delta handoff and a merge-back delta, which the kernel puts last
// before the run's own message.
func bridgeTurn() *core.Turn {
	handoff := "Since your last turn in this thread (run 1), the thread went on with claude:\nuser: two\n"
	transfer := "Merge-back from thread f1: files changed: a.txt"
	return &core.Turn{Text: "three", Reason: core.ReasonInitial, Handoff: handoff, Transfer: transfer,
		Messages: []core.Message{{Role: "user", Text: "one"}, {Role: "assistant", Text: "r1"},
			{Role: "user", Text: "two"}, {Role: "assistant", Text: "r2"},
			{Role: "user", Text: handoff}, {Role: "user", Text: transfer}, {Role: "user", Text: "three"}}}
}

// A session that holds the conversation gets the runs it missed and the
// merge-back with the message: without them it would answer as if the
// other provider's run never happened.
func TestPromptResumedSessionGetsTheBridge(t *testing.T) {
	tu := bridgeTurn()
	got := Prompt(tu, true)
	want := tu.Handoff + "\n\n" + tu.Transfer + "\n\nThe user now says:\nthree"
	if got != want {
		t.Fatalf("prompt =\n%q\nwant\n%q", got, want)
	}
}

// A fresh session gets the history once: the handoff, which restates it,
// is left out; the merge-back delta, which is not history, is kept.
func TestPromptFreshSessionGetsHistoryOnce(t *testing.T) {
	tu := bridgeTurn()
	got := Prompt(tu, false)
	if strings.Count(got, "user: two") != 1 || strings.Contains(got, "Since your last turn") {
		t.Fatalf("history given twice or the handoff restated:\n%s", got)
	}
	if !strings.Contains(got, "user: "+tu.Transfer) || !strings.HasSuffix(got, "The user now says:\nthree") {
		t.Fatalf("merge-back or message missing:\n%s", got)
	}
}
