package natsjournal

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// The Verifier follows a journal a tail at a time and compares every
// snapshot with the replay at its seq: a Runner's journal with its
// snapshots checks clean, check after check; a snapshot that differs
// from the replay is caught.
func TestVerifierChecksTailsAndSnapshots(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	j := openProject(t, nc, remoteProject, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	r, err := core.NewRunner(core.RunnerConfig{Journal: j, SnapshotEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	v := NewVerifier()
	seen := 0
	for i := range 4 {
		for k := range 3 {
			if _, err := r.Submit(ctx, createCmd(fmt.Sprintf("c%d-%d", i, k), fmt.Sprintf("t%d-%d", i, k))); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Check(ctx, j, func(*core.Event) { seen++ }); err != nil {
			t.Fatalf("check %d of a sound journal: %v", i, err)
		}
	}
	cancel()
	<-done
	if got := len(v.State().Threads); got != 12 || uint64(seen) != j.Last() {
		t.Fatalf("the verifier replayed %d threads and saw %d events; the journal has 12 threads, %d events", got, seen, j.Last())
	}
	if len(v.snaps) == 0 {
		t.Fatal("no snapshot was compared: the test proves nothing")
	}
	bad := v.State().Clone()
	bad.Threads["t0-0"].Title = "changed behind the journal's back"
	if err := j.SaveSnapshot(bad); err != nil {
		t.Fatal(err)
	}
	if err := NewVerifier().Check(context.Background(), j, nil); err == nil || !strings.Contains(err.Error(), "differs from the replay") {
		t.Fatalf("a snapshot unlike the replay passed: %v", err)
	}
}
