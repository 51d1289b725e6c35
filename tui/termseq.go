package tui

import (
	"os"
	"strings"
)

// Sequences the UI writes to the outer terminal beyond its frames
// (notifications, the clipboard) go through tea.Raw. Inside tmux an
// unknown OSC reaches the outer terminal only wrapped for passthrough:
// ESC P tmux; <the sequence, every ESC doubled> ESC \ (tmux needs
// `set -g allow-passthrough on` to forward it; the bell and the title
// need no wrapping).

// inTmux reports whether the UI runs inside tmux.
func inTmux() bool { return os.Getenv("TMUX") != "" }

// passthrough wraps seq for tmux when tmux is true, and returns it
// unchanged otherwise.
func passthrough(seq string, tmux bool) string {
	if !tmux {
		return seq
	}
	return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
}
