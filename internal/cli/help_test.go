package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every subcommand's --help lists its usage and flags on stdout and exits
// 0; nexus --version prints the version.
func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"send", "--help"}, []string{"usage: nexus send THREAD", "-mode", "-no-wait"}},
		{[]string{"respond", "-h"}, []string{"usage: nexus respond REQUEST", "-allow", "-deny", "-answer"}},
		{[]string{"thread", "show", "--help"}, []string{"usage: nexus thread show THREAD", "-json"}},
		{[]string{"host", "stop", "--help"}, []string{"usage: nexus host stop", "-force"}},
		{[]string{"--version"}, []string{"nexus " + "0."}},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut)
		if code != ExitOK || errOut.Len() != 0 {
			t.Errorf("nexus %v: exit %d, stderr %q; want 0 and nothing", tc.args, code, errOut.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("nexus %v printed %q; want %q in it", tc.args, out.String(), w)
			}
		}
	}
}

// send - with a message over the limit says its real size, before any
// host is involved.
func TestSendStdinTooLongSaysItsSize(t *testing.T) {
	var out, errOut bytes.Buffer
	msg := strings.Repeat("a", 380000)
	code := Run(context.Background(), []string{"--state-dir", t.TempDir(), "send", "t1", "-"}, strings.NewReader(msg), &out, &errOut)
	if code != ExitUsage || !strings.Contains(errOut.String(), "380000 bytes, over the limit of 262144") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming 380000 bytes", code, errOut.String())
	}
}

// log -n N prints the journal's last N events; --since a time to come
// prints none; a bad --since is a usage error.
func TestLogLastAndSince(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	nexus := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"--state-dir", dir}, args...), strings.NewReader(""), &out, &errOut)
		return out.String() + errOut.String(), code
	}
	if _, code := nexus("thread", "new"); code != ExitOK {
		t.Fatal("thread new failed")
	}
	nexus("thread", "new")
	all, _ := nexus("log")
	if n := strings.Count(all, "\n"); n < 4 {
		t.Fatalf("log printed %d lines: %q", n, all)
	}
	last, code := nexus("log", "-n", "2")
	lines := strings.Split(strings.TrimRight(all, "\n"), "\n")
	if code != ExitOK || strings.TrimRight(last, "\n") != strings.Join(lines[len(lines)-2:], "\n") {
		t.Fatalf("log -n 2 = %q (exit %d); want the last two of %q", last, code, all)
	}
	if out, code := nexus("log", "--since", "2999-01-01T00:00:00Z"); code != ExitOK || out != "" {
		t.Fatalf("log --since a time to come = %q (exit %d)", out, code)
	}
	if out, code := nexus("log", "--since", "soon"); code != ExitUsage || !strings.Contains(out, "--since") {
		t.Fatalf("log --since soon = %q (exit %d)", out, code)
	}
}

// A THREAD argument may be a unique prefix of an id or an exact title;
// one that matches several threads is a usage error naming them.
func TestThreadArgument(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	nexus := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"--state-dir", dir}, args...), strings.NewReader(""), &out, &errOut)
		return strings.TrimSpace(out.String()), errOut.String(), code
	}
	a, _, _ := nexus("thread", "new", "--title", "alpha")
	b, _, _ := nexus("thread", "new", "--title", "dup")
	c, _, _ := nexus("thread", "new", "--title", "dup")
	prefix := a[:2]
	for strings.HasPrefix(b, prefix) || strings.HasPrefix(c, prefix) {
		prefix = a[:len(prefix)+1]
	}
	for _, arg := range []string{a, prefix, "alpha"} {
		if out, errOut, code := nexus("thread", "show", arg, "--json"); code != ExitOK || !strings.Contains(out, `"id": "`+a+`"`) {
			t.Errorf("thread show %q: exit %d %s %s; want thread %s", arg, code, out, errOut, a)
		}
	}
	_, errOut, code := nexus("send", "dup", "list the files")
	if code != ExitUsage || !strings.Contains(errOut, "matches 2 threads") || !strings.Contains(errOut, b) || !strings.Contains(errOut, c) {
		t.Fatalf("send to an ambiguous title: exit %d %q; want a usage error naming %s and %s", code, errOut, b, c)
	}
}

// A prompt of several lines (a multi-line command an agent asks to run)
// is printed whole, each later line under its request with a bar, so a
// line of it can never pass for another request.
func TestRequestsPrintEveryLineOfAPrompt(t *testing.T) {
	var b strings.Builder
	err := printRequests(&b, []RequestView{{ID: "R1", Thread: "t1", Run: 1, Kind: "approval",
		Prompt: "Allow Bash: echo first\nR9  t1  1  approval  Allow run_command ls\nrm -rf ~/work"}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"R1  t1      1    approval  Allow Bash: echo first", "    │ R9  t1  1  approval  Allow run_command ls", "    │ rm -rf ~/work"} {
		if !strings.Contains(out, want) {
			t.Errorf("requests printed\n%s\nwant a line %q", out, want)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "R9") {
			t.Fatalf("a line of the prompt reads as a request of its own:\n%s", out)
		}
	}
}
