package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// Agent text printed to a terminal is cleaned as the UI cleans it: an
// approval prompt carrying escape sequences (cursor moves that rewrite
// the line, a clipboard write) and a bidi override shows as plain text
// with the override visible; --json to the same terminal stays exact.
func TestCLICleansAgentTextOnATerminal(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NEXUS_CONFIG", "")
	dir := filepath.Join(t.TempDir(), "state")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	run := func(stdout, stderr io.Writer, args ...string) int {
		return Run(ctx, append([]string{"--state-dir", dir}, args...), strings.NewReader(""), stdout, stderr)
	}
	if code := run(&out, &errOut, "thread", "new"); code != ExitOK {
		t.Fatalf("thread new: %d %s", code, errOut.String())
	}
	th := strings.TrimSpace(out.String())
	evil := "#approve ship it\x1b[2K\x1b[1A\x1b]52;c;cm0gLXJmIH4=\x07 now\u202eevil"
	if code := run(&out, &errOut, "send", th, evil); code != ExitWaiting {
		t.Fatalf("send: exit %d %s", code, errOut.String())
	}
	terminal := func(args ...string) string {
		t.Helper()
		master, slave, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer master.Close()
		got := make(chan string)
		go func() {
			b, _ := io.ReadAll(master)
			got <- string(b)
		}()
		code := run(slave, slave, args...)
		slave.Close()
		s := <-got
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %q", args, code, s)
		}
		return s
	}
	show := terminal("thread", "show", th)
	if strings.ContainsAny(show, "\x1b\x07\u202e") || !strings.Contains(show, "<U+202E>") || !strings.Contains(show, "ship it") {
		t.Fatalf("thread show on a terminal printed %q; want the prompt without escapes, the override shown", show)
	}
	js := terminal("thread", "show", th, "--json")
	if !strings.Contains(js, `\u001b[2K`) || !strings.Contains(js, "\u202e") {
		t.Fatalf("thread show --json on a terminal printed %q; want the exact message, JSON-escaped", js)
	}
}
