package host

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// An ACP thread whose agent ran a command in a terminal offers that
// terminal, from the host's own UI and over the socket, though the thread
// has no PTY of its own (Caps.PTY false): attach shows the command's raw
// screen, while the run's tool node has its plain text. When the session
// stops, the terminal goes with it.
func TestTermACPThroughHostAndSocket(t *testing.T) {
	bin := agenttest.Scripted(t)
	t.Setenv("NEXUS_GEMINI_COMMAND", bin+" "+agenttest.Script("acp/terminal.txt"))
	h, c, ctx := termHost(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if _, err := h.backend.Submit(ctx, core.Command{ID: "c-new", Kind: core.CmdThreadCreate, NewThread: "tac",
		Provider: "gemini", Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []core.Terminals{h.backend, c} {
		if _, err := b.AttachTerminal(ctx, "tac"); !errors.Is(err, core.ErrNoTerminal) {
			t.Fatalf("%T: attach before the agent ran a command: %v, want ErrNoTerminal", b, err)
		}
	}

	rec, err := h.backend.Submit(ctx, core.Command{ID: "c-send", Kind: core.CmdMessageSend, Thread: "tac", Text: "run it"})
	if err != nil || rec.Reject != nil {
		t.Fatalf("send: %v %+v", err, rec)
	}
	waitRunEnded(t, h.backend, rec.Run)
	st, err := h.backend.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if th := st.Threads["tac"]; th == nil || th.Caps.PTY {
		t.Fatalf("thread %+v: want an ACP thread without Caps.PTY", th)
	}
	if r := st.Runs[rec.Run]; r == nil || r.Status != core.RunCompleted {
		t.Fatalf("run %+v, want completed", r)
	}
	var node bool
	for _, n := range st.Nodes {
		node = node || n.Kind == core.NodeToolCall && n.Text == "a\nred"
	}
	if !node {
		t.Errorf("no tool node with the command's plain text")
	}

	for _, b := range []core.Terminals{h.backend, c} {
		f, err := b.AttachTerminal(ctx, "tac")
		if err != nil {
			t.Fatalf("%T: attach after the agent ran a command: %v", b, err)
		}
		first := <-f.Chunks
		if !first.Reset || first.Cols != 120 || first.Rows != 40 || !strings.Contains(string(first.Data), "\x1b[31mred\x1b[0m") {
			t.Fatalf("%T: first chunk %dx%d reset=%v %q, want a Reset at 120x40 with the raw output",
				b, first.Cols, first.Rows, first.Reset, first.Data)
		}
	}

	if _, err := h.backend.Submit(ctx, core.Command{ID: "c-stop", Kind: core.CmdThreadStop, Thread: "tac"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, err := c.AttachTerminal(ctx, "tac")
		if errors.Is(err, core.ErrNoTerminal) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("attach after the session stopped: %v, want ErrNoTerminal", err)
		}
	}
}
