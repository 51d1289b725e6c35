package tui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Every key name of the KeyMap stands for a key press that matches its
// binding, so the palette can run any action by pressing its key.
func TestKeyPressNamesMatchTheirBindings(t *testing.T) {
	for _, g := range DefaultKeyMap().groups() {
		for _, b := range g.bindings {
			for _, name := range b.Keys() {
				p, ok := keyPress(name)
				if !ok {
					t.Errorf("%s: key name %q is not understood", g.title, name)
					continue
				}
				if !key.Matches(p, b) {
					t.Errorf("%s: the press for %q (%q) does not match its binding", g.title, name, p.String())
				}
			}
		}
	}
}

func TestPaletteListsEveryKeyAndThread(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("ctrl+k")
	d, ok := hs.m.dialogs[len(hs.m.dialogs)-1].(*paletteDialog)
	if !ok {
		t.Fatalf("ctrl+k did not open the palette:\n%s", hs.screen())
	}
	has := map[string]bool{}
	for _, e := range d.all {
		has[e.key+"|"+e.label] = true
		if e.thread != "" {
			has["thread|"+e.thread] = true
		}
	}
	for _, g := range hs.m.keys.groups() {
		for _, b := range g.bindings {
			if h := b.Help(); !has[h.Key+"|"+h.Desc] {
				t.Errorf("the palette lacks %s (%s)", h.Key, h.Desc)
			}
		}
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		if !has["thread|"+id] {
			t.Errorf("the palette lacks thread %s", id)
		}
	}
	hs.expectScreen("the palette", "╭─ Command palette", "fix the parser", "ctrl+g")
	hs.checkScreen(120, 40)
	small := newHarness(t, demoState(t), 40, 12)
	small.press("ctrl+k", "down", "down", "down")
	small.checkScreen(40, 12)
}

func TestPaletteFiltersAndRunsAnAction(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.typeText("draft")
	hs.press("ctrl+k")
	hs.typeText("new thread")
	scr := hs.screen()
	if !strings.Contains(scr, "ctrl+n") || strings.Contains(scr, "ctrl+g ") {
		t.Fatalf("the filter \"new thread\" does not narrow the list to the new thread action:\n%s", scr)
	}
	hs.press("enter")
	hs.expectScreen("enter on the new thread action", "╭─ New thread")
	hs.press("esc")
	if got := hs.m.composer.value(); got != "draft" {
		t.Errorf("the palette's filter reached the draft: %q", got)
	}
	hs.press("ctrl+k")
	hs.typeText("grid")
	hs.press("enter")
	if !hs.m.gridShown() {
		t.Errorf("enter on the grid action did not open the grid:\n%s", hs.screen())
	}
}

func TestPaletteFindsAThreadByName(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("ctrl+k")
	hs.typeText("docs")
	hs.press("enter")
	if hs.m.selected != "t2" {
		t.Fatalf("enter on \"docs\" selected %q, want t2 (write docs)", hs.m.selected)
	}
	if len(hs.m.dialogs) != 0 {
		t.Errorf("the palette stayed open")
	}
}

func TestPaletteSaysWhereADialogKeyWorks(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("ctrl+k")
	hs.typeText("stop the background host")
	hs.press("enter")
	if hs.quit || len(hs.m.dialogs) != 0 || hs.m.composer.value() != "" {
		t.Fatalf("a dialog's key ran from the palette (quit %v, dialogs %d, draft %q)", hs.quit, len(hs.m.dialogs), hs.m.composer.value())
	}
	hs.expectScreen("the flash", "s works in: Quit dialog")
}

// The palette's filter survives every editing key (alt+d on the last
// character once crashed the program inside bubbles' textinput).
func TestPaletteFilterEditingKeys(t *testing.T) {
	hs := newHarness(t, demoState(t), 80, 24)
	hs.press("ctrl+k")
	hs.typeText("a")
	hs.press("left", "alt+d", "ctrl+w", "alt+backspace", "end", "alt+d")
	hs.send(tea.PasteMsg{Content: "fix\nthe parser\n"})
	hs.press("enter")
	if hs.m.selected != "t1" {
		t.Errorf("a pasted filter did not find \"fix the parser\": selected %q", hs.m.selected)
	}
}
