package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// countRespond is how many request.respond commands were submitted.
func countRespond(hs *harness) int {
	n := 0
	for _, c := range hs.b.submitted() {
		if c.Kind == core.CmdRequestRespond {
			n++
		}
	}
	return n
}

// requestBoxText is the request box's lines on the screen.
func requestBoxText(hs *harness) string {
	var out []string
	in := false
	for _, l := range strings.Split(hs.screen(), "\n") {
		if strings.HasPrefix(l, "╭─ Approval") || strings.HasPrefix(l, "╭─ Question") {
			in = true
		}
		if in {
			out = append(out, l)
			if strings.HasPrefix(l, "╰") {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// questionWith is one thread waiting on a question with prompt.
func questionWith(t *testing.T, prompt string) *core.State {
	j := newJournal(t)
	j.thread("t1", "colours", core.ThreadWaiting, 1, sec)
	r := j.run("t1", 1, core.RunWaiting, "pick", 2*sec, 0)
	n := j.node(r, 2, core.NodeUserInput, "", "question", "")
	j.request(r, n, "R1", core.RequestUserInput, prompt)
	return j.st
}

func TestRequestBoxShowsTheSelectedThreadsRequest(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.expectScreen("the box of t1's approval", "╭─ Approval R1 · run 2 · fix the parser",
		"Allow the built-in agent to write notes.txt?", "1 allow once · 2 allow always · 3 deny",
		"just arrived", "╭─ Message → fix the parser")
	fire[requestArmMsg](hs)
	hs.expectScreen("the armed box", "press 1-3 · alt+m your draft")
	// Another thread has no request: the composer area is the draft only.
	hs.press("alt+down")
	if scr := hs.screen(); strings.Contains(scr, "╭─ Approval") || strings.Contains(scr, "1 allow once") {
		t.Fatalf("a thread with no request shows one in the composer area:\n%s", scr)
	}
	hs.checkScreen(120, 40)
}

func TestApprovalChoicesAnswerByDigit(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want core.Response
	}{{"1", core.RespAllow}, {"2", core.RespAllowAlways}, {"3", core.RespDeny}} {
		hs := newHarness(t, demoState(t), 120, 40)
		fire[requestArmMsg](hs)
		hs.press(tc.key)
		c := hs.lastCmd()
		if c.Kind != core.CmdRequestRespond || c.Request != "R1" || c.Response != tc.want {
			t.Fatalf("%s submitted %+v, want request.respond R1 %s", tc.key, c, tc.want)
		}
		hs.expectScreen("after "+tc.key, "answer sent · waiting for the agent")
		hs.press(tc.key) // a second press while the answer travels answers nothing
		if n := countRespond(hs); n != 1 {
			t.Errorf("%s twice submitted %d answers, want 1", tc.key, n)
		}
	}
	hs := newHarness(t, demoState(t), 120, 40)
	fire[requestArmMsg](hs)
	hs.press("4", "y", "a", "enter")
	if n := countRespond(hs); n != 0 {
		t.Fatalf("4, y, a and enter submitted %d answers; only 1-3 answer an approval", n)
	}
	if got := hs.m.composer.value(); got != "ya" {
		t.Errorf("the letters typed with the box shown: draft %q, want \"ya\"", got)
	}
}

// A key typed in the moment a request appears was meant for the draft:
// digits type into it until the box is armed, enter does not send the
// draft as a steer, and the draft comes back whole once the request is
// answered.
func TestEarlyKeysNeverAnswer(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "busy", core.ThreadRunning, 1, sec)
	r := j.run("t1", 1, core.RunRunning, "write hello to notes.txt #approve", 2*sec, 0)
	hs := newHarness(t, j.st.Clone(), 120, 40)
	hs.typeText("make it 2x")
	n := j.node(r, 2, core.NodeApproval, "", "approval", "")
	j.request(r, n, "R1", core.RequestApproval, "Allow writing notes.txt?")
	hs.send(frameMsg{journal: j.events[len(j.events)-2:]})
	hs.expectScreen("the request that appeared", "╭─ Approval R1", "just arrived")
	hs.typeText(" faster 1 2 3")
	hs.press("enter")
	if n := len(hs.b.submitted()); n != 0 {
		t.Fatalf("keys typed as the request appeared submitted %d commands: %+v", n, hs.b.submitted())
	}
	if got, want := hs.m.composer.value(), "make it 2x faster 1 2 3"; got != want {
		t.Fatalf("draft %q, want %q", got, want)
	}
	// Only the guard's own timer arms it: count, do not wait.
	armed := 0
	for _, m := range hs.timers {
		if a, ok := m.(requestArmMsg); ok && a.id == "R1" {
			armed++
		}
	}
	if armed != 1 {
		t.Fatalf("%d arm timers for R1, want 1", armed)
	}
	fire[requestArmMsg](hs)
	hs.press("1")
	if c := hs.lastCmd(); c.Response != core.RespAllow || countRespond(hs) != 1 {
		t.Fatalf("1 once armed submitted %+v (%d answers), want one allow", c, countRespond(hs))
	}
	q := *j.st.Requests["R1"]
	q.Status, q.Response = core.RequestResolved, core.RespAllow
	j.add(core.Event{Type: core.EvRequestUpdated, Thread: "t1", Run: r.ID, Payload: core.Payload{Request: &q}})
	hs.send(frameMsg{journal: j.events[len(j.events)-1:]})
	if strings.Contains(hs.screen(), "╭─ Approval") {
		t.Fatalf("the box stayed after its request was resolved:\n%s", hs.screen())
	}
	hs.expectScreen("the draft after the answer", "make it 2x faster 1 2 3")
}

func TestQuestionOptionsAnswerByNumber(t *testing.T) {
	hs := newHarness(t, questionWith(t, "Which colour? [red / blue / green]"), 100, 30)
	hs.press("ctrl+o") // asked for: armed at once
	hs.expectScreen("the question's options", "╭─ Question R1", "1 red · 2 blue · 3 green · 4 type an answer…")
	hs.press("2")
	c := hs.lastCmd()
	if c.Kind != core.CmdRequestRespond || c.Response != core.RespAnswer || c.Answer != "blue" {
		t.Fatalf("2 submitted %+v, want the answer \"blue\"", c)
	}
}

func TestQuestionTakesATypedAnswer(t *testing.T) {
	hs := newHarness(t, questionWith(t, "Which colour?"), 100, 30)
	hs.typeText("my draft")
	hs.press("ctrl+o", "enter")
	if n := len(hs.b.submitted()); n != 0 {
		t.Fatalf("enter on the choices submitted %d commands", n)
	}
	hs.press("1")
	hs.expectScreen("typing an answer", "enter sends · esc back to the choices")
	hs.press("enter") // an empty answer is not sent
	hs.typeText("blue 1 y")
	hs.press("esc")
	hs.press("1") // back to the same answer
	hs.checkScreen(100, 30)
	hs.press("enter")
	c := hs.lastCmd()
	if c.Kind != core.CmdRequestRespond || c.Response != core.RespAnswer || c.Answer != "blue 1 y" || countRespond(hs) != 1 {
		t.Fatalf("submitted %+v (%d answers), want one answer \"blue 1 y\"", c, countRespond(hs))
	}
	if got := hs.m.composer.value(); got != "my draft" {
		t.Errorf("typing the answer changed the draft to %q", got)
	}
	// ctrl+c clears the answer, then leaves it: never the draft.
	small := newHarness(t, questionWith(t, "Which colour?"), 40, 12)
	small.typeText("keep me")
	small.press("ctrl+o", "1")
	small.typeText("x")
	small.checkScreen(40, 12)
	small.press("up", "ctrl+u", "alt+down") // the draft's keys do not reach it
	if small.m.composer.value() != "keep me" {
		t.Fatalf("keys while typing an answer changed the draft to %q", small.m.composer.value())
	}
	small.typeText("x")
	small.press("ctrl+c", "ctrl+c")
	if small.quit || small.m.composer.value() != "keep me" || small.m.reqBox.typing {
		t.Errorf("ctrl+c twice while typing an answer: quit %v, draft %q, typing %v; want the draft kept and the choices back",
			small.quit, small.m.composer.value(), small.m.reqBox.typing)
	}
}

func TestDraftKeySwitchesBetweenRequestAndDraft(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("alt+m")
	if strings.Contains(hs.screen(), "╭─ Approval") {
		t.Fatalf("alt+m left the request in the composer area")
	}
	hs.typeText("stop, use the other file")
	hs.press("enter")
	if c := hs.lastCmd(); c.Kind != core.CmdMessageSend || c.Thread != "t1" {
		t.Fatalf("enter on the draft sent %+v, want message.send to t1", c)
	}
	hs.press("alt+m")
	hs.expectScreen("the request back, armed", "╭─ Approval R1", "press 1-3")
	hs.press("3")
	if c := hs.lastCmd(); c.Response != core.RespDeny {
		t.Errorf("3 after alt+m submitted %+v, want deny", c)
	}
}

func TestJumpKeyReachesTheOldestRequestOfAnyThread(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("alt+down", "alt+down")
	if hs.m.selected == "t1" {
		t.Fatal("alt+down did not move off the waiting thread")
	}
	scr := hs.screen()
	if first := strings.SplitN(scr, "\n", 2)[0]; !strings.Contains(first, "waiting for you") || !strings.Contains(first, "ctrl+o") {
		t.Fatalf("no banner naming the key on top:\n%s", scr)
	}
	hs.press("ctrl+o")
	if hs.m.selected != "t1" {
		t.Fatalf("ctrl+o selected %q, want the waiting thread t1", hs.m.selected)
	}
	hs.expectScreen("the jumped-to request", "╭─ Approval R1", "press 1-3")
	hs.press("1")
	if c := hs.lastCmd(); c.Request != "R1" || c.Response != core.RespAllow {
		t.Fatalf("1 after ctrl+o submitted %+v", c)
	}
	empty := newHarness(t, core.NewState(), 80, 24)
	empty.press("ctrl+o")
	empty.expectScreen("ctrl+o with nothing waiting", "nothing is waiting for you")
}

// A long command or diff shows whole, bounded by the box and scrolled
// with its keys; agent text is sanitised; every size lays out.
func TestRequestBoxBoundsAndSanitisesALongPrompt(t *testing.T) {
	var b strings.Builder
	b.WriteString("Allow this patch?\x1b]0;pwned\x07\x1b[2J\n")
	for i := range 60 {
		b.WriteString("+ line " + itoa(i) + "\n")
	}
	j := newJournal(t)
	j.thread("t1", "patch", core.ThreadWaiting, 1, sec)
	r := j.run("t1", 1, core.RunWaiting, "patch", 2*sec, 0)
	n := j.node(r, 2, core.NodeApproval, "", "approval", "")
	j.request(r, n, "R1", core.RequestApproval, b.String())
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {40, 12}} {
		hs := newHarness(t, j.st.Clone(), sz[0], sz[1])
		hs.checkScreen(sz[0], sz[1])
		if v := hs.m.View().Content; strings.Contains(v, "pwned") || strings.Contains(v, "\x1b[2J") {
			t.Fatalf("%dx%d: an escape sequence from the prompt reached the screen", sz[0], sz[1])
		}
		if sz[1] < 24 {
			continue
		}
		hs.expectScreen("the bounded box", "more lines (shift+up/down)", "1 allow once")
		if strings.Contains(requestBoxText(hs), "+ line 59") {
			t.Fatalf("%dx%d: the whole 60-line patch fits; the test needs a longer one:\n%s", sz[0], sz[1], requestBoxText(hs))
		}
		for range 100 {
			hs.press("shift+down")
		}
		if box := requestBoxText(hs); !strings.Contains(box, "+ line 59") || !strings.Contains(box, "1 allow once") {
			t.Fatalf("%dx%d: scrolled to the end, the box shows:\n%s", sz[0], sz[1], box)
		}
		hs.checkScreen(sz[0], sz[1])
	}
}
