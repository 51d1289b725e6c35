package core

import "testing"

func TestAutoTitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fix the flaky test", "fix the flaky test"},
		{"\n\n  read   README.md\tand summarize it\nmore lines", "read README.md and summarize it"},
		{"please refactor the journal so that every commit carries one batch of events", "please refactor the journal so that every…"},
		{"\x1b]0;evil\x07hello", "]0;evilhello"},
		{"   \n  ", ""},
	} {
		if got := autoTitle(c.in); got != c.want {
			t.Errorf("autoTitle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The first message titles an untitled thread; a given title stays, and
// later messages change nothing.
func TestFirstMessageTitlesThread(t *testing.T) {
	k := NewKernel(nil)
	step := func(c Command) {
		t.Helper()
		if _, err := k.Step(Input{Command: &c}); err != nil {
			t.Fatal(err)
		}
		k.Advance()
	}
	step(Command{ID: "c1", Kind: CmdThreadCreate, NewThread: "t1", Provider: "p"})
	step(Command{ID: "c2", Kind: CmdThreadCreate, NewThread: "t2", Provider: "p", Title: "mine"})
	step(Command{ID: "c3", Kind: CmdMessageSend, Thread: "t1", Text: "add a --verbose flag\nto the CLI"})
	step(Command{ID: "c4", Kind: CmdMessageSend, Thread: "t2", Text: "hello"})
	step(Command{ID: "c5", Kind: CmdMessageSend, Thread: "t1", Text: "something else", Mode: ModeQueue})
	if got := k.State().Threads["t1"].Title; got != "add a --verbose flag" {
		t.Errorf("t1's title = %q, want the first message's first line", got)
	}
	if got := k.State().Threads["t2"].Title; got != "mine" {
		t.Errorf("t2's title = %q, want the one given", got)
	}
}
