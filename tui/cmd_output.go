package tui

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// maxCmdRows bounds the screen a command's output is laid out on; longer
// output is shown as plain lines.
const maxCmdRows = 2000

// commandText is a run_command step's output as a terminal w columns
// wide would leave it: it goes through an x/vt emulator as tall as the
// output, so carriage returns overwrite (progress bars end as their last
// state), backspaces and cursor moves apply, and lines wrap where the
// terminal would wrap them. The worker's PTY does no "\r\n" translation,
// so a lone "\n" is taken as a new line. What comes out is plain text
// (colours dropped), ready for bodyLines. Output too tall for maxCmdRows,
// or an emulator whose reply pipe cannot be closed, falls back to the
// text as it is.
func commandText(text string, w int) string {
	if text == "" || w < 1 || !strings.ContainsAny(text, "\r\b\x1b") {
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
