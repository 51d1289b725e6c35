//go:build linux || darwin || solaris || aix

package tui

import (
	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// movementOptimizations reports whether the tty's output settings let
// the renderer move the cursor with tabs and backspaces, as Bubble Tea
// checks.
func movementOptimizations(s *term.State) (hardTabs, backspace bool) {
	return s.Oflag&unix.TABDLY == unix.TAB0, s.Lflag&unix.BSDLY == unix.BS0
}
