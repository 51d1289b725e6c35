package tui

import (
	"strings"
	"testing"
)

func TestDesktopSeq(t *testing.T) {
	got := desktopSeq("nexus · demo", "approval: Run ls?", notifyTerm{})
	want := "\x1b]9;nexus · demo: approval: Run ls?\a\x1b]777;notify;nexus · demo;approval: Run ls?\a"
	if got != want {
		t.Errorf("plain terminal:\n got %q\nwant %q", got, want)
	}
	got = desktopSeq("a;b", "c", notifyTerm{tmux: true})
	want = "\x1bPtmux;\x1b\x1b]9;a;b: c\a\x1b\\" + "\x1bPtmux;\x1b\x1b]777;notify;a,b;c\a\x1b\\"
	if got != want {
		t.Errorf("inside tmux:\n got %q\nwant %q", got, want)
	}
	got = desktopSeq("t", "b", notifyTerm{kitty: true})
	if !strings.HasSuffix(got, "\x1b]99;i=nexus:d=0;t\x1b\\\x1b]99;i=nexus:d=1:p=body;b\x1b\\") {
		t.Errorf("kitty: OSC 99 missing: %q", got)
	}
	if strings.Contains(desktopSeq("t", "b", notifyTerm{}), "]99;") {
		t.Error("OSC 99 written to a terminal that did not advertise it")
	}
}

// Agent text cannot end the sequence early, start another one, or grow
// without bound.
func TestNotifyTextIsSafe(t *testing.T) {
	evil := "done\a\x1b]52;c;cm0gLXJmIH4=\a\x1b\\\x9b31m\nnext line\x00" + strings.Repeat("é", 300)
	s := notifyText(evil)
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("control character %U left in %q", r, s)
		}
	}
	if len(s) > maxNotifyBytes || !strings.HasPrefix(s, "done") || !strings.HasSuffix(s, "é…") {
		t.Errorf("notifyText = %q (%d bytes), want its head, at most %d bytes, cut at a character", s, len(s), maxNotifyBytes)
	}
	if got := detectNotifyTerm(envLookup([]string{"TMUX=/tmp/x,1,0", "KITTY_WINDOW_ID=3"})); !got.tmux || !got.kitty {
		t.Errorf("detect = %+v, want tmux and kitty", got)
	}
	if got := windowTitle(2); got != "nexus · 2 waiting" {
		t.Errorf("title = %q", got)
	}
	if got := windowTitle(0); got != "nexus" {
		t.Errorf("title with nothing waiting = %q", got)
	}
}
