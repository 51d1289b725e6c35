package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// size runs `stty size` in the focused terminal under a fresh tag and
// returns what it printed for that tag, as "RxC". The command line itself
// never matches: the tag and the size are joined only in the output.
func (tt *tmuxTUI) size(tag int) string {
	tt.t.Helper()
	tt.text(fmt.Sprintf("echo S%d-$(stty size|tr ' ' x)", tag))
	tt.keys("Enter")
	re := regexp.MustCompile(fmt.Sprintf(`S%d-(\d+)x(\d+)`, tag))
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := tt.screen()
		if m := re.FindStringSubmatch(scr); m != nil {
			return m[1] + "x" + m[2]
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("stty size (tag %d) never showed in the terminal pane; the screen is:\n%s", tag, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTUIShellTerminalPane is the PTY pane acceptance on a real
// bash in the host's PTY: the first message starts it and shows in the
// pane; `echo hi` typed in the focused pane shows hi; resizing the tmux
// window changes `stty size` inside; zoom gives bash the whole screen but
// the detach line, and after `seq 1 200000` the zoomed screen is what
// tmux itself shows for the same command at the same size; ctrl+]
// detaches back to the normal view.
func TestTUIShellTerminalPane(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new", "--provider", "shell", "--title", "sh")
	// The pane's reader runs at normal priority here: at its default
	// niceness a machine busy with the rest of the suite (and -race) could
	// leave the pane minutes behind the flood this test compares.
	bash := []string{"NEXUS_SHELL_COMMAND=bash --norc --noprofile", "PS1=bash$ ", "HISTFILE=/dev/null",
		"NEXUS_TERM_NICE=0"}
	tt := e.startTUIEnv(t, bash...)
	tt.waitFor("Threads (1)")
	tt.text("echo started")
	tt.keys("Enter")
	tt.waitForAll("sh · shell terminal", "started")

	tt.keys("BTab") // composer -> terminal pane
	tt.text("echo hi")
	tt.keys("Enter")
	hi := regexp.MustCompile(`(?m)│hi +│`)
	eventually(t, "hi on its own line in the pane", func() bool { return hi.MatchString(tt.screen()) })

	before := tt.size(1)
	tt.resize(100, 30)
	after := tt.size(2)
	var r1, c1, r2, c2 int
	fmt.Sscanf(before, "%dx%d", &r1, &c1)
	fmt.Sscanf(after, "%dx%d", &r2, &c2)
	if r2 >= r1 || c2 >= c1 || r2 < 10 || c2 < 40 {
		t.Fatalf("stty size went from %s to %s when the window shrank from 120x40 to 100x30", before, after)
	}

	tt.keys("C-]") // leave the pane: keys are the UI's again
	tt.keys("C-f") // zoom
	tt.waitFor("ctrl+] detach")
	if strings.Contains(tt.screen(), "Threads (1)") {
		t.Fatalf("the zoomed terminal still shows the threads pane:\n%s", tt.screen())
	}
	if got := tt.size(3); got != "29x100" {
		t.Fatalf("zoomed at 100x30, stty size says %s, want 29x100 (all rows but the detach line)", got)
	}

	// The same command in tmux itself, in a window of the zoomed size.
	ref := &tmuxTUI{t: t, sock: tt.sock}
	ref.tmux("new-session", "-d", "-s", "ref", "-x", "100", "-y", "29",
		"env PS1='bash$ ' HISTFILE=/dev/null TERM=xterm-256color bash --norc --noprofile")
	seq := "clear; seq 1 200000"
	tt.text(seq)
	tt.keys("Enter")
	ref.tmux("send-keys", "-t", "ref", "-l", seq)
	ref.tmux("send-keys", "-t", "ref", "Enter")
	want := waitScreen(t, func() string { return ref.tmux("capture-pane", "-p", "-t", "ref") }, "200000\nbash$")
	got := waitScreen(t, tt.screen, "200000\nbash$")
	gotLines := strings.Split(got, "\n")[:29]
	wantLines := strings.Split(want, "\n")[:29]
	for i := range wantLines {
		if strings.TrimRight(gotLines[i], " ") != strings.TrimRight(wantLines[i], " ") {
			t.Fatalf("zoomed screen row %d is %q, tmux shows %q for the same output\nnexus:\n%s\ntmux:\n%s",
				i, gotLines[i], wantLines[i], got, want)
		}
	}
	if !strings.Contains(strings.Split(got, "\n")[29], "ctrl+] detach") {
		t.Fatalf("the last row is not the detach line:\n%s", got)
	}

	tt.keys("C-]") // detach
	tt.waitFor("Threads (1)")
	if strings.Contains(tt.screen(), "ctrl+] detach") {
		t.Fatalf("still zoomed after ctrl+]:\n%s", tt.screen())
	}
	tt.quitIdle()
}

// waitScreen polls capture until it contains want and returns it. A
// flood takes as long as the machine lets it: the wait goes on while the
// screen keeps changing, and fails only when it stood still for a minute
// (or after a generous cap), so a busy machine is slower, not failing.
func waitScreen(t *testing.T, capture func() string, want string) string {
	t.Helper()
	capAt := time.Now().Add(15 * time.Minute)
	last, still := "", time.Now()
	for {
		scr := capture()
		if strings.Contains(scr, want) {
			return scr
		}
		if scr != last {
			last, still = scr, time.Now()
		}
		if time.Since(still) > 5*time.Minute || time.Now().After(capAt) {
			t.Fatalf("timed out waiting for %q (the screen stopped changing); the screen is:\n%s", want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
