package workers

import (
	"context"
	"fmt"
	"os"
)

// ServeIfWorker makes a test binary that starts a real host safe: the
// host's pool starts workers by re-executing its own binary as `worker`
// (PoolConfig.Command defaults to os.Executable()), and a Go test binary
// asked to run `worker` would run its tests again, each starting a host
// with workers of its own. Call it first in TestMain: when the process
// was started as a worker it serves as one and exits; otherwise it
// returns at once.
func ServeIfWorker() {
	if len(os.Args) < 2 || os.Args[1] != "worker" {
		return
	}
	if err := RunProcess(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil && err != context.Canceled {
		fmt.Fprintln(os.Stderr, "nexus worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
