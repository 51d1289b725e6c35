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

// watchSize sends a tea.WindowSizeMsg each time the terminal out says
// it was resized (SIGWINCH), until ctx ends. Bubble Tea does this itself
// only when its renderer is on.
func watchSize(ctx context.Context, out io.Writer, send func(tea.Msg)) {
	if _, _, ok := termSize(out); !ok {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
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
