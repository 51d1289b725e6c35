package tui

import (
	"testing"
	"time"
)

// A command's output reads as its terminal would show it: a progress bar
// redrawn with carriage returns ends as its last state, a backspace
// erases, colours are gone, long lines wrap at the pane's width.
func TestCommandTextAsATerminalShowsIt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"plain\nlines\n", 16, "plain\nlines\n"},
		{"downloading  10%\rdownloading  55%\rdownloading 100%\ndone\n", 16, "downloading 100%\ndone"},
		{"\x1b[32mok\x1b[0m 3 tests\n", 16, "ok 3 tests"},
		{"abc\bd\n", 16, "abd"},
		{"0123456789abcdef\r\n", 10, "0123456789\nabcdef"},
		{"step 1\r\n\r\nstep 2\r\n", 16, "step 1\n\nstep 2"},
	} {
		if got := commandText(tc.in, tc.w); got != tc.want {
			t.Errorf("commandText(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

// Output that asks the terminal something (cursor position, device
// attributes) is drawn without waiting for an answer nobody gives.
func TestCommandTextNeverWaitsOnQueries(t *testing.T) {
	done := make(chan string, 1)
	go func() { done <- commandText("before\x1b[6n\x1b[c\x1b[>c after\r\n", 40) }()
	select {
	case got := <-done:
		if got != "before after" {
			t.Fatalf("commandText = %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("commandText blocked on a terminal query")
	}
}

// BenchmarkCommandText is the cost of laying out the largest output
// commandText takes (a progress bar's 16 KiB of redraws), paid once per
// finished command and pane width.
func BenchmarkCommandText(b *testing.B) {
	var sb []byte
	for i := 0; len(sb) < maxCmdBytes-64; i++ {
		sb = append(sb, []byte("progress "+itoa(i%100)+"%\r")...)
	}
	text := string(sb) + "\n"
	for b.Loop() {
		commandText(text, 100)
	}
}

// While a command runs, its progress bar shows its latest state without
// the emulator.
func TestLastRedraws(t *testing.T) {
	if got := lastRedraws("get  10%\rget  99%\r\nnext\r\n"); got != "get  99%\nnext\n" {
		t.Fatalf("lastRedraws = %q", got)
	}
}
