package tui

import (
	"strings"
	"unicode/utf8"
)

// The textarea knows nothing of paste tokens: it edits them as text. After
// each key the composer compares the text before and after (one edit,
// found by its common prefix and suffix) and keeps every token whole:
//
//   - an edit that removes part of a token removes all of it, and with it
//     the paste (backspace right after a token, delete right before it,
//     a word deletion or a selection that reaches into it);
//   - text typed inside a token goes right after it;
//   - a case change of a token (alt+u, alt+l, alt+c) is undone;
//   - the cursor never rests inside a token: a move that lands there goes
//     on to the token's far edge in the direction it moved.
//
// The text is at most a few lines of typing plus the tokens, so the
// comparison costs nothing next to the textarea's own work.

// edit is one change of a text: before[at:at+del] became after[at:at+ins].
type edit struct{ at, del, ins int }

// findEdit finds the edit that turned before into after. Where the text
// allows more than one place for it (typing "]" right after a token that
// ends in "]"), it takes the last place that cuts no token.
func findEdit(before, after string, blocks []pasteBlock) edit {
	lb, la := len(before), len(after)
	n := min(lb, la)
	p := 0
	for p < n && before[p] == after[p] {
		p++
	}
	sMax := 0
	for sMax < n && before[lb-1-sMax] == after[la-1-sMax] {
		sMax++
	}
	s := min(sMax, n-p)
	e := edit{at: p, del: lb - p - s, ins: la - p - s}
	for k := p; k >= max(0, lb-e.del-sMax); k-- {
		if c := (edit{at: k, del: e.del, ins: e.ins}); !c.cuts(blocks) {
			e = c
			break
		}
	}
	// Whole characters only, so that the inserted text can be moved.
	for e.at > 0 && e.at < la && !utf8.RuneStart(after[e.at]) {
		e.at, e.del, e.ins = e.at-1, e.del+1, e.ins+1
	}
	for e.at+e.ins < la && !utf8.RuneStart(after[e.at+e.ins]) {
		e.del, e.ins = e.del+1, e.ins+1
	}
	return e
}

// cuts reports whether the edit breaks a token: inserts inside it, or
// removes part of it but not all.
func (e edit) cuts(blocks []pasteBlock) bool {
	for _, b := range blocks {
		if b.cutBy(e) {
			return true
		}
	}
	return false
}

func (b pasteBlock) cutBy(e edit) bool {
	if e.del == 0 {
		return b.off < e.at && e.at < b.end()
	}
	overlaps := e.at < b.end() && e.at+e.del > b.off
	whole := e.at <= b.off && b.end() <= e.at+e.del
	return overlaps && !whole
}

// keepTokens applies the rules above to one change of the textarea's text.
// It returns the text the textarea must hold, where its cursor goes (-1:
// where the textarea put it, or where it was if the edit was undone), and
// the blocks that are left, at their new offsets.
func keepTokens(before, after string, blocks []pasteBlock) (text string, cursor int, kept []pasteBlock) {
	e := findEdit(before, after, blocks)
	ins := after[e.at : e.at+e.ins]
	// The span of before that is replaced by ins.
	from, to := e.at, e.at+e.del
	cursor = -1
	if e.cuts(blocks) {
		if e.del > 0 && e.del == e.ins && strings.EqualFold(before[from:to], ins) {
			return before, -1, blocks // a case change: tokens keep theirs
		}
		for _, b := range blocks {
			if !b.cutBy(e) {
				continue
			}
			if e.del == 0 {
				from, to = b.end(), b.end() // typed inside: goes after it
			} else {
				from, to = min(from, b.off), max(to, b.end())
			}
		}
		text = before[:from] + ins + before[to:]
		cursor = from + len(ins)
	} else {
		text = after
	}
	shift := from + len(ins) - to
	kept = make([]pasteBlock, 0, len(blocks))
	for _, b := range blocks {
		switch {
		case b.end() <= from:
			kept = append(kept, b)
		case b.off >= to:
			b.off += shift
			kept = append(kept, b)
		}
		// Otherwise the edit removed the whole token, and the paste with it.
	}
	return text, cursor, kept
}

// snapOut moves a cursor offset that lies inside a token to the token's
// edge: the start if the cursor moved left (from before), else the end.
func snapOut(cur, before int, blocks []pasteBlock) int {
	for _, b := range blocks {
		if b.off < cur && cur < b.end() {
			if cur < before {
				return b.off
			}
			return b.end()
		}
	}
	return cur
}
