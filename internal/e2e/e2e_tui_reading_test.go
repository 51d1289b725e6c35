package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// waitFile polls until the file holds want, and returns what it holds.
func (tt *tmuxTUI) waitFile(path, what, want string) string {
	tt.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("%s: %s never held %q; it holds %q; the screen is:\n%s", what, path, want, b, tt.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Copy writes an OSC 52 sequence with the reply's exact text: the bytes
// nexus writes to its terminal (captured with pipe-pane) hold it as is,
// for tmux's set-clipboard, and wrapped for passthrough; tmux, with
// set-clipboard on, puts the reply in its paste buffer, byte for byte.
func TestTUICopyReplyWithOSC52(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes", "--title", "copier")
	e.must("send", th, "list the files")
	reply := e.show(th).Runs[0].Reply
	if reply == "" {
		t.Fatal("run 1 has no reply to copy")
	}

	tt := e.startTUI(t)
	tt.tmux("set-option", "-s", "set-clipboard", "on")
	out := filepath.Join(t.TempDir(), "pane.out")
	tt.tmux("pipe-pane", "-O", "-t", "main", "cat >> "+out)
	tt.waitFor("Threads (1)")
	tt.waitFor(strings.Split(reply, "\n")[0])

	tt.keys("M-y")
	tt.waitFor("copied the reply of run 1")
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(reply)) + "\x07"
	got := tt.waitFile(out, "the plain OSC 52", seq)
	wrapped := "\x1bPtmux;\x1b" + seq + "\x1b\\"
	if !strings.Contains(got, wrapped) {
		t.Errorf("nexus inside tmux wrote no passthrough-wrapped OSC 52 %q", wrapped)
	}
	if buf := tt.tmux("show-buffer"); buf != reply {
		t.Errorf("tmux's paste buffer holds %q, want the reply %q", buf, reply)
	}
	// The key typed nothing into the composer.
	if c, _ := composerText(tt.screen()); c != "" {
		t.Errorf("alt+y typed %q into the composer", c)
	}
	tt.quitIdle()
}

// alt+e hands the terminal to $VISUAL with the draft in a file; what the
// editor leaves in it is the draft when nexus comes back, and enter sends
// it. The editor here is a script that appends to the file.
func TestTUIComposeInEditor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeWS(map[string]string{"README.md": "# demo\n"})
	th := e.must("thread", "new", "--yes", "--title", "writer")
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	seen := filepath.Join(dir, "seen")
	body := "#!/bin/sh\ncp \"$1\" " + shellQuote(seen) + "\nprintf ' and summarize it' >> \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}

	tt := e.startTUIEnv(t, "VISUAL="+script, "EDITOR=")
	tt.waitFor("Threads (1)")
	tt.text("read README.md")
	tt.waitComposer("typing the start", "read README.md")
	tt.keys("M-e")
	tt.waitComposer("after the editor", "read README.md and summarize it")
	tt.waitFor("draft from the editor")
	if b, err := os.ReadFile(seen); err != nil || string(b) != "read README.md" {
		t.Fatalf("the editor was given %q (%v), want the draft", b, err)
	}
	tt.keys("Enter")
	tt.waitFor("run 1 · completed")
	if got := e.show(th).Runs[0].Text; got != "read README.md and summarize it" {
		t.Errorf("run 1 was sent %q, want the draft the editor wrote", got)
	}
	tt.quitIdle()
}

// The search keys reach nexus through a real terminal: alt+/ and ctrl+/
// (sent as ctrl+_) open the box, typing searches, enter steps on, and
// esc gives the typing back to the composer.
func TestTUISearchKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes", "--title", "finder")
	for _, w := range []string{"one", "two", "three"} {
		e.must("send", th, "say zebra "+w)
	}
	tt := e.startTUI(t)
	tt.waitFor("run 3 · completed")
	tt.keys("M-/")
	tt.waitFor("find:")
	tt.text("zebra")
	scr := tt.waitForAll("find: zebra", "match 1 of ")
	m := regexp.MustCompile(`match 1 of (\d+)`).FindStringSubmatch(scr)
	if m == nil || m[1] == "1" {
		t.Fatalf("want a match in each run's message and reply; the screen is:\n%s", scr)
	}
	tt.keys("Up") // before the first: round to the last
	tt.waitFor("match " + m[1] + " of " + m[1] + " (wrapped)")
	tt.keys("Enter") // after the last: round to the first
	tt.waitFor("match 1 of " + m[1] + " (wrapped)")
	tt.keys("Escape")
	tt.waitGone("find:")
	tt.text("x")
	tt.waitComposer("typing after the search box", "x")
	tt.keys("C-u")
	tt.waitComposer("ctrl+u", "")
	tt.keys("C-_")
	tt.waitFor("find: zebra")
	tt.keys("Escape")
	tt.waitGone("find:")
	tt.quitIdle()
}
