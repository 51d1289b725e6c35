package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestPaneProportionsAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	hs := newHarness(t, demoState(t), 120, 40)
	hs.m.prefsOut = &prefsWriter{path: path}
	before := hs.m.lay.threads.w
	hs.press("ctrl+right", "ctrl+right")
	wider := hs.m.lay.threads.w
	if wider <= before {
		t.Fatalf("ctrl+right: left column %d cells, was %d", wider, before)
	}
	hs.press("ctrl+up")
	todos := hs.m.lay.todos.h
	hs.checkScreen(120, 40)
	for _, sz := range [][2]int{{80, 24}, {200, 60}, {40, 12}} {
		hs.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		hs.checkScreen(sz[0], sz[1])
	}
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40})

	// A new start reads the file and lays the panes out the same.
	p, err := loadPrefs(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.LeftPercent != hs.m.prefs.LeftPercent || p.TodoPercent != hs.m.prefs.TodoPercent {
		t.Fatalf("saved %+v, want %+v", p, hs.m.prefs)
	}
	hs2 := newHarness(t, demoState(t), 120, 40)
	hs2.m.prefs = p
	hs2.m.relayout()
	if hs2.m.lay.threads.w != wider || hs2.m.lay.todos.h != todos {
		t.Errorf("restarted layout: left %d todos %d, want %d and %d", hs2.m.lay.threads.w, hs2.m.lay.todos.h, wider, todos)
	}

	// Narrowing stops at its bound; the screen stays whole.
	for range 40 {
		hs.press("ctrl+left", "ctrl+down")
	}
	if hs.m.prefs.LeftPercent != minLeftPercent || hs.m.prefs.TodoPercent != minTodoPercent {
		t.Errorf("after many presses: %+v, want the minimums", hs.m.prefs)
	}
	hs.checkScreen(120, 40)
}

func TestBrokenLayoutFileIsReportedAndIgnored(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(path)
	if err == nil || !strings.Contains(err.Error(), "default layout") || !reflect.DeepEqual(p, prefs{}) {
		t.Errorf("broken file: %+v, %v; want the default layout and an error that says so", p, err)
	}
	os.WriteFile(path, []byte(`{"leftPercent": 500, "todoPercent": -4}`), 0o600)
	if p, err := loadPrefs(path); err != nil || p.LeftPercent != maxLeftPercent || p.TodoPercent != minTodoPercent {
		t.Errorf("out of range values: %+v, %v; want them clamped", p, err)
	}
	if p, err := loadPrefs(filepath.Join(t.TempDir(), "none.json")); err != nil || !reflect.DeepEqual(p, prefs{}) {
		t.Errorf("missing file: %+v, %v; want the default layout", p, err)
	}
}

func TestComposerGrowsWithWrappedText(t *testing.T) {
	hs := newHarness(t, demoState(t), 80, 24)
	for i := range 30 {
		hs.typeText("word" + itoa(i) + " ")
	}
	scr := hs.screen()
	for _, want := range []string{"word0 ", "word29"} {
		if !strings.Contains(scr, want) {
			t.Errorf("a wrapped message does not show %q:\n%s", want, scr)
		}
	}
	hs.checkScreen(80, 24)
}

func TestLayoutFlushedWhenSavesWereCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	w := &prefsWriter{path: path}
	_ = w.save(prefs{LeftPercent: 40}) // a Cmd Bubble Tea never ran: it quit first
	if err := w.flush(prefs{LeftPercent: 40}); err != nil {
		t.Fatal(err)
	}
	if p, err := loadPrefs(path); err != nil || p.LeftPercent != 40 {
		t.Errorf("after flush: %+v, %v; want the last layout on disk", p, err)
	}
	os.Remove(path)
	if err := w.flush(prefs{LeftPercent: 40}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("flush wrote although nothing changed since the last save")
	}
}
