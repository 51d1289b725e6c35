package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// composerText is what the composer shows on screen: the line under its
// top edge, without the borders ("" when it shows its placeholder).
func composerText(scr string) (string, bool) {
	lines := strings.Split(scr, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "╭─ Message") && i+1 < len(lines) {
			body := strings.TrimSpace(strings.Trim(strings.TrimSpace(lines[i+1]), "│"))
			if strings.HasPrefix(body, "Write to the agent.") {
				body = ""
			}
			return body, true
		}
	}
	return "", false
}

// waitComposer polls until the composer shows exactly want.
func (tt *tmuxTUI) waitComposer(what, want string) {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := tt.screen()
		if got, ok := composerText(scr); ok && got == want {
			return
		}
		if b, err := os.ReadFile(tt.exitTo); err == nil && len(b) > 0 {
			tt.t.Fatalf("%s: nexus exited (code %s); the screen is:\n%s", what, strings.TrimSpace(string(b)), scr)
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("%s: the composer does not show %q; the screen is:\n%s", what, want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitGone polls until the screen no longer contains s.
func (tt *tmuxTUI) waitGone(s string) {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := tt.screen()
		if !strings.Contains(scr, s) {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %q to leave the screen; the screen is:\n%s", s, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leaveComposer presses esc in the composer and waits until its edge is
// drawn unfocused (its colours change).
func (tt *tmuxTUI) leaveComposer() {
	tt.t.Helper()
	edge := func() string {
		for _, l := range strings.Split(tt.tmux("capture-pane", "-e", "-p", "-t", "main"), "\n") {
			if strings.Contains(l, " Message ") {
				return l
			}
		}
		return ""
	}
	focused := edge()
	tt.keys("Escape")
	deadline := time.Now().Add(30 * time.Second)
	for edge() == focused {
		if time.Now().After(deadline) {
			tt.t.Fatalf("esc did not leave the composer; the screen is:\n%s", tt.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// click sends a left click at column x, row y (1-based) as the terminal
// would with mouse reporting on (SGR encoding).
func (tt *tmuxTUI) click(x, y int) {
	tt.t.Helper()
	tt.text(fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", x, y, x, y))
}

// rowOf is the 1-based screen row of the first line that contains s.
func rowOf(scr, s string) int {
	for i, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// Keys go where they look like they go, in the real binary: the sentences
// that once quit nexus or lost their first letters type into the
// composer whole on the first screen, after esc, after a click on a
// thread and after each dialog closes; nexus keeps running throughout.
func TestTUITypingGoesToTheComposer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.must("thread", "new", "--title", "finished", "--yes")
	e.must("send", done, "list the files")
	asks := e.must("thread", "new", "--title", "asking")
	if r := e.run("send", asks, "write hello to notes.txt"); r.code != 3 {
		t.Fatalf("send a write: exit %d, want 3 (an approval waits); %s", r.code, r.err)
	}
	tt := e.startTUI(t)
	tt.waitFor("asking")

	selectFinished := func() {
		scr := tt.screen()
		if y := rowOf(scr, "finished"); y > 0 {
			tt.click(6, y)
		}
		tt.waitFor("╭─ finished")
	}
	// Each step waits until its dialog is gone before typing: an esc and
	// a letter that reach the terminal in one read are alt+letter there.
	closeOn := func(open, marker string) func() {
		return func() {
			tt.keys(open)
			tt.waitFor(marker)
			tt.keys("Escape")
			tt.waitGone(marker)
		}
	}
	steps := []struct {
		name   string
		before func()
	}{
		{"the first screen", func() {}},
		{"esc", tt.leaveComposer},
		{"a click on a thread", selectFinished},
		{"the help closes", closeOn("F1", "╭─ Keys")},
		{"the new thread dialog closes", closeOn("C-n", "╭─ New thread")},
		{"the jump to the approval", func() { tt.keys("C-o"); tt.waitFor("╭─ Approval") }},
		{"the rollback dialog closes", func() { selectFinished(); closeOn("C-z", "╭─ Roll back finished")() }},
		{"the fork dialog closes", closeOn("C-t", "╭─ Fork finished")},
		{"the diff view closes", func() { selectFinished(); closeOn("C-d", "╭─ Diff · run 1 · finished")() }},
		{"the switch dialog closes", closeOn("C-p", "╭─ Switch provider")},
		{"the palette closes", closeOn("C-k", "╭─ Command palette")},
		{"the thread filter closes", func() {
			tt.leaveComposer()
			closeOn("M-k", "/ ")()
		}},
		{"the grid closes", closeOn("C-g", "grid 2 · 1-2 of 2")},
		{"the cost view closes", closeOn("M-u", "╭─ Cost and tokens")},
		{"the quit dialog closes", closeOn("C-c", "Quit nexus?")},
	}
	for _, s := range steps {
		for _, text := range []string{"quick question", "read README.md and summarize it"} {
			s.before()
			tt.waitFor("╭─ Message")
			tt.text(text)
			tt.waitComposer("typing after "+s.name, text)
			// ctrl+c clears the draft, and nexus stays.
			tt.keys("C-c")
			tt.waitComposer("ctrl+c after "+s.name, "")
		}
	}
}
