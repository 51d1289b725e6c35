package ptyterm

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Output cut anywhere between two reads, inside a colour sequence, a
// window title or a character, gives the transcript the same text as one
// read: no "[31m" fragment, no broken character.
func TestTextStreamJoinsSplitSequences(t *testing.T) {
	out := "\x1b]0;title\x07\x1b[1;31mred\x1b[0m é 日本 \x1b(Bdone\x1b[?25h\r\n$ "
	want := plain([]byte(out))
	if want != "red é 日本 done\n$ " {
		t.Fatalf("plain of the whole output = %q", want)
	}
	for cut := 0; cut <= len(out); cut++ {
		for cut2 := cut; cut2 <= len(out); cut2++ {
			var ts Text
			got := ts.Next([]byte(out[:cut])) + ts.Next([]byte(out[cut:cut2])) + ts.Next([]byte(out[cut2:]))
			if got != want {
				t.Fatalf("reads cut at %d and %d give %q, want %q", cut, cut2, got, want)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("reads cut at %d and %d give invalid UTF-8 %q", cut, cut2, got)
			}
		}
	}
}

// A sequence that never ends is not held for ever: past maxHeld bytes the
// text goes through as Strip leaves it.
func TestTextStreamHoldsBoundedly(t *testing.T) {
	var ts Text
	ts.Next([]byte("\x1b]0;" + strings.Repeat("x", maxHeld)))
	if len(ts.held) > maxHeld {
		t.Fatalf("held %d bytes of an unfinished sequence, bound %d", len(ts.held), maxHeld)
	}
	if got := ts.Next([]byte("after\n")); !strings.HasSuffix(got, "after\n") {
		t.Fatalf("text after a runaway sequence = %q", got)
	}
}

// Text is the output with ANSI sequences and CRs removed, on the fast
// path as on the slow one.
func TestPlainStripsSequencesAndCRs(t *testing.T) {
	var all []byte
	for c := range 0x100 {
		all = append(all, byte(c))
	}
	for _, in := range []string{"", "plain text\r\n$ ", "\x1b[1mbold\x1b[0m\r\n", "tab\tbell\a\x18\x1a", "é ü 日本\r",
		"del\x7f", "cr\ronly", string(all[:0x7f]), string(all)} {
		want := strings.ReplaceAll(ansi.Strip(in), "\r", "")
		if got := plain([]byte(in)); got != want {
			t.Errorf("plain(%q) = %q, want %q", in, got, want)
		}
	}
}
