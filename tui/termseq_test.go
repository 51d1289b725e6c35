package tui

import "testing"

func TestPassthrough(t *testing.T) {
	seq := "\x1b]9;done\x07"
	if got := passthrough(seq, false); got != seq {
		t.Fatalf("outside tmux the sequence changed: %q", got)
	}
	want := "\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\"
	if got := passthrough(seq, true); got != want {
		t.Fatalf("passthrough = %q, want %q", got, want)
	}
}
