package e2e

import (
	"strings"
	"testing"
)

// pendingRequests counts the thread's requests that still wait.
func (e *env) pendingRequests(thread string) int {
	e.t.Helper()
	n := 0
	for _, q := range e.show(thread).Requests {
		if q.Status == "pending" {
			n++
		}
	}
	return n
}

// The tmux acceptance for answering in one key, in the real
// binary: a request on the selected thread shows in the composer area,
// text typed into the composer before it appeared (digits too) stays the
// draft and answers nothing, `1` allows and the run completes, and a
// question's options are answered by their number.
func TestTUIRequestShowsInTheComposerAndOneKeyAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--title", "gate")
	tt := e.startTUI(t)
	tt.waitFor("Message → gate")
	tt.text("draft 1 2 3")
	tt.waitComposer("the draft before the request", "draft 1 2 3")

	// The request comes from elsewhere (the CLI) while the draft waits.
	if r := e.run("send", th, "ship it #approve"); r.code != 3 {
		t.Fatalf("send #approve: exit %d, want 3 (an approval waits); %s", r.code, r.err)
	}
	tt.waitForAll("╭─ Approval", "Allow the built-in agent to go ahead with", "1 allow once · 2 allow always · 3 deny")
	tt.waitFor("press 1-3") // armed
	tt.waitComposer("the draft under the request", "draft 1 2 3")
	if n := e.pendingRequests(th); n != 1 {
		t.Fatalf("%d requests pending after the draft was typed, want 1: the draft answered something", n)
	}

	tt.keys("1")
	tt.waitFor(`[sim] acted on: "ship it"`)
	tt.waitGone("╭─ Approval")
	tt.waitComposer("the draft after the answer", "draft 1 2 3")
	v := e.show(th)
	if len(v.Runs) != 1 || v.Runs[0].Status != "completed" || len(v.Requests) != 1 || v.Requests[0].Response != "allow" {
		t.Fatalf("after 1: runs %+v, requests %+v; want the run completed and the request allowed", v.Runs, v.Requests)
	}

	if r := e.run("send", th, `pick #ask="Which colour? [red / blue]"`); r.code != 3 {
		t.Fatalf("send #ask: exit %d, want 3 (a question waits); %s", r.code, r.err)
	}
	tt.waitForAll("╭─ Question", "1 red · 2 blue · 3 type an answer…", "press 1-3")
	tt.keys("2")
	tt.waitFor(`You answered "blue" to "Which colour? [red / blue]"`)
	tt.waitComposer("the draft after the question", "draft 1 2 3")
	tt.keys("C-u") // nothing runs and no draft: quitting does not ask
	tt.waitComposer("the cleared draft", "")
	tt.quitIdle()
}

// The jump key reaches a request of a thread that is not selected, and
// the command palette finds a thread by name and runs an action.
func TestTUIJumpKeyAndPalette(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gate := e.must("thread", "new", "--title", "gate")
	e.must("thread", "new", "--title", "other")
	tt := e.startTUI(t)
	tt.waitFor("Message → other")
	if r := e.run("send", gate, "ship it #approve"); r.code != 3 {
		t.Fatalf("send #approve: exit %d, want 3; %s", r.code, r.err)
	}
	tt.waitForAll("◆ waiting for you", "ctrl+o to answer")
	if scr := tt.screen(); strings.Contains(scr, "╭─ Approval") {
		t.Fatalf("gate's request shows while other is selected:\n%s", scr)
	}
	tt.keys("C-o")
	tt.waitForAll("Message → gate", "╭─ Approval", "press 1-3")
	tt.keys("3")
	tt.waitFor("Approval was denied")
	if v := e.show(gate); len(v.Requests) != 1 || v.Requests[0].Response != "deny" {
		t.Fatalf("requests after 3: %+v, want one denied", v.Requests)
	}

	tt.keys("C-k")
	tt.waitFor("╭─ Command palette")
	tt.text("other")
	tt.keys("Enter")
	tt.waitFor("Message → other")
	tt.waitGone("╭─ Command palette")
	tt.keys("C-k")
	tt.waitFor("╭─ Command palette")
	tt.text("grid of")
	tt.waitFor("ctrl+g")
	tt.keys("Enter")
	tt.waitFor("grid 2 · 1-2 of 2")
	tt.keys("Escape")
	tt.waitGone("grid 2 · 1-2 of 2")
	tt.quitIdle()
}
