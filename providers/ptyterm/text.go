package ptyterm

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// maxHeld bounds the unfinished escape sequence a Text holds back: a
// longer one (a runaway OSC) is passed to Strip as it is.
const maxHeld = 4 << 10

// Text turns a PTY's reads into plain text (see plain). A read can end
// inside an escape sequence or a UTF-8 character; that tail is held back
// and joined to the next read, so no fragment of a sequence ("[31m")
// reaches the text and no character is cut in two. The zero value is
// ready; it is not safe for concurrent use.
type Text struct{ held []byte }

// Next returns the text of one read.
func (t *Text) Next(b []byte) string {
	if len(t.held) > 0 {
		b = append(t.held, b...)
		t.held = nil
	}
	if k := unfinished(b); k > 0 {
		t.held = append([]byte(nil), b[len(b)-k:]...)
		b = b[:len(b)-k]
	}
	return plain(b)
}

// unfinished is how many trailing bytes of b are an escape sequence or a
// UTF-8 character that the next read will finish.
func unfinished(b []byte) int {
	from := max(0, len(b)-maxHeld)
	if i := lastIndex(b[from:], 0x1b); i >= 0 {
		i += from
		if !escapeDone(b[i:]) {
			return len(b) - i
		}
		if i >= len(b)-1 {
			return 0
		}
	}
	// A UTF-8 lead byte among the last three bytes whose character is cut.
	for i := len(b) - 1; i >= max(0, len(b)-3); i-- {
		if c := b[i]; c >= 0xc0 {
			if !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		} else if c < 0x80 {
			return 0
		}
	}
	return 0
}

func lastIndex(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// escapeDone reports whether the escape sequence at the start of s (s[0]
// is ESC) is complete within s.
func escapeDone(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	switch s[1] {
	case '[': // CSI: parameters, then a final byte 0x40-0x7e
		for _, c := range s[2:] {
			if c >= 0x40 && c <= 0x7e {
				return true
			}
		}
		return false
	case ']', 'P', '_', '^', 'X': // strings: end with BEL or ST (ESC \, itself a later ESC)
		return strings.IndexByte(string(s[2:]), 0x07) >= 0
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ': // one more byte
		return len(s) >= 3
	}
	return true
}

// plain is PTY output as plain text: ANSI sequences stripped
// (ansi.Strip), CRs dropped, so the PTY's CRLF line ends are LF. It runs
// on the PTY reader's path, so what most output is, ASCII with no escape
// sequence (which Strip leaves as it is), takes one pass and one copy.
func plain(b []byte) string {
	for _, c := range b {
		if c == 0x1b || c >= 0x7f {
			return strings.ReplaceAll(ansi.Strip(string(b)), "\r", "")
		}
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != '\r' {
			out = append(out, c)
		}
	}
	return string(out)
}
