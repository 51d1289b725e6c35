//go:build !windows

package tui

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
)

// watchSize asks for SIGWINCH on out's resizes and returns the loop that
// sends a tea.WindowSizeMsg for each until ctx ends (Bubble Tea does this
// itself only when its renderer is on). The signal is asked for before
// the caller reads the first size, so no resize falls between the two.
func watchSize(out io.Writer) func(ctx context.Context, send func(tea.Msg)) {
	if _, _, ok := termSize(out); !ok {
		return func(context.Context, func(tea.Msg)) {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	return func(ctx context.Context, send func(tea.Msg)) {
		defer signal.Stop(sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				if w, h, ok := termSize(out); ok {
					send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			}
		}
	}
}
