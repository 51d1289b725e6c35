package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

var hubKills = flag.Int("hub-kills", 200, "crash loop on a hub: how many times to SIGKILL the host (-short: 20)")

// TestCrashLoopHub is the crash loop with the host's journal on a hub
// (team mode): a `nexus hub` child process runs throughout, the host is
// killed with SIGKILL at random instants and started again on the same
// state dir (it takes its dead predecessor's lease at once), and after
// every restart the project's journal on the hub is checked
// (natsjournal.Verifier: order, seqs, chain, snapshots byte for byte
// against the replay) with the same outcome checks as on bbolt: no
// acknowledged intent lost, no command or file written twice, one model
// response per planning call, the same end as a run that never crashed.
func TestCrashLoopHub(t *testing.T) {
	// Beside the other parallel tests: the loop paces its kills by the
	// progress it sees, not by the clock, and its host is its own.
	t.Parallel()
	kills := *hubKills
	if testing.Short() && kills > 20 {
		kills = 20
	}
	seed := *crashSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("crash loop on a hub: %d kills, seed %d (reproduce with -run TestCrashLoopHub -seed %d -hub-kills %d)", kills, seed, seed, kills)
	hub := startHubProc(t, t.TempDir())
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[team]\nurl = %q\ncredentials = %q\nproject = \"crash-loop\"\n",
		hub.url, hub.host)), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := newChecker()
	checks.hub = &hubCheck{url: hub.url, creds: hub.viewer, project: "crash-loop", v: natsjournal.NewVerifier()}
	crashLoop(t, kills, seed, checks, "NEXUS_CONFIG="+cfg)
}

// hubCheck reads a project's journal on a hub with a viewer's
// credentials and checks what it gained since the last check.
type hubCheck struct {
	url, creds, project string
	v                   *natsjournal.Verifier
}

// check verifies the journal's new events (every event when full) and
// returns the replay; the runs the checked events name go into touched.
func (h *hubCheck) check(ctx context.Context, full bool, touched map[string]bool) (*core.State, error) {
	nc, err := natsjournal.Connect(h.url, natsjournal.ConnectOptions{Credentials: h.creds})
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	j, err := natsjournal.Open(ctx, nc, h.project, natsjournal.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if full {
		h.v = natsjournal.NewVerifier()
	}
	err = h.v.Check(ctx, j, func(ev *core.Event) {
		if ev.Run != "" {
			touched[ev.Run] = true
		}
	})
	if err != nil {
		return nil, err
	}
	if full {
		for id := range h.v.State().Runs {
			touched[id] = true
		}
	}
	return h.v.State(), nil
}
