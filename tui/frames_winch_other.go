//go:build windows

package tui

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"
)

// watchSize does nothing here: Windows has no SIGWINCH.
func watchSize(ctx context.Context, out io.Writer, send func(tea.Msg)) {}
