package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// A host past its lease's deadline appends nothing, even before it
// notices and stops: the journal it runs on refuses, and the hub's
// journal is unchanged.
func TestLapsedLeaseAppendsNothing(t *testing.T) {
	srv, url, err := natsjournal.StartServer(t.TempDir(), natsjournal.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := natsjournal.Connect(url, natsjournal.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	lease, err := natsjournal.AcquireLease(ctx, nc, "p", "host-a", natsjournal.LeaseOptions{TTL: time.Second, NoRenew: true})
	if err != nil {
		t.Fatal(err)
	}
	j, err := natsjournal.Open(ctx, nc, "p", natsjournal.Options{Writer: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	tm := &team{nc: nc, j: j, lease: lease}
	note := func(seq uint64) []core.Commit {
		return []core.Commit{{Events: []core.Event{{Seq: seq, ID: "e", Type: core.EvRuntimeWarning, At: 1, Payload: core.Payload{Note: "n"}}}}}
	}
	if err := tm.journal().Append(ctx, note(1)); err != nil {
		t.Fatalf("an append under a valid lease: %v", err)
	}
	for tries := 0; lease.Valid(); tries++ {
		if tries > 1000 {
			t.Fatal("an unrenewed lease stayed valid")
		}
		time.Sleep(10 * time.Millisecond)
	}
	err = tm.journal().Append(ctx, note(2))
	if err == nil || !strings.Contains(err.Error(), "lapsed") {
		t.Fatalf("an append past the lease's deadline: %v", err)
	}
	if j.Last() != 1 {
		t.Fatalf("the journal ends at seq %d after the refused append, want 1", j.Last())
	}
}
