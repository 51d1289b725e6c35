package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// rawOut runs cmd and what it batches, and returns what they would write
// to the terminal beyond the frames (tea.Raw), in order.
func rawOut(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		return ""
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return msg.Msg.(string)
	case tea.BatchMsg:
		var b strings.Builder
		for _, c := range msg {
			b.WriteString(rawOut(t, c))
		}
		return b.String()
	}
	return ""
}

// TestNotifyWhenNotLooking: a request, a failure or a finished run of a
// thread the person is not looking at rings the bell and writes a
// desktop notification; one of the selected thread in a focused terminal
// does not; the title counts the waiting requests.
func TestNotifyWhenNotLooking(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "one", core.ThreadIdle, 1, 1*sec)
	j.thread("t2", "two", core.ThreadIdle, 1, 2*sec)
	r1 := j.run("t1", 1, core.RunRunning, "go", 3*sec, 0)
	r2 := j.run("t2", 1, core.RunRunning, "go", 4*sec, 0)
	hs := newHarness(t, j.st.Clone(), 100, 30)
	hs.m.opts.Notify = NotifyOptions{Bell: true, Desktop: true, Title: true, Events: core.NoticeKinds}
	hs.m.selectThread("t1")
	if !hs.m.View().ReportFocus {
		t.Fatal("the view does not ask for focus reports")
	}
	frame := func() string {
		t.Helper()
		from := int(hs.m.state.Seq)
		_, cmd := hs.m.Update(frameMsg{journal: j.events[from:]})
		return rawOut(t, cmd)
	}

	j.request(r2, j.node(r2, 2, core.NodeApproval, "", "approval", ""), "R1", core.RequestApproval, "Run \x1b[31mls\x07?")
	out := frame()
	for _, want := range []string{bellSeq, "\x1b]9;nexus · two: approval: Run ls?\a", "\x1b]777;notify;nexus · two;approval: Run ls?\a"} {
		if !strings.Contains(out, want) {
			t.Errorf("a request of a thread not selected wrote %q, want %q in it", out, want)
		}
	}
	if got := hs.m.View().WindowTitle; got != "nexus · 1 waiting" {
		t.Errorf("title %q, want nexus · 1 waiting", got)
	}

	j.request(r1, j.node(r1, 2, core.NodeApproval, "", "approval", ""), "R2", core.RequestApproval, "Run pwd?")
	if out := frame(); out != "" {
		t.Errorf("a request of the selected thread in a focused terminal wrote %q", out)
	}
	if got := hs.m.View().WindowTitle; got != "nexus · 2 waiting" {
		t.Errorf("title %q, want nexus · 2 waiting", got)
	}

	hs.send(tea.BlurMsg{})
	failed := *r1
	failed.Status, failed.Error, failed.EndedAt = core.RunFailed, "boom", 9*sec
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t1", Run: r1.ID, At: 9 * sec, Payload: core.Payload{Run: &failed}})
	if out := frame(); !strings.Contains(out, bellSeq) || !strings.Contains(out, "run 1 failed: boom") {
		t.Errorf("a failure of the selected thread in an unfocused terminal wrote %q", out)
	}
	hs.send(tea.FocusMsg{})

	for _, id := range []string{"R1", "R2"} {
		q := *j.st.Requests[id]
		q.Status = core.RequestResolved
		j.add(core.Event{Type: core.EvRequestUpdated, Thread: q.Thread, Run: q.Run, Payload: core.Payload{Request: &q}})
	}
	frame()
	if got := hs.m.View().WindowTitle; got != "nexus" {
		t.Errorf("title %q after the answers, want nexus", got)
	}

	hs.m.opts.Notify.Events = []string{core.NoticeWaiting}
	done := *r2
	done.Status, done.EndedAt = core.RunCompleted, 10*sec
	j.add(core.Event{Type: core.EvRunUpdated, Thread: "t2", Run: r2.ID, At: 10 * sec, Payload: core.Payload{Run: &done}})
	if out := frame(); out != "" {
		t.Errorf("a finished run notified though events lists only waiting: %q", out)
	}
	hs.m.opts.Notify = NotifyOptions{}
	if v := hs.m.View(); v.ReportFocus || v.WindowTitle != "nexus" {
		t.Errorf("notifications off: focus reports %v, title %q", v.ReportFocus, v.WindowTitle)
	}
}

// TestGuessedInputMark: a shell thread whose program the provider only
// guesses waits for input is marked apart from a protocol's wait, until
// its next run.
func TestGuessedInputMark(t *testing.T) {
	j := newJournal(t)
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "sh", Payload: core.Payload{Thread: &core.Thread{
		ID: "sh", Title: "shell", Provider: "shell", Caps: core.Capabilities{PTY: true, Steer: true}, Status: core.ThreadIdle, Runs: 1}}})
	r := j.run("sh", 1, core.RunRunning, "apt install x", 3*sec, 0)
	hs := newHarness(t, j.st.Clone(), 100, 30)
	from := int(hs.m.state.Seq)
	j.add(core.Event{Type: core.EvRuntimeWarning, Thread: "sh", Run: r.ID, Payload: core.Payload{Note: "shell" + core.GuessedInputNote + `"Continue? [y/N]"; send the answer as the next message`}})
	hs.send(frameMsg{journal: j.events[from:]})
	hs.expectScreen("a guessed wait", "◇ needs input?")
	if strings.Contains(hs.screen(), "◆ waiting for you") {
		t.Error("a guessed wait shows as a protocol's wait")
	}
	from = int(hs.m.state.Seq)
	th := *j.st.Threads["sh"]
	th.Runs, th.Status = 2, core.ThreadRunning
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "sh", Payload: core.Payload{Thread: &th}})
	hs.send(frameMsg{journal: j.events[from:]})
	if strings.Contains(hs.screen(), "needs input?") {
		t.Error("the guessed wait is still marked after the next run started")
	}
}
