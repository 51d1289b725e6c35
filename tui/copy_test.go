package tui

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// pressRaw delivers a key like press, and returns what the Cmds it
// started wrote to the terminal with tea.Raw (the harness drops those).
func (hs *harness) pressRaw(name string) []string {
	hs.t.Helper()
	_, cmd := hs.m.Update(keyMsg(name))
	var out []string
	var walk func(tea.Cmd)
	walk = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.RawMsg:
			out = append(out, fmt.Sprint(msg.Msg))
		case tea.BatchMsg:
			for _, c := range msg {
				walk(c)
			}
		case nil:
		default:
			hs.send(msg)
		}
	}
	walk(cmd)
	return out
}

var osc52Re = regexp.MustCompile("\x1b\\]52;c;([A-Za-z0-9+/=]*)\x07")

// clipboard decodes the clipboard text of the OSC 52 sequences written,
// failing unless there is exactly one (outside tmux).
func clipboard(t *testing.T, writes []string) string {
	t.Helper()
	all := strings.Join(writes, "")
	m := osc52Re.FindAllStringSubmatch(all, -1)
	if len(m) != 1 || all != m[0][0] {
		t.Fatalf("want exactly one OSC 52 sequence written, got %q", all)
	}
	b, err := base64.StdEncoding.DecodeString(m[0][1])
	if err != nil {
		t.Fatalf("the OSC 52 payload is not base64: %v", err)
	}
	return string(b)
}

// copyState is a thread whose run 1 ran a command (8 lines of output)
// and replied with text that holds an escape sequence and a tab.
func copyState(t *testing.T) (*core.State, string, string) {
	j := newJournal(t)
	j.thread("t1", "copy me", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, "run the tests and tell me", 2*sec, 3*sec)
	out := "ok  pkg/a\nok  pkg/b\n--- FAIL: TestC\n\tc_test.go:9: got 1\nFAIL pkg/c\nline 6\nline 7\nline 8"
	n := j.node(r, 2, core.NodeWorkerStep, core.NodeCompleted, "run_command `go test ./...`", out)
	n.Action = "run_command"
	reply := "The tests \x1b[31mfail\x1b[0m in pkg/c:\n\tTestC got 1.\nFix c.go."
	j.node(r, 3, core.NodeAssistantMessage, core.NodeCompleted, "assistant", reply)
	return j.st, out, reply
}

// The acceptance: copy writes an OSC 52 sequence with the reply's exact
// text (its escape sequence and tab included, which the screen shows
// cleaned), and the status line says so.
func TestCopyWritesOSC52WithTheReplysExactText(t *testing.T) {
	t.Setenv("TMUX", "")
	st, out, reply := copyState(t)
	hs := newHarness(t, st, 100, 30)
	if strings.Contains(hs.m.View().Content, "\x1b[31mfail") {
		t.Fatal("the agent's escape sequence reached the screen")
	}
	if got := clipboard(t, hs.pressRaw("alt+y")); got != reply {
		t.Fatalf("alt+y from the composer copied %q, want the latest reply %q", got, reply)
	}
	hs.expectScreen("status after copying", "copied the reply of run 1 · "+sizeLabel(len(reply)))
	if hs.m.composer.value() != "" || hs.m.focus != focusComposer {
		t.Errorf("copying typed into the composer or moved the focus: %q", hs.m.composer.value())
	}

	// In the transcript the cursor picks: up starts on the last step on
	// screen (the command), up again is the run (its reply).
	hs.press("shift+tab", "up")
	if got := clipboard(t, hs.pressRaw("alt+y")); got != out {
		t.Fatalf("alt+y on the command copied %q, want its output %q", got, out)
	}
	hs.expectScreen("status after copying output", "copied the output of run_command `go test ./...`")
	hs.press("up")
	if got := clipboard(t, hs.pressRaw("alt+y")); got != reply {
		t.Fatalf("alt+y on run 1 copied %q, want its reply", got)
	}
}

// Inside tmux the sequence goes out as is (tmux's set-clipboard) and
// wrapped for passthrough, ESCs doubled.
func TestCopyInsideTmuxIsAlsoWrappedForPassthrough(t *testing.T) {
	t.Setenv("TMUX", "/tmp/tmux-0/default,1,0")
	st, _, reply := copyState(t)
	hs := newHarness(t, st, 100, 30)
	all := strings.Join(hs.pressRaw("alt+y"), "")
	plain := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(reply)) + "\x07"
	wrapped := "\x1bPtmux;\x1b" + plain + "\x1b\\"
	if all != plain+wrapped {
		t.Fatalf("inside tmux wrote %q, want %q", all, plain+wrapped)
	}
}

// A copy is bounded: 1 MiB goes out, cut on a character boundary, and
// the status line says it was cut.
func TestCopyIsBoundedAndSaysSo(t *testing.T) {
	t.Setenv("TMUX", "")
	j := newJournal(t)
	j.thread("t1", "big", core.ThreadIdle, 1, sec)
	r := j.run("t1", 1, core.RunCompleted, "print a lot", 2*sec, 3*sec)
	big := "a" + strings.Repeat("é", maxCopy) // 2 MiB + 1 byte: the cut falls inside an é
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "assistant", big)
	hs := newHarness(t, j.st, 100, 30)
	got := clipboard(t, hs.pressRaw("alt+y"))
	if len(got) != maxCopy-1 || !utf8.ValidString(got) || !strings.HasPrefix(big, got) {
		t.Fatalf("copied %d bytes (valid UTF-8: %v), want the first %d of the reply (the next é would pass 1 MiB)",
			len(got), utf8.ValidString(got), maxCopy-1)
	}
	hs.expectScreen("status after a cut copy", "copied the reply of run 1: only the first 1024 KB of 2.0 MB (1.0 MB at most)")
}

func TestClipKeepsWholeCharacters(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"a😀", 4, "a"}, {"😀", 0, ""},
	} {
		if got := clip(c.in, c.n); got != c.want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// In the diff view the copy key copies the diff, byte for byte.
func TestCopyTheDiff(t *testing.T) {
	t.Setenv("TMUX", "")
	st, _, _ := copyState(t)
	j := &journal{t: t, st: st}
	j.checkpoint("t1", 1, core.CkReady, 0, fc("M", "c.go", 1, 1))
	diff := " M c.go | +1 -1\n 1 file(s) changed, 1 insertion(s), 1 deletion(s)\n\ndiff --git a/c.go b/c.go\n" +
		"--- a/c.go\n+++ b/c.go\n@@ -1 +1 @@\n-return 1\n+return 2\n"
	hs := newHarness(t, j.st, 100, 30)
	hs.m.opts.Diff = func(context.Context, string, int) (string, error) { return diff, nil }
	hs.press("ctrl+d")
	hs.expectScreen("the diff view", "Diff · run 1", "+return 2")
	if got := clipboard(t, hs.pressRaw("alt+y")); got != diff {
		t.Fatalf("alt+y in the diff view copied %q, want the diff %q", got, diff)
	}
	hs.expectScreen("status after copying the diff", "copied the diff of run 1")
}

// Nothing to copy is one line in the status line, and writes nothing.
func TestCopyNothingSaysWhy(t *testing.T) {
	j := newJournal(t)
	j.thread("t1", "quiet", core.ThreadIdle, 1, sec)
	j.run("t1", 1, core.RunRunning, "think", 2*sec, 0)
	hs := newHarness(t, j.st, 100, 30)
	if w := hs.pressRaw("alt+y"); len(w) != 0 {
		t.Fatalf("wrote %q with nothing to copy", w)
	}
	hs.expectScreen("status with nothing to copy", "nothing to copy: no reply in this thread yet")
}
