package e2e

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTUISteerAndQueue: during a #slow run, a follow-up typed in the
// composer and sent with enter steers it (one attempt, and the reply
// acted on the follow-up); the queue key sends run 2 behind it, and the
// threads pane shows it queued.
func TestTUISteerAndQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--title", "counting")
	tt := e.startTUI(t)
	tt.waitFor("auto: start a run")

	tt.text("count to ten #slow=5s")
	tt.keys("Enter")
	tt.waitFor("auto: steer the active run")
	tt.text("use roman numerals")
	tt.keys("Enter")
	tt.waitFor("↪ steer: use roman numerals")

	tt.text("then count back")
	tt.keys("C-q")
	tt.waitForAll("+1 queued", "queued as run 2")

	tt.waitFor(`[sim] acted on: "use roman numerals"`)
	tt.waitFor(`[sim] acted on: "then count back"`)
	v := e.show(th)
	if len(v.Runs) != 2 {
		t.Fatalf("thread show has %d runs, want 2: %+v", len(v.Runs), v.Runs)
	}
	r1, r2 := v.Runs[0], v.Runs[1]
	if r1.Status != "completed" || len(r1.Attempts) != 1 || !strings.Contains(r1.Reply, `acted on: "use roman numerals"`) {
		t.Errorf("run 1: %s, %d attempts, reply %q; want one completed attempt that acted on the steer",
			r1.Status, len(r1.Attempts), r1.Reply)
	}
	if r2.Status != "completed" || r2.Text != "then count back" {
		t.Errorf("run 2: %s %q; want the queued message, completed", r2.Status, r2.Text)
	}
	tt.quitIdle()
}

// TestTUIResizeMidStream resizes the window to 80x24 and 200x60 while a
// reply streams: nexus keeps running, every line fits, the pane borders
// line up on every row, and the focused composer keeps its text and the
// keys typed after the resize.
func TestTUIResizeMidStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new", "--title", "resizing")
	tt := e.startTUI(t)
	tt.waitFor("auto: start a run")
	tt.text("tell a long story #slow=6s #plan=3")
	tt.keys("Enter")
	tt.waitFor("● running")
	tt.text("draft")
	tt.waitFor("│ draft")

	for _, sz := range [][2]int{{80, 24}, {200, 60}, {120, 40}} {
		tt.resize(sz[0], sz[1])
		scr := tt.waitLayout(sz[0], sz[1])
		if !strings.Contains(scr, "draft") {
			t.Fatalf("at %dx%d the composer lost its text:\n%s", sz[0], sz[1], scr)
		}
		if _, err := os.Stat(tt.exitTo); err == nil {
			t.Fatalf("nexus exited during the resize to %dx%d", sz[0], sz[1])
		}
	}
	tt.text(" kept")
	tt.waitFor("draft kept")
	tt.waitFor(`[sim] acted on: "tell a long story"`)
	tt.waitLayout(120, 40)
	tt.quitIdle()
}

// TestTUIQuitRestoresTerminal starts nexus from a shell and quits it: the
// shell's prompt is back on the main screen, with the tty settings,
// mouse and keypad modes it had before.
func TestTUIQuitRestoresTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tt := e.startShell(t)
	before := tt.t.TempDir() + "/stty"
	tt.text("stty -g > " + before + ".before; " + e.nexusLine(tt) + "; stty -g > " + before + ".after; echo term-$((40+2))")
	tt.keys("Enter")
	tt.waitFor("No threads yet")
	if tt.format("alternate_on") != "1" {
		t.Errorf("nexus does not use the alternate screen")
	}
	tt.quitIdle()
	scr := tt.waitFor2("term-42", "shell>")
	if strings.Contains(scr, "No threads yet") {
		t.Errorf("the UI is still on screen after quitting:\n%s", scr)
	}
	for _, f := range []string{"alternate_on", "mouse_any_flag", "mouse_button_flag", "mouse_standard_flag",
		"mouse_all_flag", "keypad_flag", "keypad_cursor_flag", "mouse_sgr_flag"} {
		if v := tt.format(f); v != "0" {
			t.Errorf("after quitting, tmux reports %s=%s, want 0", f, v)
		}
	}
	if tt.format("cursor_flag") != "1" {
		t.Errorf("the cursor is still hidden after quitting")
	}
	b1, err1 := os.ReadFile(before + ".before")
	b2, err2 := os.ReadFile(before + ".after")
	if err1 != nil || err2 != nil || len(b1) == 0 || string(b1) != string(b2) {
		t.Errorf("tty settings before %q (%v) and after %q (%v) differ: raw mode left behind", b1, err1, b2, err2)
	}
}

// waitFor2 waits for the last non-empty lines of the screen to contain
// a then b, in order (a command's output, then the prompt after it).
func (tt *tmuxTUI) waitFor2(a, b string) string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := tt.screen()
		if i := strings.LastIndex(scr, a); i >= 0 && strings.Contains(scr[i:], b) {
			return scr
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %q then %q; the screen is:\n%s", a, b, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTUIKillHostAndRestart kills the TUI host with SIGKILL mid-run and
// starts nexus again: the same threads, the transcript and the pending
// approval are on screen, and one key resumes the interrupted run.
func TestTUIKillHostAndRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new", "--title", "gate")
	e.must("thread", "new", "--title", "marathon")
	tt := e.startTUI(t)
	tt.waitFor("Threads (2)")
	tt.waitFor("Message → marathon") // the newest thread is selected
	tt.text("tell a tale #slow=6s")
	tt.keys("Enter")
	tt.waitFor("● running")
	tt.keys("M-Up") // to "gate"
	tt.waitFor("Message → gate")
	tt.text("ship it #approve")
	tt.keys("Enter")
	tt.waitForAll("◆ waiting for you", "approval:")

	pid := e.hostPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the killed host to be gone", func() bool { return !alive(pid) })

	tt2 := e.startTUI(t)
	scr := tt2.waitForAll("Threads (2)", "marathon", "gate", "◆ waiting for you", "ctrl+o to answer")
	if !strings.Contains(scr, "host · ") {
		t.Errorf("the restarted TUI is not the host:\n%s", scr)
	}
	// The selection starts on the thread that moved last: marathon, whose
	// run the restart interrupted.
	tt2.waitForAll("tell a tale", "interrupted by a host restart", "ctrl+y resumes it")
	tt2.keys("C-y")
	tt2.waitFor(`[sim] acted on: "tell a tale"`)
	tt2.keys("C-o") // gate's request, from marathon
	tt2.waitForAll("Message → gate", "press 1-3")
	tt2.keys("1")
	tt2.waitFor(`[sim] acted on: "ship it"`)
	tt2.quitIdle()
}

// TestTUIClientLeavesRunAndNewClientSeesProgress: `nexus serve` in one
// window, nexus in another as a client; quitting the client leaves the
// run going, and a new nexus shows its progress and its end.
func TestTUIClientLeavesRunAndNewClientSeesProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	host := e.bg("serve")
	defer func() {
		syscall.Kill(host.c.Process.Pid, syscall.SIGTERM)
		host.wait(t)
	}()
	eventually(t, "the host to serve", func() bool { return strings.Contains(host.so.String(), "serving") })
	e.must("thread", "new", "--title", "remote")

	tt := e.startTUI(t)
	tt.waitFor("client of pid")
	tt.text("long job #slow=6s #plan=4")
	tt.keys("Enter")
	tt.waitFor("● 1 active")
	tt.keys("C-c")
	tt.waitFor("keep running in the")
	tt.keys("y")
	if code := tt.waitExit(); code != "0" {
		t.Fatalf("the client exited with %s, want 0", code)
	}

	tt2 := e.startTUI(t)
	tt2.waitForAll("client of pid", "● running", "Todos")
	tt2.waitFor(`[sim] acted on: "long job"`)
	tt2.waitFor("✓ done")
	tt2.quitIdle()
	select {
	case <-host.done:
		t.Fatalf("the host stopped: %s", host.se.String())
	default:
	}
}

// TestTUIGridFourThreads: four threads streaming at once, the grid shows
// four cells with their titles, statuses and live tails; enter zooms into
// one and esc comes back.
func TestTUIGridFourThreads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	names := []string{"alpha", "beta", "gamma", "delta"}
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = e.must("thread", "new", "--title", n)
	}
	tt := e.startTUI(t)
	tt.waitFor("Threads (4)")
	for i, id := range ids {
		// 20 s each: long enough that the four overlap however slowly the
		// host gets to them on a busy machine.
		e.must("send", id, "story "+names[i]+" #slow=20s", "--no-wait")
	}
	tt.keys("C-g")
	var cells []string
	for _, n := range names {
		cells = append(cells, "╭─ "+n+" ")
	}
	tt.waitForAll(cells...)
	// The four runs start as the host gets to them: wait for all four
	// badges (each run lasts 20 s, so they are all running together).
	var scr string
	eventually(t, "four running badges in the grid", func() bool {
		scr = tt.screen()
		return strings.Count(scr, "● running") == 4
	})
	if !strings.Contains(scr, "grid 4 · 1-4 of 4") {
		t.Errorf("the status line does not show the grid:\n%s", scr)
	}
	if strings.Contains(scr, "Message →") {
		t.Errorf("the composer is drawn under the grid:\n%s", scr)
	}
	// Each cell tails its own transcript to the end of the reply.
	var tails []string
	for _, n := range names {
		tails = append(tails, `acted on: "story `+n+`"`)
	}
	eventually(t, "every cell tailing its reply to the end", func() bool {
		scr := tt.screen()
		for _, w := range tails {
			if !strings.Contains(scr, w) {
				return false
			}
		}
		return true
	})
	tt.waitLayoutGrid(120, 40)

	tt.keys("Left", "Left", "Left", "Right") // the first cell, then the second
	tt.keys("Enter")
	tt.waitFor("Message → beta")
	tt.keys("Escape")
	tt.waitForAll(cells...)
	tt.keys("Escape")
	tt.waitFor("Message → beta")
	tt.quitIdle()
}

// TestTUIForkAndLayoutKept forks a thread from the fork dialog (the new
// thread is selected), widens the left column, and finds it as wide
// after a restart.
func TestTUIForkAndLayoutKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new", "--title", "origin")
	tt := e.startTUI(t)
	tt.waitFor("auto: start a run")
	tt.text("hello")
	tt.keys("Enter")
	tt.waitFor("✓ done")
	tt.keys("C-t")
	tt.waitForAll("Fork origin", "run 1: hello")
	tt.keys("Enter")
	tt.waitForAll("Threads (2)", "Message → fork of origin", "forked at run 1")

	leftEdge := func(scr string) int {
		for _, l := range strings.Split(scr, "\n") {
			if strings.HasPrefix(l, "╭─ Threads") {
				for c := 1; c < 120; c++ {
					if cellAt(l, c) == '╮' {
						return c
					}
				}
			}
		}
		return -1
	}
	before := leftEdge(tt.waitLayout(120, 40))
	tt.keys("C-Right", "C-Right", "C-Right")
	// Three steps of 3% of 120 cells: 10 or 11 cells wider.
	var wider int
	eventually(t, "the left column to widen three steps", func() bool {
		wider = leftEdge(tt.screen())
		return wider >= before+10
	})
	tt.waitLayout(120, 40)
	tt.quitIdle()

	tt2 := e.startTUI(t)
	tt2.waitFor("Threads (2)")
	tt2.waitLayout(120, 40)
	if got := leftEdge(tt2.screen()); got != wider {
		t.Errorf("after a restart the left column ends at %d, want %d as it was left:\n%s", got, wider, tt2.screen())
	}
	if _, err := os.Stat(e.dir + "/tui.json"); err != nil {
		t.Errorf("no layout file in the state dir: %v", err)
	}
	tt2.quitIdle()
}
