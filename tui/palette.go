package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/themes"
)

// paletteEntry is one line of the command palette: a thread to select,
// or an action of the KeyMap with its key.
type paletteEntry struct {
	label   string // what the action does, or the thread's title
	key     string // the key as the help shows it; "" for a thread
	context string // the help group the key belongs to
	thread  string // a thread entry's id
	// press is the key the palette presses to run the action; runs is
	// false for keys that only mean something in a dialog or that type
	// text (enter then says where the key works).
	press tea.KeyPressMsg
	runs  bool
	// global: the key works everywhere (its context goes unsaid).
	global bool
	hay    string // lower-case text the filter matches
}

// actPalette: run a palette entry, then close.
type actPalette struct{ entry paletteEntry }

func (actPalette) isAction() {}

// paletteDialog lists every thread and every key of the KeyMap (so a
// key another part of the UI adds appears by itself), filtered as the
// person types: every word of the filter must occur in the entry.
type paletteDialog struct {
	input  textinput.Model
	all    []paletteEntry
	shown  []int // indexes into all that pass the filter
	cursor int
	top    int
}

// openPalette opens the palette over whatever shows.
func (m *Model) openPalette() tea.Cmd {
	d := &paletteDialog{input: newInput(m.st, "type to filter: a thread, an action or a key")}
	d.input.Focus()
	for _, r := range m.rows {
		d.all = append(d.all, paletteEntry{label: threadTitle(r.th), context: "thread", thread: r.th.ID,
			hay: strings.ToLower("thread " + threadTitle(r.th) + " " + r.th.Provider + " " + r.th.ID)})
	}
	for i, g := range m.keys.groups() {
		for _, b := range g.bindings {
			h := b.Help()
			e := paletteEntry{label: h.Desc, key: h.Key, context: g.title, global: i == 0,
				hay: strings.ToLower(h.Desc + " " + h.Key + " " + g.title)}
			if ks := b.Keys(); len(ks) > 0 {
				p, ok := keyPress(ks[0])
				e.press = p
				e.runs = ok && !printable(p) && !key.Matches(p, m.keys.Palette) &&
					(i == 0 || !strings.Contains(strings.ToLower(g.title), "dialog"))
			}
			d.all = append(d.all, e)
		}
	}
	d.filter()
	m.pushDialog(d)
	return nil
}

// filter recomputes the shown entries from the input.
func (d *paletteDialog) filter() {
	words := strings.Fields(strings.ToLower(d.input.Value()))
	d.shown = d.shown[:0]
	for i, e := range d.all {
		ok := true
		for _, w := range words {
			if !strings.Contains(e.hay, w) {
				ok = false
				break
			}
		}
		if ok {
			d.shown = append(d.shown, i)
		}
	}
	d.cursor, d.top = 0, 0
}

func (d *paletteDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case isKey && key.Matches(k, keys.CancelDialog, keys.Palette):
		return actClose{}, nil
	case isKey && key.Matches(k, keys.Confirm):
		if len(d.shown) == 0 {
			return actNone{}, nil
		}
		return actPalette{entry: d.all[d.shown[d.cursor]]}, nil
	case isKey && key.Matches(k, keys.Up, keys.PrevField):
		d.cursor = max(0, d.cursor-1)
		return actNone{}, nil
	case isKey && key.Matches(k, keys.Down, keys.NextField):
		d.cursor = max(0, min(len(d.shown)-1, d.cursor+1))
		return actNone{}, nil
	case isKey && key.Matches(k, keys.PageUp):
		d.cursor = max(0, d.cursor-10)
		return actNone{}, nil
	case isKey && key.Matches(k, keys.PageDown):
		d.cursor = max(0, min(len(d.shown)-1, d.cursor+10))
		return actNone{}, nil
	}
	before := d.input.Value()
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	if d.input.Value() != before {
		d.filter()
	}
	return actNone{}, cmd
}

func (d *paletteDialog) view(st *themes.Styles, maxW, maxH int) []string {
	inner := max(20, maxW-4)
	d.input.SetWidth(max(1, inner-4))
	body := []string{st.Muted.Render("› ") + d.input.View(), ""}
	room := max(1, maxH-4-len(body)-2)
	if d.cursor < d.top {
		d.top = d.cursor
	}
	if d.cursor >= d.top+room {
		d.top = d.cursor - room + 1
	}
	keyW := 0
	for _, i := range d.shown {
		keyW = max(keyW, len(d.all[i].key))
	}
	keyW = min(keyW, 18)
	if len(d.shown) == 0 {
		body = append(body, st.Muted.Render("nothing matches"))
	}
	for n := d.top; n < len(d.shown) && n < d.top+room; n++ {
		e := d.all[d.shown[n]]
		k := e.key
		if e.thread != "" {
			k = "thread"
		}
		line := fit(k, keyW) + "  " + oneLine(e.label)
		if e.thread == "" && !e.global {
			line += " · " + e.context
		}
		line = trunc(line, inner-2)
		switch {
		case n == d.cursor:
			body = append(body, st.Selected.Render(fit("▸ "+line, inner)))
		case e.thread == "" && !e.runs:
			body = append(body, st.Muted.Render("  "+line))
		default:
			body = append(body, st.Text.Render("  "+line))
		}
	}
	for len(body) < room+2 {
		body = append(body, "") // a steady height: the box does not jump as the list narrows
	}
	hints := "enter run · up/down choose · esc close · " + itoa(len(d.shown)) + " of " + itoa(len(d.all))
	return dialogFrame(st, "Command palette", body, hints, maxW, maxH)
}

// runPalette carries out a palette entry: select the thread, or press
// the action's key as if the person had.
func (m *Model) runPalette(e paletteEntry) tea.Cmd {
	if e.thread != "" {
		if m.state == nil || m.state.Threads[e.thread] == nil {
			return m.setFlash("that thread is gone", true)
		}
		if indexOf(m.visibleRows(), e.thread) < 0 {
			m.threads.filter.SetValue("") // the list filter hid it: show it again
		}
		m.selectThread(e.thread)
		if i := indexOf(m.visibleRows(), e.thread); m.grid.on && i >= 0 {
			m.grid.cursor = i
		}
		return nil
	}
	if !e.runs {
		return m.setFlash(e.key+" works in: "+e.context, false)
	}
	return m.handleKey(e.press)
}
