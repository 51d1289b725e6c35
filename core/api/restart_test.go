package api

import (
	"context"
	"testing"
)

// serveAt serves a fresh runner at path as pid, like a new host of the
// same state dir, and returns what stops it.
func serveAt(tb testing.TB, path string, pid int) func() {
	tb.Helper()
	ln, err := Listen(path)
	if err != nil {
		tb.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := NewServer(startRunner(tb), HostInfo{PID: pid, Version: "test"})
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, ln); close(done) }()
	stop := func() { cancel(); <-done }
	tb.Cleanup(stop)
	return stop
}

// A Client outlives its host: when the host goes and another serves the
// same socket, the next call reaches the new one (the connection kept to
// the old one is retried once) and Info names the new host. With
// SetRestart, a Client whose host is gone, with nobody serving, starts
// the next host itself; without it, the call fails.
func TestClientFollowsTheNextHost(t *testing.T) {
	h := serveBackend(t, startRunner(t))
	c := h.dial(t)
	ctx := context.Background()
	if _, err := c.State(ctx); err != nil || c.Info().PID != 4242 {
		t.Fatalf("first host: %v, pid %d", err, c.Info().PID)
	}
	h.stop()
	stopSecond := serveAt(t, h.path, 5151)
	if _, err := c.State(ctx); err != nil {
		t.Fatalf("State on the next host: %v", err)
	}
	if pid := c.Info().PID; pid != 5151 {
		t.Fatalf("Info names pid %d, want the new host 5151", pid)
	}

	stopSecond()
	if _, err := c.State(ctx); err == nil {
		t.Fatal("State with no host and no restart succeeded")
	}
	started := 0
	c.SetRestart(func(context.Context) error {
		started++
		serveAt(t, h.path, 6262)
		return nil
	})
	if _, err := c.State(ctx); err != nil {
		t.Fatalf("State after the restart: %v", err)
	}
	if started != 1 || c.Info().PID != 6262 {
		t.Fatalf("restarts %d, pid %d; want one restart and host 6262", started, c.Info().PID)
	}
}
