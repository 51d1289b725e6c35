package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/internal/textsafe"
)

// sanitize makes text from agents, tools and people safe to draw
// (internal/textsafe): escape sequences are removed (an agent must not be
// able to move the cursor or retitle the terminal), tabs become spaces,
// other control characters are dropped, and bidirectional controls are
// shown. Newlines stay.
func sanitize(s string) string { return textsafe.Clean(s) }

// oneLine sanitizes s and folds it onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(sanitize(s)), " ")
}

// wrap sanitizes text and wraps it to width cells; every returned line is
// at most width cells wide. Empty text gives no lines.
func wrap(text string, width int) []string {
	if text == "" {
		return nil
	}
	var out []string
	for _, para := range strings.Split(sanitize(text), "\n") {
		out = wrapPara(out, para, width)
	}
	return out
}

// wrapPara appends one sanitized paragraph (no newline in it) wrapped to
// width cells, as wrap does for each of its paragraphs.
func wrapPara(out []string, para string, width int) []string {
	if width < 1 {
		width = 1
	}
	if para == "" {
		return append(out, "")
	}
	for _, l := range strings.Split(ansi.Wrap(para, width, ""), "\n") {
		out = append(out, ansi.Truncate(strings.TrimRight(l, " "), width, ""))
	}
	return out
}

// wrapIndent wraps text to width with a prefix on the first line and an
// indent of the same width on the others, then styles each line.
func wrapIndent(text, first string, width int, st lipgloss.Style) []string {
	pw := ansi.StringWidth(first)
	lines := wrap(text, width-pw)
	out := make([]string, 0, len(lines))
	pad := strings.Repeat(" ", pw)
	for i, l := range lines {
		p := pad
		if i == 0 {
			p = first
		}
		out = append(out, p+st.Render(l))
	}
	return out
}

// fit truncates a (possibly styled) line to exactly w cells, padding with
// spaces. It is the last step before a line reaches the screen, so no
// line is ever wider than its pane.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// trunc shortens plain text to at most w cells with an ellipsis.
func trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// overlay draws box (lines of equal width) over base at column x, row y.
// base lines are exactly width cells wide and stay so.
func overlay(base, box []string, x, y, width int) {
	for i, l := range box {
		row := y + i
		if row < 0 || row >= len(base) {
			continue
		}
		bw := ansi.StringWidth(l)
		left := ansi.Cut(base[row], 0, x)
		right := ansi.Cut(base[row], x+bw, width)
		base[row] = fit(fit(left, x)+ansi.ResetStyle+l+ansi.ResetStyle+right, width)
	}
}

// clamp bounds v to [lo, hi]; hi < lo yields lo.
func clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
