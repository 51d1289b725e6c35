package tui

import (
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// The composer's side of paste tokens (paste.go, paste_edit.go): loading
// a draft folds its pastes, every key goes through keepTokens, and a large
// paste becomes a token at the cursor.

// update hands a message to the textarea and keeps the tokens whole.
func (c *composer) update(msg tea.Msg) tea.Cmd {
	before := c.ta.Value()
	cb := cursorOffset(before, c.ta.Line(), c.ta.Column())
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	after := c.ta.Value()
	if after != before {
		c.hist = len(c.history) // an edited history entry is a new draft
	}
	if len(c.blocks) == 0 {
		return cmd
	}
	if after != before {
		text, cur, kept := keepTokens(before, after, c.blocks)
		c.blocks = kept
		if text != after {
			if cur < 0 {
				cur = cb // the edit was undone
			}
			c.setText(text, cur)
			return cmd
		}
	}
	ca := cursorOffset(after, c.ta.Line(), c.ta.Column())
	if s := snapOut(ca, cb, c.blocks); s != ca {
		ls := strings.LastIndexByte(after[:s], '\n') + 1
		c.ta.SetCursorColumn(utf8.RuneCountInString(after[ls:s]))
	}
	return cmd
}

// paste takes a bracketed paste, cleaned (a CR LF line break is one line
// break, not two): a large one is folded into a token at the cursor
// (replacing a selection, as a paste does), a small one is typed.
func (c *composer) paste(content string) tea.Cmd {
	text := cleanPaste(content)
	if !foldsAway(text) {
		return c.update(tea.PasteMsg{Content: text})
	}
	if c.ta.HasSelection() {
		c.update(tea.PasteMsg{})
	}
	off := cursorOffset(c.ta.Value(), c.ta.Line(), c.ta.Column())
	b := newBlock(text, off)
	for i := range c.blocks {
		if c.blocks[i].off >= off {
			c.blocks[i].off += len(b.tok)
		}
	}
	c.blocks = append(c.blocks, b)
	sort.Slice(c.blocks, func(i, j int) bool { return c.blocks[i].off < c.blocks[j].off })
	c.ta.InsertString(b.tok)
	c.hist = len(c.history)
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(nil) // scrolls the textarea to the cursor
	return cmd
}

// load replaces the input with a draft, its pastes folded, the cursor at
// the end. The text between pastes goes through the textarea's own
// cleaning, and each token's offset is taken after it.
func (c *composer) load(d draft) {
	c.ta.Reset()
	c.blocks = nil
	prev := 0
	for _, p := range validSpans(d.pastes, len(d.text)) {
		c.ta.InsertString(d.text[prev:p.Off])
		b := newBlock(d.text[p.Off:p.Off+p.Len], len(c.ta.Value()))
		c.ta.InsertString(b.tok)
		c.blocks = append(c.blocks, b)
		prev = p.Off + p.Len
	}
	c.ta.InsertString(d.text[prev:])
}

// setText replaces the textarea's text (already clean: it came from the
// textarea) and puts the cursor at byte offset cur.
func (c *composer) setText(text string, cur int) {
	c.ta.Reset()
	c.ta.InsertString(text[cur:])
	c.ta.MoveToBegin()
	c.ta.InsertString(text[:cur])
	c.ta, _ = c.ta.Update(nil) // scrolls the textarea to the cursor
}

// cursorOffset is the byte offset in text of the textarea's cursor at
// row and column (in runes).
func cursorOffset(text string, row, col int) int {
	off := 0
	for ; row > 0; row-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	for ; col > 0 && off < len(text) && text[off] != '\n'; col-- {
		_, w := utf8.DecodeRuneInString(text[off:])
		off += w
	}
	return off
}

// size is the draft's line count and bytes, pastes included, without
// expanding it: the composer's edge shows them on every frame.
func (c *composer) size() (lines, bytes int) {
	v := c.ta.Value()
	if v == "" && len(c.blocks) == 0 {
		return 0, 0
	}
	nl, bytes := strings.Count(v, "\n"), len(v)
	for _, b := range c.blocks {
		nl += b.nl
		bytes += len(b.text) - len(b.tok)
	}
	endsNL := strings.HasSuffix(v, "\n")
	if n := len(c.blocks); n > 0 && c.blocks[n-1].end() == len(v) {
		endsNL = strings.HasSuffix(c.blocks[n-1].text, "\n")
	}
	if !endsNL {
		nl++
	}
	return nl, bytes
}

// countLabel is what the composer's edge says about a draft of more than
// one line: "12 lines", or "400 lines · 371 KB" from a kilobyte on.
func (c *composer) countLabel() string {
	lines, bytes := c.size()
	if lines <= 1 {
		return ""
	}
	if bytes < 1<<10 {
		return linesLabel(lines)
	}
	return linesLabel(lines) + " · " + sizeLabel(bytes)
}
