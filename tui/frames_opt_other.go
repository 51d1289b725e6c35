//go:build !linux && !darwin && !solaris && !aix

package tui

import "github.com/charmbracelet/x/term"

// movementOptimizations: none where the tty's settings are not known.
func movementOptimizations(*term.State) (hardTabs, backspace bool) { return false, false }
