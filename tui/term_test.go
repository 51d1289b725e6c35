package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// A shell thread with a live session shows its terminal in the main area,
// and what the PTY printed is on the screen.
func TestTermShowsTheFeed(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	if hs.m.selected != "s1" {
		t.Fatalf("selected %q, want the shell thread s1", hs.m.selected)
	}
	hs.settle(ft)
	hs.feed(ft, "s1", "echo hi\r\nhi\r\n\x1b[32muser@box\x1b[0m:~$ ")
	hs.pumpScreen("│hi ")
	scr := hs.screen()
	for _, want := range []string{"bash box · shell terminal", "user@box:~$ echo hi", "tab or click to type"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	hs.checkScreen(120, 40)
	// With colours the lines keep their width too.
	hs.m.st.Theme.NoColor = false
	hs.m.terms.panes["s1"].cache = termView{}
	hs.checkScreen(120, 40)
}

// TestGoldenTerminal renders the terminal pane, focused, zoomed, in the
// grid, switched to the transcript and without a session, at 80x24 and
// 120x40, like TestGoldenScreens.
func TestGoldenTerminal(t *testing.T) {
	noSession := func(t testing.TB) *core.State {
		j := newJournal(t)
		j.shellThread("s1", "bash box", 30*sec)
		return j.st
	}
	screens := []struct {
		name  string
		state func(testing.TB) *core.State
		keys  []string
		pane  bool // the selected thread shows a terminal
	}{
		{"terminal", shellState, nil, true},
		{"terminal_focus", shellState, []string{"shift+tab"}, true},
		{"terminal_zoom", shellState, []string{"ctrl+f"}, true},
		{"terminal_grid", shellState, []string{"ctrl+g"}, true},
		{"terminal_transcript", shellState, []string{"ctrl+s"}, false},
		{"terminal_none", noSession, nil, false},
	}
	for _, sc := range screens {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			name := sc.name + "_" + itoa(sz[0]) + "x" + itoa(sz[1])
			t.Run(name, func(t *testing.T) {
				hs, ft := newTermHarness(t, sc.state(t), sz[0], sz[1])
				if sc.pane {
					hs.settle(ft)
					hs.feed(ft, "s1", "echo hi\r\nhi\r\n\x1b[32muser@box\x1b[0m:~$ ")
				}
				hs.press(sc.keys...)
				if sc.pane {
					hs.settle(ft)
				}
				hs.checkScreen(sz[0], sz[1])
				checkGolden(t, name, hs.screen())
			})
		}
	}
}

// Keys typed in the focused pane reach the PTY as a terminal sends them;
// the leave key leaves and is not sent.
func TestTermKeysReachTheChild(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	hs.press("shift+tab") // composer -> main: the terminal
	if !hs.m.termFocused() {
		t.Fatalf("shift+tab from the composer did not focus the terminal (focus %d)", hs.m.focus)
	}
	if !strings.Contains(hs.screen(), "ctrl+] leave") {
		t.Errorf("the focused terminal does not say how to leave it:\n%s", hs.screen())
	}
	hs.typeText("echo hi")
	hs.press("enter")
	ft.await(t, `"echo hi\r" typed`, func() bool { return ft.typed("s1") == "echo hi\r" })
	// Keys the TUI uses elsewhere belong to the child here.
	hs.press("tab", "ctrl+c", "ctrl+n", "f1", "esc", "q")
	ft.await(t, "tab, ctrl+c, ctrl+n, f1, esc and q typed", func() bool {
		return ft.typed("s1") == "echo hi\r\t\x03\x0e\x1bOP\x1bq"
	})
	if len(hs.m.dialogs) != 0 || hs.quit {
		t.Errorf("keys sent to the terminal also acted on the TUI: dialogs %d, quit %v", len(hs.m.dialogs), hs.quit)
	}
	// The child's modes decide the encoding: application cursor keys.
	hs.feed(ft, "s1", "\x1b[?1h")
	hs.press("up", "ctrl+left")
	ft.await(t, "up and ctrl+left typed", func() bool { return strings.HasSuffix(ft.typed("s1"), "\x1bOA\x1b[1;5D") })

	hs.press("ctrl+]")
	if hs.m.focus != focusComposer || hs.m.termFocused() {
		t.Errorf("ctrl+] did not leave the terminal for the composer (focus %d)", hs.m.focus)
	}
	hs.typeText("x")
	if strings.Contains(ft.typed("s1"), "\x1d") || strings.HasSuffix(ft.typed("s1"), "x") {
		t.Errorf("ctrl+] or a key after it reached the child: %q", ft.typed("s1"))
	}
	if hs.m.composer.value() != "x" {
		t.Errorf("after ctrl+] typing went elsewhere than the composer: %q", hs.m.composer.value())
	}
}

// A paste into the focused terminal is bracketed when the child asked
// for bracketed paste.
func TestTermPaste(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	hs.feed(ft, "s1", "\x1b[?2004h")
	hs.press("shift+tab")
	hs.send(tea.PasteMsg{Content: "ls -l"})
	ft.await(t, "the bracketed paste", func() bool { return ft.typed("s1") == "\x1b[200~ls -l\x1b[201~" })
}

// The PTY gets the pane's inner size, follows the window, takes the
// whole screen but one line when zoomed, and comes back after.
func TestTermResize(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	inner := func() [2]int { return [2]int{hs.m.lay.main.w - 2, hs.m.lay.main.h - 2} }
	if got := ft.lastResize("s1"); got != inner() {
		t.Errorf("PTY size %v, want the pane's inner size %v", got, inner())
	}
	hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	hs.settle(ft)
	if got := ft.lastResize("s1"); got != inner() {
		t.Errorf("after the window resize the PTY is %v, want %v", got, inner())
	}
	n := len(ft.resizesOf("s1"))
	hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	hs.press("alt+up", "alt+down") // away and back: a new attach
	hs.settle(ft)
	hs.press("ctrl+f")
	hs.settle(ft)
	if got := ft.lastResize("s1"); got != [2]int{100, 29} {
		t.Errorf("zoomed, the PTY is %v, want 100x29 (all but the hint line)", got)
	}
	hs.checkScreen(100, 30)
	hs.press("ctrl+]")
	hs.settle(ft)
	if got := ft.lastResize("s1"); got != inner() || hs.m.terms.zoom {
		t.Errorf("after ctrl+] the PTY is %v (zoom %v), want the pane's %v", got, hs.m.terms.zoom, inner())
	}
	all := ft.resizesOf("s1")
	for i, r := range all[:n] {
		if i > 0 && r == all[i-1] {
			t.Errorf("ResizeTerminal was called twice in a row with %v: not coalesced", r)
		}
	}
}

// A pane never answers the child's terminal queries (the host does, once,
// live): not a live one, not the ones a rebuilt screen replays on attach,
// resize or zoom. What reaches the PTY is exactly what was typed.
func TestTermPaneNeverAnswersQueries(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	queries := "\x1b[5;7H\x1b[6n\x1b[c\x1b[>c\x1b]11;?\x07\x1b[?2004$p"
	ft.write(t, "s1", core.TermChunk{Data: []byte(queries)})
	hs.press("shift+tab")
	if !hs.m.termFocused() {
		t.Fatal("shift+tab did not focus the terminal")
	}
	for _, k := range []string{"i", "x"} {
		hs.press(k)
	}
	ft.await(t, "the first keys", func() bool { return strings.Contains(ft.typed("s1"), "x") })
	hs.press("ctrl+]") // leave the pane: keys are the UI's again
	hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	hs.press("ctrl+f") // zoom
	hs.settle(ft)
	hs.press("ctrl+]")
	hs.press("alt+up", "alt+down") // away and back: a new attach replays the queries
	hs.settle(ft)
	hs.press("shift+tab")
	hs.press("y")
	ft.await(t, "the typed keys", func() bool { return strings.Contains(ft.typed("s1"), "y") })
	if got := ft.typed("s1"); got != "ixy" {
		t.Fatalf("the PTY got %q; want only the typed keys \"ixy\"", got)
	}
}

// A Reset replaces what the pane showed.
func TestTermResetReplacesTheScreen(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	ft.write(t, "s1", core.TermChunk{Data: []byte("old screen\r\n")})
	hs.pumpScreen("old screen")
	ft.write(t, "s1", core.TermChunk{Reset: true, Cols: 60, Rows: 20, Data: []byte("\x1b[2;3Hnew screen")})
	hs.pumpScreen("new screen")
	hs.settle(ft)
	if scr := hs.screen(); strings.Contains(scr, "old screen") || strings.Contains(scr, "user@box") {
		t.Errorf("the screen before the Reset is still shown:\n%s", scr)
	}
	if p := hs.m.terms.panes["s1"]; p.emu.Width() != hs.m.lay.main.w-2 {
		t.Errorf("after the Reset the emulator is %d wide, want the pane's %d", p.emu.Width(), hs.m.lay.main.w-2)
	}
}

// When the PTY's process exits the main area goes back to the transcript
// and says so; a terminal that is not there yet is retried on a timer
// and when the thread's journal moves.
func TestTermEndsAndRetries(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	hs.press("ctrl+f")
	ft.end("s1", core.ErrTerminalExited)
	hs.pumpScreen("shell exited")
	if hs.m.terms.zoom || hs.m.terms.panes["s1"] != nil {
		t.Errorf("after the exit: zoom %v, pane %v; want the normal view without a pane", hs.m.terms.zoom,
			hs.m.terms.panes["s1"] != nil)
	}
	if !strings.Contains(hs.screen(), "README.md  go.mod") {
		t.Errorf("the transcript is not shown after the terminal ended:\n%s", hs.screen())
	}

	ft.mu.Lock()
	ft.noTerm["s1"] = true
	attaches := ft.attaches
	ft.mu.Unlock()
	// The journal moves (the session starts again): attach again, which
	// finds no PTY yet and arms a retry.
	seq := hs.m.state.Seq + 1
	hs.send(frameMsg{journal: []core.Event{{Seq: seq, ID: "e" + itoa(int(seq)), Type: core.EvSessionUpdated,
		Thread: "s1", Payload: core.Payload{Session: &core.Session{ID: core.SessionID("s1"), Thread: "s1",
			Provider: "shell", State: core.SessRunning}}}}})
	hs.pump("the retry timer", func() bool {
		for _, msg := range hs.timers {
			if _, ok := msg.(termRetryMsg); ok {
				return true
			}
		}
		return false
	})
	if !strings.Contains(hs.screen(), "no terminal: send a message to start shell") {
		t.Errorf("no notice while the PTY is missing:\n%s", hs.screen())
	}
	ft.mu.Lock()
	ft.noTerm["s1"] = false
	ft.mu.Unlock()
	fire[termRetryMsg](hs)
	hs.settle(ft)
	if ft.attaches != attaches+2 || !strings.Contains(hs.screen(), "user@box") {
		t.Errorf("%d attaches after the retry, want %d, and the terminal shown:\n%s", ft.attaches, attaches+2, hs.screen())
	}
}

// A stuck terminal (a flooding feed, a TerminalInput that never returns)
// never blocks Update or View, and another pane keeps working.
func TestTermStuckNeverBlocks(t *testing.T) {
	j := newJournal(t)
	j.shellThread("s2", "quiet box", 10*sec)
	j.session("s2", core.SessRunning)
	j.shellThread("s1", "busy box", 30*sec)
	j.session("s1", core.SessRunning)
	hs, ft := newTermHarness(t, nil, 120, 40)
	ft.flood["s1"], ft.stuck["s1"] = true, true
	ft.first = "\x1b[6n" // the answer has to go out through the input
	const limit = time.Second
	update := func(msg tea.Msg) {
		within(t, limit, "Update", func() { hs.send(msg) })
	}
	update(snapshotMsg{state: j.st})
	update(keyMsg("ctrl+g")) // the grid attaches both
	hs.pump("both panes", func() bool { return len(hs.m.terms.panes) == 2 })
	hs.pumpScreen("flood flood")
	// Each pane attaches in its own reader: wait for the quiet one too.
	hs.pump("s2 attached", func() bool { return ft.attached("s2") })
	ft.write(t, "s2", core.TermChunk{Data: []byte("quiet output")})
	hs.pumpScreen("quiet output")
	update(keyMsg("esc"))
	hs.press("shift+tab")
	if !hs.m.termFocused() || hs.m.selected != "s1" {
		t.Fatalf("the busy terminal is not focused (selected %s)", hs.m.selected)
	}
	for i := range 2000 {
		update(tea.KeyPressMsg{Code: 'a' + rune(i%26), Text: string('a' + rune(i%26))})
		if i%100 == 0 {
			update(tea.WindowSizeMsg{Width: 100 + i%7, Height: 30 + i%5})
			within(t, limit, "View", func() { _ = hs.m.View() })
			select {
			case msg := <-hs.async:
				update(msg)
			default:
			}
		}
	}
	p := hs.m.terms.panes["s1"]
	if p == nil || p.dropped.Load() == 0 {
		t.Errorf("2000 keys into a terminal that reads nothing dropped none: the queue is unbounded")
	}
	within(t, limit, "View", func() {
		if !strings.Contains(hs.screen(), "input dropped") {
			t.Errorf("the pane does not say that input was dropped:\n%s", hs.screen())
		}
	})
	// s2's query got no answer from the UI (the host answers); the UI
	// still works elsewhere.
	if got := ft.typed("s2"); got != "" {
		t.Errorf("the UI typed %q into s2, which nobody typed into", got)
	}
	update(keyMsg("ctrl+]"))
	for _, r := range "still typing" {
		update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if hs.m.composer.value() != "still typing" {
		t.Errorf("the composer lost keys next to a stuck terminal: %q", hs.m.composer.value())
	}
}

// PTY threads without a live terminal show their transcript with a line
// that says why and what to do; so does a backend without terminals.
func TestTermNotices(t *testing.T) {
	j := newJournal(t)
	j.shellThread("s1", "bash box", 30*sec)
	hs, _ := newTermHarness(t, j.st, 120, 40)
	if scr := hs.screen(); !strings.Contains(scr, "no terminal: send a message to start shell") ||
		!strings.Contains(scr, "README.md  go.mod") {
		t.Errorf("a shell thread without a session does not say how to start it:\n%s", scr)
	}
	plain := newHarness(t, shellState(t), 120, 40)
	if scr := plain.screen(); !strings.Contains(scr, "does not carry terminals") {
		t.Errorf("a backend without terminals does not say so in the pane:\n%s", scr)
	}
	plain.press("ctrl+f")
	if !strings.Contains(plain.m.flash.text, "does not carry terminals") || plain.m.terms.zoom {
		t.Errorf("ctrl+f without terminals: flash %q, zoom %v", plain.m.flash.text, plain.m.terms.zoom)
	}
}

// ctrl+s switches a shell thread between its terminal and its transcript.
func TestTermToggleTranscript(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	hs.press("ctrl+s")
	if hs.m.terms.panes["s1"] != nil || !strings.Contains(hs.screen(), "ctrl+s shows the terminal") {
		t.Errorf("ctrl+s did not show the transcript (and detach):\n%s", hs.screen())
	}
	hs.press("ctrl+s")
	hs.settle(ft)
	if !strings.Contains(hs.screen(), "user@box") {
		t.Errorf("ctrl+s again did not bring the terminal back:\n%s", hs.screen())
	}
}

// The cursor of the focused terminal is the screen's cursor.
func TestTermCursor(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	if hs.m.View().Cursor != nil {
		t.Errorf("the terminal's cursor shows while the composer has the keys")
	}
	hs.press("shift+tab")
	c := hs.m.View().Cursor
	want := [2]int{hs.m.lay.main.x + 1 + len("user@box:~$ "), hs.m.lay.main.y + 1}
	if c == nil || [2]int{c.X, c.Y} != want {
		t.Errorf("cursor %+v, want at %v (after the prompt)", c, want)
	}
}

// The terminal pane and the zoom fill exactly their rectangles at every
// size, whatever size the emulator has at that moment, in colour too.
func TestTermResizeNeverOverflows(t *testing.T) {
	hs, ft := newTermHarness(t, shellState(t), 120, 40)
	hs.settle(ft)
	hs.feed(ft, "s1", "\x1b[1;31m"+strings.Repeat("wide 界 ", 30)+"\x1b[0m\r\n")
	hs.m.st.Theme.NoColor = false
	sizes := [][2]int{{80, 24}, {200, 60}, {40, 12}, {39, 11}, {20, 5}, {1, 1}, {120, 40}}
	for _, zoom := range []bool{false, true} {
		if zoom {
			hs.press("ctrl+f")
		}
		for _, sz := range sizes {
			hs.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			hs.checkScreen(sz[0], sz[1])
		}
	}
	if !hs.m.terms.zoom {
		t.Errorf("resizing left the zoom")
	}
}
