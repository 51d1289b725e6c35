package cli

import (
	"os"
	"testing"

	"github.com/nexus-tui/nexus/workers"
)

// TestMain: the hosts these tests start run worker steps in real worker
// processes, which re-execute this test binary as "worker".
func TestMain(m *testing.M) {
	workers.ServeIfWorker()
	// In-process commands host in process: a background host would be
	// this test binary started again.
	os.Setenv("NEXUS_HOST_MODE", "inline")
	os.Exit(m.Run())
}
