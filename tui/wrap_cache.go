package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// maxWrapEntries bounds the wrap cache; past it the cache starts over
// (a long session that opened many threads at many widths).
const maxWrapEntries = 4096

// wrapCache keeps each node's text wrapped and styled, per width and
// purpose, so that a growing text costs only what it added: a streaming
// reply re-wraps its last paragraph and the new text, never the whole
// reply. Without it every delta re-wrapped and re-styled a run's whole
// text (through lipgloss), and the cost of a frame grew with the run.
//
// Only the paragraphs before a "safe" newline are kept: a newline that
// ends a prefix free of escape sequences, C1 controls and invalid UTF-8,
// where sanitizing the prefix and the rest apart gives what sanitizing
// the whole does. Text after an escape sequence is wrapped afresh each
// time (still correct, only not cached).
type wrapCache struct{ m map[string]*wrapped }

// wrapped is one node's text at one width and purpose.
type wrapped struct {
	// src is the text whose paragraphs lines hold; it ends at a safe
	// newline. Invariant: lines == the paragraph lines of src.
	src   string
	lines []string
}

// paraFunc styles one sanitized paragraph; at is how many lines come
// before it.
type paraFunc func(para string, at int) []string

// lines returns text split into sanitized paragraphs, each drawn by
// para, as one slice the caller may append to. key names the width and
// the drawing (the same key must always mean the same para).
func (c *wrapCache) lines(id, key, text string, para paraFunc) []string {
	if text == "" {
		return nil
	}
	if c.m == nil || len(c.m) > maxWrapEntries {
		c.m = map[string]*wrapped{}
	}
	k := id + "\x00" + key
	e := c.m[k]
	if e == nil || !strings.HasPrefix(text, e.src) {
		e = &wrapped{}
		c.m[k] = e
	}
	rest := text[len(e.src):]
	if cut := safeCut(rest); cut > 0 {
		for _, p := range strings.Split(sanitize(rest[:cut-1]), "\n") {
			e.lines = append(e.lines, para(p, len(e.lines))...)
		}
		e.src, rest = text[:len(e.src)+cut], rest[cut:]
	}
	out := e.lines[:len(e.lines):len(e.lines)]
	for _, p := range strings.Split(sanitize(rest), "\n") {
		out = append(out, para(p, len(out))...)
	}
	return out
}

// drop forgets every wrapped text (a new theme restyles them all).
func (c *wrapCache) drop() { c.m = nil }

// safeCut is the length of the longest prefix of s that ends with a
// newline and holds no escape sequence, C1 control or invalid UTF-8; 0
// when there is none.
func safeCut(s string) int {
	cut := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b == 0x1b {
				return cut
			}
			i++
			if b == '\n' {
				cut = i
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (r >= 0x80 && r < 0xa0) {
			return cut
		}
		i += n
	}
	return cut
}

// wrapIndentCached is wrapIndent through the cache.
func (m *Model) wrapIndentCached(id, text, first string, width int, st lipgloss.Style) []string {
	pw := ansi.StringWidth(first)
	pad := strings.Repeat(" ", pw)
	key := "indent\x00" + itoa(width) + "\x00" + first
	return m.wraps.lines(id, key, text, func(p string, at int) []string {
		parts := wrapPara(nil, p, width-pw)
		for i, l := range parts {
			prefix := pad
			if at+i == 0 {
				prefix = first
			}
			parts[i] = prefix + st.Render(l)
		}
		return parts
	})
}

// bodyLinesCached is bodyLines through the cache.
func (m *Model) bodyLinesCached(id, text string, w int, indent string) []string {
	key := "body\x00" + itoa(w) + "\x00" + indent
	return m.wraps.lines(id, key, text, func(line string, _ int) []string {
		return m.bodyLine(line, w, indent)
	})
}
