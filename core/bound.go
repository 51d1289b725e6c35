package core

import (
	"fmt"
	"unicode/utf8"
)

// Agent text is untrusted and unbounded: one reply of 40 MiB, journaled
// as it came, grew the journal by 200 MB and made the state too big to
// send. A node keeps at most MaxNodeText bytes of text. Streamed text
// (node.text deltas) keeps its head: once a node holds MaxNodeText, the
// rest is dropped and one line says so. A text a provider sends whole
// (a tool call's output, updated in place) keeps its head and its tail,
// with a line in the middle saying how much was cut.
const MaxNodeText = 1 << 20

// cutNote ends a node's streamed text once it reached MaxNodeText.
const cutNote = "\n[… the rest is cut: a node keeps at most 1 MiB of text]\n"

// boundDelta is what of a streamed delta a node holding have bytes
// keeps: all of it, its head with cutNote, or nothing.
func boundDelta(have int, delta string) string {
	if have+len(delta) <= MaxNodeText {
		return delta
	}
	room := MaxNodeText - have
	if room <= 0 {
		return ""
	}
	return utf8Head(delta, room) + cutNote
}

// boundText keeps a whole text within MaxNodeText: its head and its tail
// with a line saying how many bytes were cut between them.
func boundText(s string) string {
	if len(s) <= MaxNodeText {
		return s
	}
	half := MaxNodeText / 2
	head, tail := utf8Head(s, half), utf8Tail(s, half)
	return head + fmt.Sprintf("\n[… %d bytes cut …]\n", len(s)-len(head)-len(tail)) + tail
}

// utf8Head is the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func utf8Head(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// utf8Tail is the longest suffix of s of at most n bytes that starts at
// a rune.
func utf8Tail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
