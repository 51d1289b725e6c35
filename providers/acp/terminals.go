package acp

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"

	sdk "github.com/coder/acp-go-sdk"
)

// defaultOutputLimit bounds a terminal's kept output when the agent sets
// no limit.
const defaultOutputLimit = 1 << 20

// terminals are the commands an agent runs through nexus (terminal/*):
// each in its own process group in the workspace, output (stdout and
// stderr together) kept up to the agent's byte limit, oldest bytes
// dropped first.
type terminals struct {
	mu   sync.Mutex
	n    int
	runs map[string]*term
}

type term struct {
	cmd       *exec.Cmd
	mu        sync.Mutex
	out       []byte
	limit     int
	truncated bool
	done      chan struct{}
	exit      *int
	signal    *string
}

func newTerminals() *terminals { return &terminals{runs: map[string]*term{}} }

func (t *term) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, b...)
	if len(t.out) > t.limit {
		t.out = append([]byte(nil), t.out[len(t.out)-t.limit:]...)
		t.truncated = true
	}
	return len(b), nil
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

func (ts *terminals) output(id string) string {
	t, err := ts.get(id)
	if err != nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.out)
}

func (ts *terminals) killAll() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for id, t := range ts.runs {
		if t.cmd.Process != nil {
			_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
		}
		delete(ts.runs, id)
	}
}

// CreateTerminal starts the command; its cwd must be in the workspace.
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
	cmd.Env = cmd.Environ()
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &term{cmd: cmd, limit: defaultOutputLimit, done: make(chan struct{})}
	if p.OutputByteLimit != nil && *p.OutputByteLimit > 0 {
		t.limit = *p.OutputByteLimit
	}
	cmd.Stdout, cmd.Stderr = t, t
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, fmt.Errorf("nexus: cannot start %s: %w", p.Command, err)
	}
	go func() {
		err := cmd.Wait()
		t.mu.Lock()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			t.signal = &sig
		} else {
			code := cmd.ProcessState.ExitCode()
			t.exit = &code
		}
		_ = err
		t.mu.Unlock()
		close(t.done)
	}()
	s.terms.mu.Lock()
	s.terms.n++
	id := fmt.Sprintf("term-%d", s.terms.n)
	s.terms.runs[id] = t
	s.terms.mu.Unlock()
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

// TerminalOutput returns what the command wrote so far.
func (c *client) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.s.terms.get(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	res := sdk.TerminalOutputResponse{Output: string(t.out), Truncated: t.truncated}
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
	_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	return sdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal kills the command if it still runs and forgets it.
func (c *client) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := c.s.terms.get(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	select {
	case <-t.done:
	default:
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	}
	c.s.terms.mu.Lock()
	delete(c.s.terms.runs, p.TerminalId)
	c.s.terms.mu.Unlock()
	return sdk.ReleaseTerminalResponse{}, nil
}
