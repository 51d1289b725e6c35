package host

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// A shell thread's terminal works the same from the host's own UI (its
// backend) and from a client over the socket: attach shows what the shell
// printed, typing and resizing reach it, and the errors say whether the
// thread is unknown, has no terminal yet, or its process exited.
func TestTermShellThroughHostAndSocket(t *testing.T) {
	t.Setenv("NEXUS_SHELL_COMMAND", "bash --norc --noprofile -i")
	t.Setenv("NEXUS_SHELL_IDLE", "200ms")
	t.Setenv("PS1", "$ ")
	h, c, ctx := termHost(t)
	ws := t.TempDir()
	for _, id := range []string{"tsh", "tbi"} {
		prov := map[string]string{"tsh": "shell", "tbi": "builtin"}[id]
		if _, err := h.backend.Submit(ctx, core.Command{ID: "c-" + id, Kind: core.CmdThreadCreate, NewThread: id,
			Provider: prov, Workspace: ws}); err != nil {
			t.Fatal(err)
		}
	}

	for _, b := range []core.Terminals{h.backend, c} {
		var ie *core.InputError
		if _, err := b.AttachTerminal(ctx, "nope"); !errors.As(err, &ie) || !strings.Contains(err.Error(), "unknown thread") {
			t.Fatalf("%T: attach to an unknown thread: %v, want an input error", b, err)
		}
		if _, err := b.AttachTerminal(ctx, "tsh"); !errors.Is(err, core.ErrNoTerminal) {
			t.Fatalf("%T: attach before the shell started: %v, want ErrNoTerminal", b, err)
		}
	}

	rec, err := h.backend.Submit(ctx, core.Command{ID: "c-send", Kind: core.CmdMessageSend, Thread: "tsh", Text: "echo hello-$((3+4))"})
	if err != nil || rec.Reject != nil {
		t.Fatalf("send: %v %+v", err, rec)
	}
	waitRunEnded(t, h.backend, rec.Run)

	for _, b := range []core.Terminals{h.backend, c} {
		if _, err := b.AttachTerminal(ctx, "tbi"); !errors.Is(err, core.ErrNoTerminal) {
			t.Fatalf("%T: attach to a builtin thread: %v, want ErrNoTerminal", b, err)
		}
		f, err := b.AttachTerminal(ctx, "tsh")
		if err != nil {
			t.Fatalf("%T: attach: %v", b, err)
		}
		first := <-f.Chunks
		if !first.Reset || first.Cols != 120 || first.Rows != 40 || !strings.Contains(string(first.Data), "hello-7") {
			t.Fatalf("%T: first chunk %dx%d reset=%v %q, want a Reset at 120x40 with the run's output",
				b, first.Cols, first.Rows, first.Reset, first.Data)
		}
		if err := b.TerminalInput(ctx, "tsh", []byte("echo typed-$((5*5))\r")); err != nil {
			t.Fatalf("%T: input: %v", b, err)
		}
		waitChunk(t, f, func(shown string, _ core.TermChunk) bool { return strings.Contains(shown, "typed-25") })
	}

	f, err := c.AttachTerminal(ctx, "tsh")
	if err != nil {
		t.Fatal(err)
	}
	<-f.Chunks
	if err := h.backend.ResizeTerminal(ctx, "tsh", 90, 20); err != nil {
		t.Fatal(err)
	}
	waitChunk(t, f, func(_ string, c core.TermChunk) bool { return c.Reset && c.Cols == 90 && c.Rows == 20 })
	var ie *core.InputError
	if err := c.ResizeTerminal(ctx, "tsh", 0, 20); !errors.As(err, &ie) {
		t.Fatalf("resize to 0 columns over the socket: %v, want an input error", err)
	}
	if err := c.TerminalInput(ctx, "tsh", []byte("exit\r")); err != nil {
		t.Fatal(err)
	}
	for range f.Chunks {
	}
	if !errors.Is(f.Err(), core.ErrTerminalExited) {
		t.Fatalf("the client's feed ended with %v, want ErrTerminalExited", f.Err())
	}
}

// termHost starts a host in a temporary state dir and dials it: the host
// (its own backend) and a client over the socket, for a test of a minute
// at most. Both are closed when the test ends.
func termHost(t *testing.T) (*Host, *api.Client, context.Context) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	h, err := Start(dir, time.Second, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c, err := api.Dial(ctx, filepath.Join(dir, SocketName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return h, c, ctx
}

func waitRunEnded(t *testing.T, b core.Backend, run string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err := b.State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Runs[run]; r != nil && r.Status != core.RunRunning && r.Status != core.RunQueued {
			return
		}
	}
	t.Fatalf("run %s did not end within 30s", run)
}

// waitChunk reads f until ok holds for a chunk and what the feed has
// shown since its last Reset.
func waitChunk(t *testing.T, f *core.TermFeed, ok func(shown string, c core.TermChunk) bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var shown string
	for {
		select {
		case c, open := <-f.Chunks:
			if !open {
				t.Fatalf("the feed ended: %v", f.Err())
			}
			if c.Reset {
				shown = ""
			}
			shown += string(c.Data)
			if ok(shown, c) {
				return
			}
		case <-timeout:
			t.Fatal("the expected chunk did not come within 10s")
		}
	}
}
