package main

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"
)

// TestE2EReadOnlyHostServesNoOne: an invocation that only reads (thread
// show, requests) and found no host hosts only itself. A send started
// meanwhile waits for it to exit and then hosts its own run, so the read
// returns at once instead of waiting out someone else's run, and what it
// printed was not already stale.
func TestE2EReadOnlyHostServesNoOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	a := &app{stdout: &bytes.Buffer{}, stderr: io.Discard, stateDir: e.dir}
	ctx := context.Background()
	s, err := a.dialOrHost(ctx, true) // what a.state does
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(s.stop)
	t.Cleanup(stop) // before the env's cleanup, which kills the state dir's host
	if s.host == nil {
		t.Fatal("no host was running, yet the read did not become the host")
	}
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Threads[th] == nil {
		t.Fatalf("the read-only host does not see thread %s", th)
	}
	send := e.bg("send", th, "#slow=3s first")
	time.Sleep(time.Second) // time for the send to find this host
	if st, err := s.State(ctx); err != nil || len(st.RunsOf(th)) != 0 {
		t.Fatalf("the read-only host took on another invocation's run (err %v): it must refuse clients", err)
	}
	stop()
	select {
	case <-send.done:
		t.Fatalf("the read-only host waited for the send to end before exiting; send stderr: %s", send.se.String())
	default:
	}
	if res := send.wait(t); res.code != 0 {
		t.Fatalf("send after the read-only host exited: exit %d: %s", res.code, res.err)
	}
	if r := e.show(th).Runs; len(r) != 1 || r[0].Status != "completed" {
		t.Fatalf("runs after the send: %+v, want one completed", r)
	}
}
