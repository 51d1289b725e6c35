package host

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Watch wakes only for a change: a client connecting, a journaled
// event, the client leaving. Reads change nothing and wake nothing, and
// a check that waits for the last client to leave (a command-line
// host's drain) returns once it has, with no polling in between.
func TestWatchWakesOnlyOnChanges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h, err := Start(dir, time.Second, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // failsafe only
	defer cancel()

	type seen struct {
		conns int
		seq   uint64
	}
	calls := make(chan seen, 100)
	client := false
	done := make(chan error, 1)
	go func() {
		done <- h.Watch(ctx, func(st *core.State) (bool, time.Duration) {
			n := h.Server().Conns()
			client = client || n > 0
			// The client may leave between Conns and CloseIfIdle: what
			// is reported is what CloseIfIdle decided.
			idle := client && h.Server().CloseIfIdle()
			if idle {
				n = 0
			}
			calls <- seen{n, st.Seq}
			return idle, 0
		})
	}()
	var lastSeq uint64
	var log []seen
	next := func(want func(seen) bool, what string) int {
		t.Helper()
		for n := 1; ; n++ {
			select {
			case s := <-calls:
				lastSeq = max(lastSeq, s.seq)
				log = append(log, s)
				if want(s) {
					return n
				}
			case err := <-done:
				done <- err // for the caller
				// Watch sends its last call before it returns: take
				// what is queued, and fail if that was not it.
				for len(calls) > 0 {
					s := <-calls
					lastSeq = max(lastSeq, s.seq)
					log = append(log, s)
					if want(s) {
						return n
					}
					n++
				}
				t.Fatalf("Watch returned (%v) before it saw %s: %+v", err, what, log)
			case <-ctx.Done():
				t.Fatalf("Watch never saw %s", what)
			}
		}
	}
	wakes := next(func(seen) bool { return true }, "the first check")

	nc, err := net.Dial("unix", filepath.Join(dir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	wakes += next(func(s seen) bool { return s.conns == 1 }, "the client")
	for i := 0; i < 200; i++ {
		if _, err := h.Backend().State(ctx); err != nil {
			t.Fatal(err)
		}
	}
	before, err := h.Backend().State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := h.Backend().Submit(ctx, core.Command{Kind: core.CmdThreadCreate, Title: "watched", Provider: "shell"})
	if err != nil || rec.Reject != nil {
		t.Fatalf("create: %v %+v", err, rec)
	}
	wakes += next(func(s seen) bool { return s.seq >= rec.Seq }, "the thread's events")
	nc.Close()
	wakes += next(func(s seen) bool { return s.conns == 0 }, "the client leave")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Watch did not return once the client left")
	}
	// One check at start, one per connection change and at most one per
	// event (a commit's events usually come as one burst, but a busy
	// machine may hand them over in parts); the 200 reads must wake
	// nothing, so a Watch that polls runs check far more often.
	events := int(lastSeq - before.Seq)
	if limit := 3 + events; wakes > limit {
		t.Fatalf("check ran %d times for 2 connection changes and %d events: %+v", wakes, events, log)
	}
}
