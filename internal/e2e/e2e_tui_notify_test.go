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
	tt.waitFor("background work")
	tt.waitFor("foreground")
	w := watchUI(tt)
	pane, waitPane, out, clearBell := w.pane, w.waitPane, w.written, w.clearBell
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

	w.quit()
}

// uiWatch watches the UI's tmux window (main:0) from the background:
// another window is the current one, and what the UI writes to its
// terminal is captured with pipe-pane.
type uiWatch struct {
	t    *testing.T
	tt   *tmuxTUI
	file string
}

const uiWindow = "main:0"

func watchUI(tt *tmuxTUI) *uiWatch {
	tt.t.Helper()
	w := &uiWatch{t: tt.t, tt: tt, file: filepath.Join(tt.t.TempDir(), "written")}
	tt.tmux("pipe-pane", "-O", "-t", uiWindow, "cat >> "+shellQuote(w.file))
	tt.tmux("new-window", "-t", "main", "sh") // the UI's window goes to the background
	if tt.format("window_index") == "0" {
		tt.t.Fatal("the UI's window is still the current one")
	}
	return w
}

// pane reads a format variable of the UI's pane.
func (w *uiWatch) pane(name string) string {
	return strings.TrimSpace(w.tt.tmux("display-message", "-p", "-t", uiWindow, "#{"+name+"}"))
}

func (w *uiWatch) waitPane(what, name, want string) {
	w.t.Helper()
	eventually(w.t, what, func() bool { return w.pane(name) == want })
}

// written is what the UI wrote to its terminal so far.
func (w *uiWatch) written() string {
	b, _ := os.ReadFile(w.file)
	return string(b)
}

// clearBell visits the UI's window and comes back, as a person would
// look at it: tmux clears its bell flag.
func (w *uiWatch) clearBell() {
	w.t.Helper()
	w.tt.tmux("select-window", "-t", uiWindow)
	w.tt.tmux("last-window", "-t", "main")
	w.waitPane("the bell flag to clear", "window_bell_flag", "0")
}

// quit brings the UI's window back and quits the UI.
func (w *uiWatch) quit() {
	w.t.Helper()
	w.tt.tmux("select-window", "-t", uiWindow)
	w.tt.quitIdle()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
