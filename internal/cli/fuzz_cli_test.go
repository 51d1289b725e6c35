package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// splitArgv turns a fuzzed string into an argument vector: NUL separates
// arguments, as it does in a real argv.
func splitArgv(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// FuzzCLI runs whole invocations (main's run) on fuzzed argument vectors
// with a state dir that cannot exist (its parent is a regular file), so
// every command that would reach a journal or start a host fails before
// it does, and nothing is written anywhere. Whatever the arguments, nexus
// must not panic or hang, must exit 0, 1 or 2, and must say why in
// exactly one line on stderr starting "nexus: " (nothing when it exits
// 0). Inputs that name their own state dir, or run the internal worker
// (which would serve the test's own file descriptors), are skipped.
// Seeds live in testdata/fuzz/FuzzCLI.
func FuzzCLI(f *testing.F) {
	for _, s := range []string{"version", "--help", "thread\x00new\x00--provider", "send\x00t1\x00hi\x00--mode\x00sideways",
		"queue\x00t1\x00hold\x00x", "respond\x00R1\x00--allow\x00--deny", "frobnicate", "--theme"} {
		f.Add(s)
	}
	blocker := filepath.Join(f.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		f.Fatal(err)
	}
	bad := filepath.Join(blocker, "state")
	// The environment is the fallback for an empty --state-dir. (HOME
	// stays: fuzz workers rerun TestMain, whose go build needs it.)
	f.Setenv("NEXUS_STATE_DIR", bad)
	f.Fuzz(func(t *testing.T, argv string) {
		args := splitArgv(argv)
		if !cliSafe(args) {
			return
		}
		var out, errOut bytes.Buffer
		stop := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("nexus %q ran for over 20s", args)) })
		code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		stop.Stop()
		msg := errOut.String()
		switch {
		case code != ExitOK && code != ExitFailed && code != ExitUsage:
			t.Fatalf("nexus %q: exit %d, want 0, 1 or 2 without a host; stderr %q", args, code, msg)
		case code == ExitOK && msg != "":
			t.Fatalf("nexus %q: exit 0 with stderr %q", args, msg)
		case code != ExitOK && (!strings.HasPrefix(msg, "nexus: ") || strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n")):
			t.Fatalf("nexus %q: exit %d with stderr %q, want one line starting \"nexus: \"", args, code, msg)
		}
		if _, err := os.Lstat(bad); err == nil {
			t.Fatalf("nexus %q created the state dir %s", args, bad)
		}
	})
}

// cliSafe reports whether an argument vector may run in-process: it
// mirrors dispatch's global flags and refuses a state dir of the
// fuzzer's choosing and the worker command.
func cliSafe(args []string) bool {
	g := flag.NewFlagSet("nexus", flag.ContinueOnError)
	g.SetOutput(io.Discard)
	dir := g.String("state-dir", "", "")
	g.String("theme", "", "")
	g.Bool("help", false, "")
	g.Bool("h", false, "")
	if g.Parse(args) != nil {
		return true // a usage error before anything runs
	}
	rest := g.Args()
	return *dir == "" && (len(rest) == 0 || rest[0] != "worker")
}

// FuzzParseArgs drives the subcommands' argument parser with a flag set
// like theirs. It must never panic; a failure is a usage error (exit 2);
// a success returns between minPos and maxPos positionals, in the order
// given and each one of the arguments, none of them looking like a flag
// unless a "--" came before it. And "--" ends the flags: positionals
// followed by "--" and anything at all parse to exactly those words,
// when their number is allowed. Seeds live in testdata/fuzz/FuzzParseArgs.
func FuzzParseArgs(f *testing.F) {
	f.Add("t1\x00hello\x00--mode\x00steer", 2, 2)
	f.Add("--json\x00--run=3\x00t1", 1, 1)
	f.Add("a\x00--\x00b", 0, -1)
	f.Add("-run\x00x", 0, 1)
	f.Fuzz(func(t *testing.T, argv string, minPos, maxPos int) {
		args := splitArgv(argv)
		fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
		fs.String("mode", "auto", "")
		fs.Bool("json", false, "")
		fs.Int("run", 0, "")
		fs.Float64("budget-usd", 0, "")
		pos, err := parseArgs(fs, args, minPos, maxPos, "nexus fuzz ARGS")
		if want, ok := afterDashDash(args); ok && len(want) >= minPos && (maxPos < 0 || len(want) <= maxPos) {
			if err != nil || !slices.Equal(pos, want) {
				t.Fatalf("%q: got %q (%v), want the words around \"--\" verbatim: %q", args, pos, err, want)
			}
		}
		if err != nil {
			var ee *exitError
			var h *helpText
			if errors.As(err, &h) && strings.HasPrefix(h.text, "usage: nexus fuzz ARGS\n") {
				return // -h or --help: the usage and flags
			}
			if !errors.As(err, &ee) || ee.code != ExitUsage || ee.msg == "" {
				t.Fatalf("%q: error %v is not a usage error", args, err)
			}
			return
		}
		if len(pos) < minPos || (maxPos >= 0 && len(pos) > maxPos) {
			t.Fatalf("%q: %d positionals outside [%d, %d]", args, len(pos), minPos, maxPos)
		}
		i := 0
		for _, p := range pos {
			for i < len(args) && args[i] != p {
				i++
			}
			if i == len(args) {
				t.Fatalf("%q: positional %q is not one of the arguments in order (%q)", args, p, pos)
			}
			i++
		}
		first := slices.Index(args, "--")
		for _, p := range pos {
			if len(p) > 1 && p[0] == '-' && (first < 0 || first >= slices.Index(args[first+1:], p)+first+1) {
				t.Fatalf("%q: positional %q looks like a flag and no \"--\" came before it", args, p)
			}
		}
	})
}

// afterDashDash returns the positionals of args of the form
// [word... "--" anything...], where no word looks like a flag: the
// words, then everything after the "--".
func afterDashDash(args []string) ([]string, bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return nil, false
	}
	for _, a := range args[:i] {
		if len(a) > 0 && a[0] == '-' {
			return nil, false
		}
	}
	return append(slices.Clone(args[:i]), args[i+1:]...), true
}
