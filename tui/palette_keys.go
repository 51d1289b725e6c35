package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// keyNames are the key names the KeyMap uses for keys without text.
var keyNames = map[string]rune{
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
	"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "insert": tea.KeyInsert,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"f1": tea.KeyF1, "f2": tea.KeyF2, "f3": tea.KeyF3, "f4": tea.KeyF4, "f5": tea.KeyF5, "f6": tea.KeyF6,
	"f7": tea.KeyF7, "f8": tea.KeyF8, "f9": tea.KeyF9, "f10": tea.KeyF10, "f11": tea.KeyF11, "f12": tea.KeyF12,
}

// keyPress is the key press a KeyMap key name stands for ("ctrl+g",
// "alt+down", "shift+tab", "f1", "?"), so that the palette can run an
// action by pressing its key; false for a name it does not know.
func keyPress(name string) (tea.KeyPressMsg, bool) {
	var mod tea.KeyMod
	for _, p := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"alt+", tea.ModAlt}, {"shift+", tea.ModShift}} {
		if rest, ok := strings.CutPrefix(name, p.prefix); ok && rest != "" {
			mod |= p.mod
			name = rest
		}
	}
	if c, ok := keyNames[name]; ok {
		return tea.KeyPressMsg{Code: c, Mod: mod}, true
	}
	r := []rune(name)
	if len(r) != 1 {
		return tea.KeyPressMsg{}, false
	}
	if mod == 0 {
		return tea.KeyPressMsg{Code: r[0], Text: name}, true
	}
	return tea.KeyPressMsg{Code: r[0], Mod: mod}, true
}
