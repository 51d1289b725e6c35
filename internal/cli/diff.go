package cli

import (
	"context"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// diffOn is the text `nexus diff` prints for q (host.Diff), and the UI's
// diff view shows. A project on a hub asks the host that holds it
// (natsjournal.Remote.Diff: its checkpoints are on that host's disk);
// anything else computes it in this process from a copy of the state
// (st, or b's when st is nil), since it only reads the workspace's
// repository and the shadow git dir under stateDir. Errors are failErr
// (exit 1) and read as one line.
func diffOn(ctx context.Context, b core.Backend, st *core.State, stateDir string, q host.DiffQuery) (string, error) {
	var out string
	var err error
	if r, ok := b.(*natsjournal.Remote); ok {
		out, err = r.Diff(ctx, natsjournal.DiffRequest{Thread: q.Thread, Run: q.Run, From: q.From, To: q.To, Stat: q.Stat})
	} else {
		if st == nil {
			if st, err = b.State(ctx); err != nil {
				return "", err
			}
		}
		out, err = host.Diff(ctx, st, stateDir, q)
	}
	if err != nil {
		return "", failErr("%v", err)
	}
	return out, nil
}
