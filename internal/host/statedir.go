package host

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// A workspace that contains the host's state dir is refused: every agent
// could read the journal (every message, every reply) and the vault
// there, and an external agent (Claude Code, Codex) reads files itself,
// where nexus cannot stop it. The built-in agent's workers deny the state
// dir anyway (workers' --deny), but a thread is never started where it
// would need to.

// Submit implements core.Backend: a thread created or forked into a
// workspace holding the state dir is refused before it is journaled.
func (b *hostBackend) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	if (cmd.Kind == core.CmdThreadCreate || cmd.Kind == core.CmdThreadFork) && cmd.Workspace != "" && b.stateDir != "" {
		if within(b.stateDir, cmd.Workspace) {
			return nil, &core.InputError{Msg: fmt.Sprintf("workspace %s contains nexus's state dir %s, where every agent could read the journal; "+
				"choose a workspace that does not contain it (thread new --workspace DIR), or keep the state dir elsewhere (--state-dir or NEXUS_STATE_DIR)",
				cmd.Workspace, b.stateDir)}
		}
	}
	return b.Backend.Submit(ctx, cmd)
}

// within reports whether dir is ws or lies under it, symlinks resolved.
func within(dir, ws string) bool {
	real := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Clean(p)
	}
	d, w := real(dir), real(ws)
	return d == w || strings.HasPrefix(d, w+string(filepath.Separator))
}
