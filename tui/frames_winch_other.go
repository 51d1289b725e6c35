//go:build windows

package tui

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"
)

// watchSize watches nothing here: Windows has no SIGWINCH.
func watchSize(out io.Writer) func(ctx context.Context, send func(tea.Msg)) {
	return func(context.Context, func(tea.Msg)) {}
}
