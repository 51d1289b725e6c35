package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// composer is the multi-line message input with a history of what was
// sent. Enter is handled by the root model (it sends); the textarea only
// ever inserts newlines on the Newline keys. Large pastes are folded into
// tokens (paste.go): the textarea holds the typed text and the tokens,
// blocks the pastes.
type composer struct {
	ta textarea.Model
	// blocks are the folded pastes, in the order of their tokens.
	// Invariant: each block's token lies at its offset in ta.Value(),
	// tokens do not overlap, and the cursor is never strictly inside one.
	blocks  []pasteBlock
	history []draft
	// hist is the history entry shown while browsing; len(history) when
	// not browsing. An edit ends browsing.
	hist int
}

// maxHistory bounds the composer history kept in memory.
const maxHistory = 200

func newComposer(st themes.Styles, keys KeyMap) composer {
	ta := textarea.New()
	ta.Prompt = ""
	ta.ShowLineNumbers = false
	ta.Placeholder = "Write to the agent. enter sends · alt+enter new line"
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(keys.Newline.Keys()...))
	// The root model owns these keys; the textarea must not act on them.
	ta.KeyMap.LineNext = key.NewBinding(key.WithKeys("down"))
	ta.KeyMap.LinePrevious = key.NewBinding(key.WithKeys("up"))
	ta.KeyMap.PageUp = key.NewBinding(key.WithDisabled())
	ta.KeyMap.PageDown = key.NewBinding(key.WithDisabled())
	ta.KeyMap.SelectAll = key.NewBinding(key.WithDisabled())
	// ctrl+u clears the whole draft (KeyMap.ClearDraft), not the line
	// before the cursor.
	ta.KeyMap.DeleteBeforeCursor = key.NewBinding(key.WithDisabled())
	s := textarea.DefaultStyles(st.Theme.Name != themes.Light)
	for _, ss := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		ss.Base = st.InputText
		ss.Text = st.InputText
		ss.CursorLine = st.InputText
		ss.Placeholder = st.Placeholder
		ss.EndOfBuffer = st.Muted
		ss.Prompt = st.Muted
	}
	s.Cursor.Color = st.CursorColor
	s.Cursor.Blink = false // a blinking cursor repaints twice a second for nothing
	ta.SetStyles(s)
	return composer{ta: ta}
}

// newInput is a one-line input styled from the theme, without blinking.
func newInput(st themes.Styles, placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	s := textinput.DefaultStyles(st.Theme.Name != themes.Light)
	s.Focused.Text, s.Blurred.Text = st.InputText, st.InputText
	s.Focused.Placeholder, s.Blurred.Placeholder = st.Placeholder, st.Placeholder
	s.Focused.Prompt, s.Blurred.Prompt = st.Muted, st.Muted
	s.Cursor.Color = st.CursorColor
	s.Cursor.Blink = false
	in.SetStyles(s)
	// bubbles v2.2.1 indexes past the value when alt+d (delete the word
	// after the cursor) is pressed on the last character, and panics;
	// without the binding the key does nothing.
	in.KeyMap.DeleteWordForward = key.NewBinding(key.WithDisabled())
	return in
}

func (c *composer) focus() { c.ta.Focus() }
func (c *composer) blur()  { c.ta.Blur() }

// draft is the composer's content in full, pastes expanded.
func (c *composer) draft() draft { return expand(c.ta.Value(), c.blocks) }

// value is the text a send would carry.
func (c *composer) value() string { return c.draft().text }

func (c *composer) empty() bool { return len(c.blocks) == 0 && c.ta.Value() == "" }

// blank reports whether there is nothing to send: no text but spaces.
func (c *composer) blank() bool {
	if len(c.blocks) == 0 {
		return strings.TrimSpace(c.ta.Value()) == ""
	}
	return strings.TrimSpace(c.value()) == ""
}

// lines is how many rows the input wants at width w: its lines of text,
// long ones counted as wrapped. It stops counting at limit.
func (c *composer) lines(w, limit int) int {
	n := 0
	for _, l := range strings.Split(c.ta.Value(), "\n") {
		n += max(1, (ansi.StringWidth(l)+w-1)/max(1, w))
		if n >= limit {
			return limit
		}
	}
	return max(1, n)
}

func (c *composer) setSize(w, h int) {
	c.ta.SetWidth(max(1, w))
	c.ta.SetHeight(max(1, h))
}

// take empties the input, records the draft in the history and returns
// it.
func (c *composer) take() draft {
	d := c.draft()
	c.ta.Reset()
	c.blocks = nil
	c.remember(d)
	return d
}

// clear empties the input (ctrl+u, ctrl+c on a draft). The draft goes into
// the history first, so up brings it back.
func (c *composer) clear() { c.take() }

// remember adds a draft to the history, unless it is blank or the newest
// entry already.
func (c *composer) remember(d draft) {
	if strings.TrimSpace(d.text) != "" && (len(c.history) == 0 || c.history[len(c.history)-1].text != d.text) {
		c.history = append(c.history, d)
		if len(c.history) > maxHistory {
			c.history = c.history[len(c.history)-maxHistory:]
		}
	}
	c.hist = len(c.history)
}

// restore puts a draft back after a failed send, unless the user already
// typed something new.
func (c *composer) restore(d draft) {
	if c.empty() {
		c.load(d)
	}
}

// browsing reports whether the input shows a history entry unchanged, so
// up and down keep walking the history.
func (c *composer) browsing() bool { return c.hist < len(c.history) }

// historyStep walks the history: -1 older, +1 newer. Past the newest it
// empties the input.
func (c *composer) historyStep(d int) {
	if !c.browsing() {
		c.hist = len(c.history)
	}
	n := c.hist + d
	if n < 0 || n > len(c.history) {
		return
	}
	if n < len(c.history) {
		c.load(c.history[n])
	} else {
		c.load(draft{})
	}
	c.hist = n
}

// sendMode is what Enter will do for the selected thread, as shown next
// to the input: the policy of message.send mode auto
// (docs/ARCHITECTURE.md, "Commands and events").
func sendMode(st *core.State, th *core.Thread) string {
	if th == nil || st == nil {
		return "auto"
	}
	r := st.ActiveRun(th.ID)
	switch {
	case r == nil:
		return "auto: start a run"
	case r.AwaitBase:
		return "auto: add to the starting run"
	case r.Finishing != "":
		return "auto: queue after the finishing run"
	case th.Caps.Steer:
		return "auto: steer the active run"
	}
	return "auto: restart the active run"
}

func (m *Model) renderComposer(r rect) []string {
	th := m.selectedThread()
	title := "Message"
	if th != nil {
		title += " → " + threadTitle(th)
	}
	title += " · " + sendMode(m.state, th)
	footer := "enter send · " + m.keys.Queue.Help().Key + " queue · " + m.keys.Restart.Help().Key + " restart"
	if r.w < 70 {
		footer = ""
	}
	body := strings.Split(m.composerBody(), "\n")
	if n := r.h - 2; len(body) > n {
		body = body[:max(0, n)]
	}
	out := m.box(title, footer, m.focus == focusComposer, r.w, r.h, body)
	if len(out) > 0 {
		// The mode is the point of the title: keep it visible and styled.
		out[0] = m.composerEdge(title, r.w, th)
	}
	return out
}

// composerEdge is the composer's top edge with the send mode highlighted
// and, at its right end, the draft's size once it has more than one line
// (a narrow edge keeps the mode and drops the size).
func (m *Model) composerEdge(title string, w int, th *core.Thread) string {
	k := composerEdgeKey{title: title, w: w, focused: m.focus == focusComposer, count: m.composer.countLabel()}
	if m.edge.s == "" || m.edge.key != k {
		m.edge.key, m.edge.s = k, m.drawComposerEdge(title, w, th)
	}
	return m.edge.s
}

// composerEdgeKey is what the composer's edge depends on besides the
// theme (the title carries the send mode); invalidateAll forgets it.
type composerEdgeKey struct {
	title, count string
	w            int
	focused      bool
}

type composerEdge struct {
	key composerEdgeKey
	s   string
}

func (m *Model) drawComposerEdge(title string, w int, th *core.Thread) string {
	bs, ts := m.st.Border, m.st.Title
	if m.focus == focusComposer {
		bs, ts = m.st.BorderFocused, m.st.TitleFocused
	}
	mode := sendMode(m.state, th)
	head := strings.TrimSuffix(title, " · "+mode)
	if count := m.composer.countLabel(); count != "" {
		count = " " + count + " "
		if room := w - 10 - len(mode) - ansi.StringWidth(count); room >= 12 {
			label := " " + trunc(head, room) + " · "
			line := bs.Render("╭─") + ts.Render(label) + m.st.Mode.Render(mode+" ")
			fill := w - 2 - ansi.StringWidth(line) - ansi.StringWidth(count)
			return line + bs.Render(strings.Repeat("─", max(0, fill))) + ts.Render(count) + bs.Render("─╮")
		}
	}
	label := " " + trunc(head, max(1, w-8-len(mode))) + " · "
	line := bs.Render("╭─") + ts.Render(label) + m.st.Mode.Render(mode+" ")
	return ansi.Truncate(line+bs.Render(strings.Repeat("─", max(0, w))), w-1, "") + bs.Render("╮")
}

// setDraft replaces the input with a thread's draft.
func (c *composer) setDraft(d draft) {
	c.load(d)
	c.hist = len(c.history)
}
