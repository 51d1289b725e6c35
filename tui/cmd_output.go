package tui

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// maxCmdRows and maxCmdBytes bound the output laid out through the
// emulator (it runs when a run is drawn, on the event loop); longer
// output is shown as plain lines.
const (
	maxCmdRows  = 2000
	maxCmdBytes = 16 << 10
)

// cmdLayout is a node's output as commandText laid it out, for the text
// length and width it was laid out at (a node's text only grows).
type cmdLayout struct {
	n, w int
	text string
}

// commandOutput is commandText, remembered per node: a run is drawn again
// whenever anything in it changes, and a finished command's output need
// not go through the emulator each time.
//
// While the command runs its output changes with every flush, so it is
// only cut to what follows each line's last carriage return (a progress
// bar's latest state), which costs one pass.
func (m *Model) commandOutput(id, text string, w int, running bool) string {
	if running {
		return lastRedraws(text)
	}
	if c, ok := m.cmdOut[id]; ok && c.n == len(text) && c.w == w {
		return c.text
	}
	out := commandText(text, w)
	m.cmdOut[id] = cmdLayout{n: len(text), w: w, text: out}
	return out
}

// commandText is a run_command step's output as a terminal w columns
// wide would leave it: it goes through an x/vt emulator as tall as the
// output, so carriage returns overwrite (progress bars end as their last
// state), backspaces and cursor moves apply, and lines wrap where the
// terminal would wrap them. The worker's PTY does no "\r\n" translation,
// so a lone "\n" is taken as a new line. What comes out is plain text
// (colours dropped), ready for bodyLines. Output too tall for maxCmdRows,
// or an emulator whose reply pipe cannot be closed, falls back to the
// text as it is, as does output over maxCmdBytes.
func commandText(text string, w int) string {
	if text == "" || w < 1 || len(text) > maxCmdBytes || !strings.ContainsAny(text, "\r\b\x1b") {
		return text
	}
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		rows += max(1, (ansi.StringWidth(l)+w-1)/w)
		if rows > maxCmdRows {
			return text
		}
	}
	emu := vt.NewEmulator(w, rows)
	// The emulator answers queries (cursor position, device attributes)
	// on a pipe nobody reads here: closed, its answers fail at once
	// instead of blocking the render.
	pw, ok := emu.InputPipe().(*io.PipeWriter)
	if !ok {
		return text
	}
	_ = pw.CloseWithError(io.EOF)
	emu.SetScrollbackSize(1)
	_, _ = emu.WriteString(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n"))
	lines := strings.Split(emu.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// lastRedraws keeps, of each line, what follows its last carriage return
// (one at the very end of a line is a "\r\n" and ignored).
func lastRedraws(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
