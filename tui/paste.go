package tui

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// A large paste is kept aside as a paste block and the composer shows one
// token in its place, "[pasted 400 lines · 371 KB]". The textarea then
// holds what was typed and the tokens, nothing more, so a key press costs
// what it costs in a short draft however much was pasted (the textarea
// lays out and styles its whole text on every key: 0.3 s of Update and
// View for 400 KB, BenchmarkUpdateViewKeyPaste). The draft's real text,
// the one a send carries and tui.json keeps, is the textarea's text with
// each token replaced by its paste.

// A paste of more than foldLines lines or more than foldBytes bytes is
// folded into a token: the composer shows at most six rows, and a paste
// that would scroll out of them reads better as one line that says what it
// is. Smaller pastes are typed into the textarea as they always were.
const (
	foldLines = 10
	foldBytes = 2 << 10
)

// pasteBlock is a folded paste and where its token is.
type pasteBlock struct {
	text string // the paste as it is sent
	tok  string // its token, as the textarea shows it
	off  int    // the token's byte offset in the textarea's text
	nl   int    // newlines in text, for the line count
}

func newBlock(text string, off int) pasteBlock {
	nl := strings.Count(text, "\n")
	return pasteBlock{text: text, tok: pasteToken(text, nl), off: off, nl: nl}
}

// end is the byte offset just past the block's token.
func (b pasteBlock) end() int { return b.off + len(b.tok) }

// foldsAway reports whether a paste is folded into a token.
func foldsAway(text string) bool {
	return len(text) > foldBytes || countLines(text) > foldLines
}

// pasteToken is what the composer shows for a folded paste. It has no
// newline, so a token always lies within one line of the textarea.
func pasteToken(text string, nl int) string {
	return "[pasted " + linesLabel(lineCount(text, nl)) + " · " + sizeLabel(len(text)) + "]"
}

// countLines is how many lines text has: a final newline ends the last
// line rather than starting another.
func countLines(text string) int { return lineCount(text, strings.Count(text, "\n")) }

func lineCount(text string, nl int) int {
	if text != "" && !strings.HasSuffix(text, "\n") {
		nl++
	}
	return nl
}

func linesLabel(n int) string {
	if n == 1 {
		return "1 line"
	}
	return itoa(n) + " lines"
}

// sizeLabel is a byte count as people read it: 812 B, 371 KB, 1.2 MB.
func sizeLabel(n int) string {
	switch {
	case n < 1<<10:
		return itoa(n) + " B"
	case n < 1<<20:
		return itoa((n+1<<9)>>10) + " KB"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// cleanPaste makes pasted text what a message carries: a terminal sends a
// pasted line break as CR (tmux) or CR LF, which become LF; other control
// characters but tabs are dropped. Everything else is kept byte for byte.
func cleanPaste(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n', r == '\t':
			return r
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// draft is a composer's content in full: the text a send carries and the
// byte ranges of it that show folded.
type draft struct {
	text   string
	pastes []span
}

// span is a byte range of a draft's text that shows as a paste token.
// tui.json keeps them next to the draft's text.
type span struct {
	Off int `json:"off"`
	Len int `json:"len"`
}

// validSpans keeps the spans that lie inside a text of n bytes, in order,
// without overlaps: a hand-edited or cut tui.json never breaks a draft.
func validSpans(spans []span, n int) []span {
	s := append([]span(nil), spans...)
	sort.Slice(s, func(i, j int) bool { return s[i].Off < s[j].Off })
	out := s[:0]
	next := 0
	for _, p := range s {
		if p.Off >= next && p.Len > 0 && p.Off+p.Len <= n {
			out = append(out, p)
			next = p.Off + p.Len
		}
	}
	return out
}

// expand is the draft whose textarea text is v: each token replaced by its
// paste.
func expand(v string, blocks []pasteBlock) draft {
	if len(blocks) == 0 {
		return draft{text: v}
	}
	n := len(v)
	for _, b := range blocks {
		n += len(b.text) - len(b.tok)
	}
	var out strings.Builder
	out.Grow(n)
	spans := make([]span, 0, len(blocks))
	prev := 0
	for _, b := range blocks {
		out.WriteString(v[prev:b.off])
		spans = append(spans, span{Off: out.Len(), Len: len(b.text)})
		out.WriteString(b.text)
		prev = b.end()
	}
	out.WriteString(v[prev:])
	return draft{text: out.String(), pastes: spans}
}
