//go:build !linux

package tui

// yieldToChildren lowers the pane reader's priority on Linux only (a
// per-thread niceness); elsewhere it does nothing.
func yieldToChildren() {}
