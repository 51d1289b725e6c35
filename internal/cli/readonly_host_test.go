package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReadOnlyHostServesNoOne: an invocation that only reads (thread
// show, requests) and found no host hosts only itself. A send started
// meanwhile waits for it to exit and then hosts its own run, so the read
// returns at once instead of waiting out someone else's run, and what it
// printed was not already stale.
func TestReadOnlyHostServesNoOne(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NEXUS_CONFIG", "")
	dir := filepath.Join(t.TempDir(), "state")
	ctx := context.Background()
	nexus := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(ctx, append([]string{"--state-dir", dir}, args...), strings.NewReader(""), &out, &errOut)
		return strings.TrimSpace(out.String()), errOut.String(), code
	}
	th, stderr, code := nexus("thread", "new")
	if code != ExitOK {
		t.Fatalf("thread new: exit %d: %s", code, stderr)
	}
	a := &app{stdout: &bytes.Buffer{}, stderr: io.Discard, stateDir: dir}
	s, err := a.dialOrHost(ctx, true) // what a.state does
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(s.stop)
	t.Cleanup(stop)
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
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, se, code := nexus("send", th, "#slow=3s first")
		done <- result{se, code}
	}()
	time.Sleep(time.Second) // time for the send to find this host
	if st, err := s.State(ctx); err != nil || len(st.RunsOf(th)) != 0 {
		t.Fatalf("the read-only host took on another invocation's run (err %v): it must refuse clients", err)
	}
	stop()
	select {
	case r := <-done:
		t.Fatalf("the read-only host waited for the send to end before exiting; send: exit %d %s", r.code, r.stderr)
	default:
	}
	if r := <-done; r.code != ExitOK {
		t.Fatalf("send after the read-only host exited: exit %d: %s", r.code, r.stderr)
	}
	out, stderr, code := nexus("thread", "show", th, "--json")
	if code != ExitOK || !strings.Contains(out, `"status": "completed"`) {
		t.Fatalf("thread show after the send: exit %d: %s %s", code, out, stderr)
	}
}
