package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// termClient is nexus's ACP client for one session in a workspace, with
// no agent: the tests call the terminal methods as an agent would.
func termClient(t *testing.T) (*client, string) {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	s := newSession(Config{Name: "gemini"}, "t1", agentproc.NewEmitter(context.Background(), agentproc.NopSink{}))
	s.workspace = ws
	t.Cleanup(s.terms.killAll)
	return &client{s: s}, ws
}

func create(t *testing.T, c *client, req sdk.CreateTerminalRequest) string {
	t.Helper()
	res, err := c.CreateTerminal(context.Background(), req)
	if err != nil {
		t.Fatalf("terminal/create %q: %v", req.Command, err)
	}
	return res.TerminalId
}

func waitExit(t *testing.T, c *client, id string) sdk.WaitForTerminalExitResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := c.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{TerminalId: id})
	if err != nil {
		t.Fatalf("terminal/wait_for_exit %s: %v", id, err)
	}
	return res
}

func output(t *testing.T, c *client, id string) sdk.TerminalOutputResponse {
	t.Helper()
	res, err := c.TerminalOutput(context.Background(), sdk.TerminalOutputRequest{TerminalId: id})
	if err != nil {
		t.Fatalf("terminal/output %s: %v", id, err)
	}
	return res
}

// screenUntil reads a feed until the data since its last Reset contains
// want, and returns that Reset and the data.
func screenUntil(t *testing.T, f *core.TermFeed, want string) (core.TermChunk, string) {
	t.Helper()
	var reset core.TermChunk
	data := ""
	deadline := time.After(wait)
	for !strings.Contains(data, want) {
		select {
		case c, ok := <-f.Chunks:
			if !ok {
				t.Fatalf("the feed ended (%v) before %q; got %q", f.Err(), want, data)
			}
			if c.Reset {
				reset, data = c, ""
			}
			data += string(c.Data)
		case <-deadline:
			t.Fatalf("no %q on the screen within %v; got %q", want, wait, data)
		}
	}
	return reset, data
}

// What the agent reads of a command run in a PTY is plain text (no
// colours, LF line ends) with its exit status, while the thread's
// terminal shows the raw screen, at 120x40 with TERM set, in the
// workspace with the agent's env.
func TestTerminalPlainOutputRawScreen(t *testing.T) {
	c, ws := termClient(t)
	if _, ok := c.s.terms.terminal(); ok {
		t.Fatal("the thread has a terminal before the agent created one")
	}
	id := create(t, c, sdk.CreateTerminalRequest{Command: `printf 'a\r\n\033[31mred\033[0m\n'`})
	if res := waitExit(t, c, id); res.ExitCode == nil || *res.ExitCode != 0 || res.Signal != nil {
		t.Fatalf("wait_for_exit = %+v, want exit code 0", res)
	}
	out := output(t, c, id)
	if out.Output != "a\nred\n" || out.Truncated || out.ExitStatus == nil || out.ExitStatus.ExitCode == nil ||
		*out.ExitStatus.ExitCode != 0 {
		t.Fatalf("terminal/output = %q truncated %v status %+v; want \"a\\nred\\n\", exit code 0",
			out.Output, out.Truncated, out.ExitStatus)
	}

	term, ok := c.s.terms.terminal()
	if !ok {
		t.Fatal("no terminal for the thread after terminal/create")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatalf("Attach to the exited command's screen: %v", err)
	}
	reset, data := screenUntil(t, f, "red")
	if !reset.Reset || reset.Cols != 120 || reset.Rows != 40 || !strings.Contains(data, "a\r\r\n\x1b[31mred\x1b[0m\r\n") {
		t.Fatalf("the screen is %dx%d reset=%v %q; want a Reset at 120x40 with the raw output",
			reset.Cols, reset.Rows, reset.Reset, data)
	}

	// The next command takes the same feed over, in the workspace, with
	// the agent's env and TERM, at the PTY's size.
	id2 := create(t, c, sdk.CreateTerminalRequest{Command: `stty size; echo "$TERM $FOO"; pwd`,
		Env: []sdk.EnvVariable{{Name: "FOO", Value: "from-the-agent"}}})
	reset, data = screenUntil(t, f, ws)
	if !reset.Reset || strings.Contains(data, "red") {
		t.Fatalf("the feed did not switch to the new command with a Reset: %+v %q", reset, data)
	}
	waitExit(t, c, id2)
	if got, want := output(t, c, id2).Output, "40 120\nxterm-256color from-the-agent\n"+ws+"\n"; got != want {
		t.Fatalf("terminal/output = %q, want %q", got, want)
	}

	// Released, the last command's screen stays the thread's terminal
	// until the session ends; then the feed ends and there is none.
	for _, id := range []string{id, id2} {
		if _, err := c.ReleaseTerminal(context.Background(), sdk.ReleaseTerminalRequest{TerminalId: id}); err != nil {
			t.Fatalf("release %s: %v", id, err)
		}
	}
	if _, err := c.TerminalOutput(context.Background(), sdk.TerminalOutputRequest{TerminalId: id}); err == nil {
		t.Error("terminal/output of a released terminal did not fail")
	}
	term, ok = c.s.terms.terminal()
	if !ok {
		t.Fatal("releasing the terminals took the thread's terminal away")
	}
	late, err := term.Attach(ctx)
	if err != nil {
		t.Fatalf("Attach after release: %v", err)
	}
	if _, data := screenUntil(t, late, "from-the-agent"); !strings.Contains(data, "40 120") {
		t.Fatalf("a pane attached after release sees %q", data)
	}
	select {
	case c, ok := <-f.Chunks:
		t.Fatalf("the feed of an exited command moved: %+v %v", c, ok)
	case <-time.After(100 * time.Millisecond):
	}
	c.s.terms.killAll()
	for range f.Chunks {
	}
	if !errors.Is(f.Err(), core.ErrTerminalExited) {
		t.Fatalf("the feed ended with %v at the end of the session, want ErrTerminalExited", f.Err())
	}
	if _, ok := c.s.terms.terminal(); ok {
		t.Fatal("a terminal is still offered after the session ended")
	}
}

// The agent's byte limit keeps the newest text, cut at a character
// boundary, and says it truncated.
func TestTerminalOutputLimit(t *testing.T) {
	c, _ := termClient(t)
	for _, tc := range []struct {
		cmd   string
		args  []string
		limit int
		want  string
	}{
		{"seq", []string{"1", "1000"}, 10, "\n999\n1000\n"},
		{"printf", []string{"ééé"}, 3, "é"},
		{"seq", []string{"1", "200000"}, 1000, ""}, // many reads and compactions; want computed below
	} {
		limit := tc.limit
		id := create(t, c, sdk.CreateTerminalRequest{Command: tc.cmd, Args: tc.args, OutputByteLimit: &limit})
		waitExit(t, c, id)
		want := tc.want
		if want == "" {
			var b strings.Builder
			for i := 1; i <= 200000; i++ {
				fmt.Fprintf(&b, "%d\n", i)
			}
			want = b.String()[b.Len()-limit:]
		}
		if out := output(t, c, id); out.Output != want || !out.Truncated {
			t.Errorf("%s %v with limit %d: output %q truncated %v; want %q truncated", tc.cmd, tc.args, limit,
				out.Output, out.Truncated, want)
		}
	}
}

// Kill ends the command's whole process group and the terminal stays for
// its output and status; release kills a command that still runs.
func TestTerminalKillAndRelease(t *testing.T) {
	c, _ := termClient(t)
	id := create(t, c, sdk.CreateTerminalRequest{Command: "echo started; sleep 30 & sleep 30"})
	term, _ := c.s.terms.terminal()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatal(err)
	}
	screenUntil(t, f, "started")
	start := time.Now()
	if _, err := c.KillTerminal(context.Background(), sdk.KillTerminalRequest{TerminalId: id}); err != nil {
		t.Fatalf("kill: %v", err)
	}
	res := waitExit(t, c, id)
	if res.Signal == nil || *res.Signal != "killed" || res.ExitCode != nil || time.Since(start) > 5*time.Second {
		t.Fatalf("wait_for_exit after kill = %+v after %v, want signal killed at once", res, time.Since(start))
	}
	if out := output(t, c, id); out.Output != "started\n" || out.ExitStatus == nil || out.ExitStatus.Signal == nil {
		t.Fatalf("terminal/output after kill = %+v", out)
	}

	id = create(t, c, sdk.CreateTerminalRequest{Command: "sleep", Args: []string{"30"}})
	run, err := c.s.terms.get(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReleaseTerminal(context.Background(), sdk.ReleaseTerminalRequest{TerminalId: id}); err != nil {
		t.Fatalf("release: %v", err)
	}
	select {
	case <-run.done:
	case <-time.After(wait):
		t.Fatal("release left the command running")
	}
	if _, err := c.ReleaseTerminal(context.Background(), sdk.ReleaseTerminalRequest{TerminalId: id}); err == nil {
		t.Error("a second release of the same terminal did not fail")
	}

	// A process the command left behind, deaf to the hangup, keeps the
	// PTY open: the exit is still reported, soon, with the output; release
	// kills what is left.
	start = time.Now()
	id = create(t, c, sdk.CreateTerminalRequest{Command: "(trap '' HUP; exec sleep 30) & sleep 0.2; echo done"})
	run, _ = c.s.terms.get(id)
	if res := waitExit(t, c, id); res.ExitCode == nil || *res.ExitCode != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("wait_for_exit with a process left behind = %+v after %v", res, time.Since(start))
	}
	if out := output(t, c, id); out.Output != "done\n" {
		t.Fatalf("terminal/output = %q", out.Output)
	}
	select {
	case <-run.pumped:
		t.Fatal("the PTY closed while the process left behind runs")
	default:
	}
	if _, err := c.ReleaseTerminal(context.Background(), sdk.ReleaseTerminalRequest{TerminalId: id}); err != nil {
		t.Fatalf("release: %v", err)
	}
	select {
	case <-run.pumped:
	case <-time.After(wait):
		t.Fatal("release left the PTY open")
	}
}

// A person can type into a command that waits for input (a prompt the
// agent did not foresee); the agent reads the answer as output.
func TestTerminalTakesTypedInput(t *testing.T) {
	c, _ := termClient(t)
	id := create(t, c, sdk.CreateTerminalRequest{Command: `printf 'name? '; read x; echo "got $x"`})
	term, _ := c.s.terms.terminal()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatal(err)
	}
	screenUntil(t, f, "name? ")
	if err := term.Input(ctx, []byte("bob\r")); err != nil {
		t.Fatalf("Input: %v", err)
	}
	waitExit(t, c, id)
	if got := output(t, c, id).Output; got != "name? bob\ngot bob\n" {
		t.Fatalf("terminal/output = %q", got)
	}
	if err := term.Input(ctx, []byte("x")); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("Input into an exited command: %v, want ErrNoTerminal", err)
	}
}

// Through the provider: the thread's terminal is the one its agent ran a
// command in, until the session stops.
func TestProviderOffersTheAgentsTerminal(t *testing.T) {
	p, sink, log := fake(t, "terminal.txt", agentproc.Settings{})
	ts, ok := p.(providers.Terminals)
	if !ok {
		t.Fatal("the ACP provider does not implement providers.Terminals")
	}
	if p.Capabilities().PTY {
		t.Fatal("the ACP provider declares Caps.PTY")
	}
	if _, ok := ts.Terminal("t1"); ok {
		t.Fatal("a terminal before any turn")
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	p.Handle(turnIn(ws, "1", "run it"))
	if end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded)); end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	var node bool
	for _, o := range sink.All() {
		node = node || o.Kind == core.ObsNode && o.Key == "tc1" && o.Text == "a\nred"
	}
	if !node {
		t.Errorf("no tool node with the terminal's text:\n%s", sink.Dump())
	}
	term, ok := ts.Terminal("t1")
	if !ok {
		t.Fatal("no terminal for the thread after its agent ran a command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	screenUntil(t, f, "\x1b[31mred\x1b[0m")
	agenttest.Stop(t, p, sink, log)
	if _, ok := ts.Terminal("t1"); ok {
		t.Fatal("a terminal after the session stopped")
	}
}
