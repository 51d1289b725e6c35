package host

import (
	"context"
	"fmt"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
)

// hostBackend is the backend the host serves on its socket and gives its
// own TUI: the Runner, plus the live terminals of the registry's
// providers (core.Terminals). A thread id the state does not know is
// refused input (*core.InputError, nothing happens); a known thread
// without a live PTY is core.ErrNoTerminal. Terminal I/O is live and not
// journaled (core/terminal.go).
type hostBackend struct {
	core.Backend
	reg *providers.Registry
	// stateDir is refused as (a part of) a thread's workspace.
	stateDir string
}

var _ core.Terminals = (*hostBackend)(nil)

// AttachTerminal implements core.Terminals.
func (b *hostBackend) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	t, err := b.terminal(ctx, thread)
	if err != nil {
		return nil, err
	}
	return t.Attach(ctx)
}

// TerminalInput implements core.Terminals.
func (b *hostBackend) TerminalInput(ctx context.Context, thread string, data []byte) error {
	t, err := b.terminal(ctx, thread)
	if err != nil {
		return err
	}
	return t.Input(ctx, data)
}

// ResizeTerminal implements core.Terminals.
func (b *hostBackend) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	t, err := b.terminal(ctx, thread)
	if err != nil {
		return err
	}
	return t.Resize(cols, rows)
}

// terminal finds the thread's live PTY. Only a miss reads the state (to
// tell an unknown thread from one without a terminal): a live PTY was
// started by an effect of a thread that exists, so keystrokes cost no
// state copy.
func (b *hostBackend) terminal(ctx context.Context, thread string) (providers.Terminal, error) {
	t, err := b.reg.Terminal(thread)
	if err == nil {
		return t, nil
	}
	if thread == "" {
		return nil, &core.InputError{Msg: "no thread given: name the thread whose terminal to use"}
	}
	st, serr := b.State(ctx)
	if serr != nil {
		return nil, serr
	}
	if st.Threads[thread] == nil {
		return nil, &core.InputError{Msg: fmt.Sprintf("unknown thread %.64q: `nexus thread list` shows the threads", thread)}
	}
	return nil, err
}
