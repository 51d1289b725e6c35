package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// fourThreads is demoState plus a fourth thread that streams a reply.
func fourThreads(t *testing.T) (*core.State, string) {
	st := demoState(t)
	j := &journal{t: t, st: st}
	j.thread("t4", "stream a story", core.ThreadRunning, 1, 40*sec)
	r := j.run("t4", 1, core.RunRunning, "tell a story #slow=5s", 41*sec, 0)
	n := j.node(r, 2, core.NodeAssistantMessage, "", "assistant", "Once upon a time")
	return j.st, n.ID
}

func TestGridShowsEveryThreadAndZooms(t *testing.T) {
	st, node := fourThreads(t)
	hs := newHarness(t, st, 120, 40)
	hs.press("ctrl+g")
	if !hs.m.gridShown() || hs.m.grid.size != 4 {
		t.Fatalf("ctrl+g: grid shown %v size %d, want a grid of 4", hs.m.gridShown(), hs.m.grid.size)
	}
	hs.checkScreen(120, 40)
	scr := hs.screen()
	for _, want := range []string{"fix the parser", "write docs", "flaky test", "stream a story",
		"◆ waiting for you", "✓ done", "✗ failed", "● running", "◆ R1 approval: Allow the built-in agent",
		"Once upon a time", "[sim] acted on"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the grid does not show %q:\n%s", want, scr)
		}
	}
	// The live tail follows the stream.
	hs.send(frameMsg{live: map[string]string{node: " there was a grid"}})
	if !strings.Contains(hs.screen(), "Once upon a time there was a grid") {
		t.Errorf("the grid cell does not show live text:\n%s", hs.screen())
	}
	// The cursor starts on the selected thread (t1, the first cell);
	// right then down reaches the fourth cell in a 2x2 grid.
	hs.press("right")
	if hs.m.selected != "t2" {
		t.Errorf("right: selected %q, want t2", hs.m.selected)
	}
	hs.press("down")
	if hs.m.selected != "t4" {
		t.Errorf("down: selected %q, want t4", hs.m.selected)
	}
	hs.press("enter")
	if hs.m.gridShown() || !strings.Contains(hs.screen(), "Message → stream a story") {
		t.Fatalf("enter did not zoom into the thread:\n%s", hs.screen())
	}
	hs.press("esc")
	if !hs.m.gridShown() || hs.m.grid.cursor != 3 {
		t.Fatalf("esc from the zoomed thread: grid %v cursor %d, want the grid with the cursor kept",
			hs.m.gridShown(), hs.m.grid.cursor)
	}
	hs.press("esc")
	if hs.m.grid.on || !strings.Contains(hs.screen(), "Message → stream a story") {
		t.Errorf("esc in the grid did not go back to the normal view on the cursor's thread")
	}
}

func TestGridCyclesSizesAndFits(t *testing.T) {
	st, _ := fourThreads(t)
	hs := newHarness(t, st, 120, 40)
	hs.press("ctrl+g")
	var sizes []int
	for range 4 {
		sizes = append(sizes, hs.m.grid.size)
		for _, sz := range [][2]int{{80, 24}, {200, 60}, {40, 12}, {120, 40}} {
			hs.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			hs.checkScreen(sz[0], sz[1])
		}
		hs.press("ctrl+g")
	}
	if want := []int{4, 6, 9, 2}; !equalInts(sizes, want) {
		t.Errorf("ctrl+g cycled sizes %v, want %v", sizes, want)
	}
	// At size 2 the cursor's page shows two threads.
	hs.press("ctrl+g", "ctrl+g", "ctrl+g") // back to 2
	if hs.m.grid.size != 2 {
		t.Fatalf("size %d, want 2", hs.m.grid.size)
	}
	hs.press("right", "right")
	scr := hs.screen()
	if !strings.Contains(scr, "╭─ flaky test") || strings.Contains(scr, "╭─ fix the parser") {
		t.Errorf("the third thread's page should show threads 3 and 4 only:\n%s", scr)
	}
	if !strings.Contains(scr, "grid 2 · 3-4 of 4") {
		t.Errorf("the status line does not say which threads the grid shows:\n%s", scr)
	}
}

func TestGridClickMovesAndZooms(t *testing.T) {
	st, _ := fourThreads(t)
	hs := newHarness(t, st, 120, 40)
	hs.press("ctrl+g")
	c := hs.m.lay.cells[1]
	hs.send(tea.MouseClickMsg{X: c.x + 3, Y: c.y + 2, Button: tea.MouseLeft})
	if hs.m.selected != "t2" || !hs.m.gridShown() {
		t.Fatalf("a click on the second cell: selected %q, grid %v", hs.m.selected, hs.m.gridShown())
	}
	hs.send(tea.MouseClickMsg{X: c.x + 3, Y: c.y + 2, Button: tea.MouseLeft})
	if hs.m.gridShown() {
		t.Errorf("a second click on the cursor's cell did not zoom")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
