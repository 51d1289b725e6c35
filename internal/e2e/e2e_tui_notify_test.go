package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUINotifiesInBackgroundWindow is the notifications acceptance: the
// UI runs in a tmux window in the background. A thread that is not
// selected starts waiting on an approval: the window's bell flag is set,
// the pane title counts the wait, and what the UI wrote to the terminal
// (pipe-pane) holds the OSC 9 and OSC 777 notifications wrapped for tmux
// passthrough; answering it clears the title. A run of that thread that
// fails notifies too; a request of the selected thread in a terminal that
// reported no loss of focus does not.
func TestTUINotifiesInBackgroundWindow(t *testing.T) {
	e := newEnv(t)
	bg := e.must("thread", "new", "--title", "background work")
	fg := e.must("thread", "new", "--title", "foreground")
	tt := e.startTUI(t)
	const ui = "main:0"
	tt.waitFor("background work")
	tt.waitFor("foreground")
	written := filepath.Join(t.TempDir(), "written")
	tt.tmux("pipe-pane", "-O", "-t", ui, "cat >> "+shellQuote(written))
	tt.tmux("new-window", "-t", "main", "sh") // the UI's window goes to the background
	if w := tt.format("window_index"); w == "0" {
		t.Fatal("the UI's window is still the current one")
	}
	pane := func(name string) string {
		return strings.TrimSpace(tt.tmux("display-message", "-p", "-t", ui, "#{"+name+"}"))
	}
	waitPane := func(what, name, want string) {
		t.Helper()
		eventually(t, what, func() bool { return pane(name) == want })
	}
	out := func() string {
		b, _ := os.ReadFile(written)
		return string(b)
	}
	// clearBell visits the UI's window and comes back, as a person would
	// look at it: tmux clears its bell flag.
	clearBell := func() {
		tt.tmux("select-window", "-t", ui)
		tt.tmux("last-window", "-t", "main")
		waitPane("the bell flag to clear", "window_bell_flag", "0")
	}
	if got := pane("pane_title"); got != "nexus" {
		t.Errorf("the title with nothing waiting is %q, want nexus", got)
	}

	r := e.run("send", bg, "go #approve")
	if r.code != 3 {
		t.Fatalf("send #approve: exit %d, want 3 (waiting): %s", r.code, r.err)
	}
	req := strings.TrimSpace(r.out)
	waitPane("the bell flag of the UI's window", "window_bell_flag", "1")
	waitPane("the title to count the wait", "pane_title", "nexus · 1 waiting")
	const osc9 = "\x1bPtmux;\x1b\x1b]9;nexus · background work: approval: "
	const osc777 = "\x1bPtmux;\x1b\x1b]777;notify;nexus · background work;approval: "
	eventually(t, "the OSC 9 and 777 notifications in what the UI wrote", func() bool {
		return strings.Contains(out(), osc9) && strings.Contains(out(), osc777)
	})

	e.must("respond", req, "--allow")
	waitPane("the title to clear after the answer", "pane_title", "nexus")

	clearBell()
	if r := e.run("send", bg, "oops #fail"); r.code != 1 {
		t.Fatalf("send #fail: exit %d, want 1: %s", r.code, r.err)
	}
	waitPane("the bell flag after a failure", "window_bell_flag", "1")
	eventually(t, "the failure's notification", func() bool {
		return strings.Contains(out(), "\x1b\x1b]9;nexus · background work: run 2 failed")
	})

	clearBell()
	before := strings.Count(out(), "]9;")
	r = e.run("send", fg, "here #approve")
	if r.code != 3 {
		t.Fatalf("send #approve to the selected thread: exit %d, want 3: %s", r.code, r.err)
	}
	waitPane("the title to count the selected thread's wait", "pane_title", "nexus · 1 waiting")
	// The frame that changed the title is the one that would have
	// notified: nothing more is coming for it.
	if n := strings.Count(out(), "]9;"); n != before {
		t.Errorf("a request of the selected thread wrote %d desktop notifications", n-before)
	}
	if f := pane("window_bell_flag"); f != "0" {
		t.Errorf("a request of the selected thread rang the bell (flag %s)", f)
	}
	e.must("respond", strings.TrimSpace(r.out), "--allow")
	waitPane("the title to clear", "pane_title", "nexus")

	tt.tmux("select-window", "-t", ui)
	tt.quitIdle()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
