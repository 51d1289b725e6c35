package natsjournal

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
)

// Shutting the embedded server down and starting it again on the same
// dir keeps every acknowledged commit and the snapshot; the journal goes
// on at Last+1.
func TestServerRestartKeepsTheJournal(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir)
	nc := connect(t, h.url)
	j := openJ(t, nc, Options{})
	cs := gen(7, 0, 120)
	for len(cs) > 0 {
		n := min(len(cs), 7)
		mustAppend(t, j, cs[:n]...)
		cs = cs[n:]
	}
	want := readAll(t, j, 1)
	snap := replay(t, want[:90])
	if err := j.SaveSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	nc.Close()
	h.stop()

	h2 := startHub(t, dir)
	j2 := openJ(t, connect(t, h2.url), Options{})
	if j2.Last() != 120 {
		t.Fatalf("after the restart Last() = %d, want 120", j2.Last())
	}
	if got := readAll(t, j2, 1); !slices.Equal(ids(got), ids(want)) {
		t.Fatalf("after the restart the journal holds %d events, want the %d acknowledged", len(got), len(want))
	}
	st, err := j2.LoadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "the snapshot after the restart", st, snap)
	mustAppend(t, j2, gen(8, 120, 10)...)
	if j2.Last() != 130 {
		t.Fatalf("Last() = %d after appending seqs 121-130", j2.Last())
	}
}

// An Append while the server is down fails within the timeout and never
// claims success; once the server is back (same dir, same port) the
// journal reloads its tail and the caller goes on at Last+1, whatever
// became of the failed commit.
func TestAppendDuringOutage(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir)
	port := h.srv.Addr().(*net.TCPAddr).Port
	reconnected := make(chan struct{}, 1)
	nc, err := nats.Connect(h.url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond),
		nats.ReconnectBufSize(-1), nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	j := openJ(t, nc, Options{Timeout: 2 * time.Second})
	mustAppend(t, j, gen(9, 0, 20)...)
	acked := readAll(t, j, 1)
	h.stop()

	err = j.Append(context.Background(), []core.Commit{note(21, "during")})
	if err == nil {
		t.Fatal("an Append with the server down reported success")
	}
	t.Logf("append during the outage: %v", err)
	if j.Last() != 20 {
		t.Fatalf("Last() = %d after a failed Append, want 20", j.Last())
	}

	h2, _, err := StartServer(dir, ServerOptions{Port: port})
	if err != nil {
		t.Fatalf("restart the server on port %d: %v", port, err)
	}
	t.Cleanup(func() { h2.Shutdown(); h2.WaitForShutdown() })
	select {
	case <-reconnected:
	case <-time.After(time.Minute): // a safety net, not a measurement
		t.Fatal("the connection did not come back")
	}
	err = j.Append(context.Background(), []core.Commit{note(21, "after")})
	if errors.Is(err, core.ErrSeqMismatch) {
		// The failed commit was stored after all: the journal now says so.
		err = j.Append(context.Background(), []core.Commit{note(j.Last()+1, "after")})
	}
	if err != nil {
		t.Fatalf("append after the server came back: %v", err)
	}
	got := readAll(t, j, 1)
	if !slices.Equal(ids(got[:20]), ids(acked)) || got[len(got)-1].Payload.Note != "after" || uint64(len(got)) != j.Last() {
		t.Fatalf("after the outage the journal holds %v", ids(got))
	}
}
