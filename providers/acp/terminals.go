package acp

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/ptyterm"
)

// defaultOutputLimit bounds a terminal's kept output when the agent sets
// no limit; maxOutputLimit bounds what an agent may ask for.
const (
	defaultOutputLimit = 1 << 20
	maxOutputLimit     = 16 << 20
)

// exitDrain is how long, once a command has exited, its terminal waits
// for the PTY's last output before it reports the exit: what the command
// wrote is read by then, unless a process it left behind keeps the PTY
// open (its later output still counts).
const exitDrain = 500 * time.Millisecond

// termEnv is the TERM of a terminal's command (the agent's env may
// override it).
const termEnv = "TERM=xterm-256color"

// terminals are the commands an agent runs through nexus (terminal/*):
// each in a PTY of its own (ptyterm: a new session, so its own process
// group, at 120x40) in the workspace. What terminal/output returns is the
// PTY's output as plain text (ANSI sequences stripped, CRs dropped), the
// newest up to the agent's byte limit; the raw bytes go to the PTY's
// ring, which the thread's screen shows to panes.
type terminals struct {
	mu   sync.Mutex
	n    int
	runs map[string]*term // by id, until released
	// screen shows the most recent terminal; nil until the first one of
	// the session, and again once the session ended.
	screen *screen
}

type term struct {
	cmd *exec.Cmd
	pty *ptyterm.Term

	mu        sync.Mutex
	out       []byte // plain text; the newest limit bytes count
	total     int64  // plain text bytes ever written
	limit     int
	reaped    bool          // cmd.Wait returned
	done      chan struct{} // closed once the exit status is set
	exit      *int
	signal    *string
	pumped    chan struct{} // closed when the PTY's reader ended
	closeOnce sync.Once
}

func newTerminals() *terminals { return &terminals{runs: map[string]*term{}} }

// add appends a read's text, keeping at most about twice the limit: the
// copy that drops old text runs once per limit bytes, not per read.
func (t *term) add(text string) {
	if text == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, text...)
	t.total += int64(len(text))
	if len(t.out) > 2*t.limit {
		n := copy(t.out, t.out[len(t.out)-t.limit:])
		t.out = t.out[:n]
	}
}

// output is the text kept so far: the newest limit bytes at most, cut
// at a character boundary, and whether older text was dropped. t.mu is
// held.
func (t *term) output() (string, bool) {
	out := t.out
	if len(out) > t.limit {
		out = out[len(out)-t.limit:]
	}
	for len(out) > 0 && !utf8.RuneStart(out[0]) {
		out = out[1:]
	}
	return string(out), int64(len(out)) < t.total
}

// kill sends SIGKILL to the command's process group, and to the PTY's
// foreground group should the command have started a job of its own. It
// does nothing once the command is reaped and nothing holds its PTY any
// more: then no process of the group is left, and its id may be reused.
func (t *term) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.pumped:
		if t.reaped {
			return
		}
	default:
	}
	pg := t.cmd.Process.Pid
	if fg := t.pty.Foreground(); fg > 0 && fg != pg {
		_ = syscall.Kill(-fg, syscall.SIGKILL)
	}
	_ = syscall.Kill(-pg, syscall.SIGKILL)
}

// closeWhenDone closes the PTY once the command has exited, so a process
// it left behind cannot keep the PTY and its reader for ever after the
// agent released the terminal. It does not block.
func (t *term) closeWhenDone() {
	go func() {
		<-t.done
		t.closeOnce.Do(func() { _ = t.pty.Close() })
	}()
}

func (ts *terminals) get(id string) (*term, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.runs[id]
	if t == nil {
		return nil, fmt.Errorf("nexus: no terminal %q", id)
	}
	return t, nil
}

// output is a terminal's text for a tool node ("" for an unknown id).
func (ts *terminals) output(id string) string {
	t, err := ts.get(id)
	if err != nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out, _ := t.output()
	return out
}

// terminal is the thread's screen, once a terminal was created in this
// session.
func (ts *terminals) terminal() (providers.Terminal, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.screen == nil {
		return nil, false
	}
	return ts.screen, true
}

// killAll ends every terminal and the screen: the session ended.
func (ts *terminals) killAll() {
	ts.mu.Lock()
	runs, sc := ts.runs, ts.screen
	ts.runs, ts.screen = map[string]*term{}, nil
	ts.mu.Unlock()
	for _, t := range runs {
		t.kill()
		t.closeWhenDone()
	}
	if sc != nil {
		sc.close()
	}
}

// CreateTerminal starts the command in a PTY; its cwd must be in the
// workspace.
func (c *client) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	s := c.s
	s.mu.Lock()
	dir := s.workspace
	s.mu.Unlock()
	if p.Cwd != nil && *p.Cwd != "" {
		d, err := c.confine(*p.Cwd)
		if err != nil {
			return sdk.CreateTerminalResponse{}, err
		}
		dir = d
	}
	cmd := exec.Command(p.Command, p.Args...)
	if len(p.Args) == 0 {
		cmd = exec.Command("/bin/sh", "-c", p.Command)
	}
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), termEnv)
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &term{cmd: cmd, limit: defaultOutputLimit, done: make(chan struct{}), pumped: make(chan struct{})}
	if p.OutputByteLimit != nil && *p.OutputByteLimit > 0 {
		t.limit = min(*p.OutputByteLimit, maxOutputLimit)
	}
	pt, err := ptyterm.Start(cmd)
	if err != nil {
		return sdk.CreateTerminalResponse{}, fmt.Errorf("nexus: cannot start %s: %w", p.Command, err)
	}
	t.pty = pt
	go func() {
		var text ptyterm.Text
		pt.Pump(func(raw []byte) { t.add(text.Next(raw)) })
		pt.Exit()
		t.closeOnce.Do(func() { _ = pt.Close() })
		close(t.pumped)
	}()
	go func() {
		_ = cmd.Wait()
		t.mu.Lock()
		t.reaped = true
		t.mu.Unlock()
		select {
		case <-t.pumped:
		case <-time.After(exitDrain):
		}
		t.mu.Lock()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			t.signal = &sig
		} else {
			code := cmd.ProcessState.ExitCode()
			t.exit = &code
		}
		t.mu.Unlock()
		close(t.done)
	}()
	s.terms.mu.Lock()
	s.terms.n++
	id := fmt.Sprintf("term-%d", s.terms.n)
	s.terms.runs[id] = t
	if s.terms.screen == nil {
		s.terms.screen = newScreen()
	}
	s.terms.screen.set(pt)
	s.terms.mu.Unlock()
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

// TerminalOutput returns the command's text so far.
func (c *client) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.s.terms.get(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out, truncated := t.output()
	res := sdk.TerminalOutputResponse{Output: out, Truncated: truncated}
	select {
	case <-t.done:
		res.ExitStatus = &sdk.TerminalExitStatus{ExitCode: t.exit, Signal: t.signal}
	default:
	}
	return res, nil
}

// WaitForTerminalExit waits for the command.
func (c *client) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.s.terms.get(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.WaitForTerminalExitResponse{ExitCode: t.exit, Signal: t.signal}, nil
}

// KillTerminal kills the command's process group; the terminal stays.
func (c *client) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.s.terms.get(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	t.kill()
	return sdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal kills the command if it still runs and forgets the id;
// the thread's screen keeps showing it until a newer terminal or the end
// of the session.
func (c *client) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	ts := c.s.terms
	ts.mu.Lock()
	t := ts.runs[p.TerminalId]
	delete(ts.runs, p.TerminalId)
	ts.mu.Unlock()
	if t == nil {
		return sdk.ReleaseTerminalResponse{}, fmt.Errorf("nexus: no terminal %q", p.TerminalId)
	}
	t.kill()
	t.closeWhenDone()
	return sdk.ReleaseTerminalResponse{}, nil
}
