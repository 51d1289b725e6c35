package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestTUIClaudeQuestion: a question from the real Claude Code CLI
// (AskUserQuestion, asked through can_use_tool) shows in the TUI, is
// answered there, and the answer reaches Claude: an agent's question
// through the UI.
func TestTUIClaudeQuestion(t *testing.T) {
	needCLI(t, "claude")
	anthropicModel(t)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws, "--title", "asker")

	tt := e.startTUI(t)
	tt.waitFor("asker")
	tt.waitFor("auto: start a run")
	tt.text("ask: Which color?")
	tt.keys("Enter")
	tt.waitFor("question: Which color?")
	tt.waitFor("ctrl+o to answer")
	tt.keys("C-o")
	tt.waitFor("type an answer…")
	tt.keys(typeAnswerKey(t, tt.screen()))
	tt.waitFor("enter sends")
	tt.text("blue")
	tt.keys("Enter")
	tt.waitFor(`"Which color?"="blue"`)
	tt.quitIdle()

	v := e.show(th)
	if len(v.Runs) != 1 || v.Runs[0].Status != "completed" || !strings.Contains(v.Runs[0].Reply, `"Which color?"="blue"`) {
		t.Fatalf("after answering in the TUI, runs = %+v", v.Runs)
	}
	if len(v.Requests) != 1 || v.Requests[0].Kind != "user_input" || v.Requests[0].Status != "resolved" || v.Requests[0].Answer != "blue" {
		t.Errorf("requests = %+v, want the question resolved with blue", v.Requests)
	}
}

// typeAnswerKey is the digit of a request's "type an answer…" choice on
// the screen (after the options the agent offered).
func typeAnswerKey(t *testing.T, scr string) string {
	t.Helper()
	m := regexp.MustCompile(`([1-9]) type an answer…`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no \"type an answer\" choice on the screen:\n%s", scr)
	}
	return m[1]
}
