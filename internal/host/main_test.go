package host

import (
	"os"
	"testing"

	"github.com/nexus-tui/nexus/workers"
)

// TestMain: the hosts these tests start run worker steps in real worker
// processes, which re-execute this test binary as "worker".
func TestMain(m *testing.M) {
	workers.ServeIfWorker()
	os.Exit(m.Run())
}
