package cli

import (
	"context"
	"errors"

	"github.com/nexus-tui/nexus/workers"
)

// cmdWorker is `nexus worker --workspace DIR [--key-fd N]`: the internal
// worker process the host's pool starts (workers/doc.go). It serves
// JSON-RPC on stdin/stdout until stdin closes.
func (a *app) cmdWorker(ctx context.Context, args []string) error {
	err := workers.RunProcess(ctx, args, a.stdin, a.stdout)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return nil
	case errors.Is(err, workers.ErrUsage):
		return usageErr("%v", err)
	}
	return failErr("%v", err)
}
