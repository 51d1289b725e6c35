package agentproc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MaxFrame bounds one line an agent writes on stdout. Tool output can be
// large (a file read back in full), but an endless line is a broken agent.
const MaxFrame = 64 << 20

// stderrKeep is how much of an agent's stderr is kept for error messages.
const stderrKeep = 8 << 10

// Spec is how to start an agent process.
type Spec struct {
	// Name is the profile name, used in every message a person sees.
	Name string
	// Path is the command (looked up on PATH) and Args its arguments.
	Path string
	Args []string
	// Env adds KEY=VALUE entries to the host's environment.
	Env []string
	// Dir is the working directory (the thread's workspace).
	Dir string
	// Home, when set, isolates the agent: HOME and the XDG directories
	// point inside it (created 0700), so it neither reads nor writes the
	// user's own agent configuration.
	Home string
	// Install is the advice given when the command is missing.
	Install string
}

// Proc is one agent process running in its own process group.
type Proc struct {
	spec    Spec
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	wmu     sync.Mutex // serializes frames on stdin
	errTail tail
	errDone chan struct{}
	done    chan struct{}
	waitErr error
	stopped bool // Stop was called; guarded by wmu
}

// ErrNotFound is wrapped by Start when the command is not on PATH.
var ErrNotFound = errors.New("agent command not found")

// Start starts the agent in its own process group with piped stdio. The
// caller reads Stdout; stderr is kept (its tail) for error messages. A
// spec without a command is an error, not a search of PATH for "".
func Start(spec Spec) (*Proc, error) {
	if spec.Path == "" {
		return nil, fmt.Errorf("%s: no command configured", spec.Name)
	}
	path, err := exec.LookPath(spec.Path)
	if err != nil {
		advice := spec.Install
		if advice == "" {
			advice = "install it or set its path in the profile"
		}
		return nil, fmt.Errorf("%w: %s: %q is not on PATH; %s", ErrNotFound, spec.Name, spec.Path, advice)
	}
	env := os.Environ()
	if spec.Home != "" {
		if err := os.MkdirAll(spec.Home, 0o700); err != nil {
			return nil, fmt.Errorf("%s: cannot create its home %s: %w", spec.Name, spec.Home, err)
		}
		env = append(env, "HOME="+spec.Home, "XDG_CONFIG_HOME="+spec.Home+"/.config",
			"XDG_DATA_HOME="+spec.Home+"/.local/share", "XDG_STATE_HOME="+spec.Home+"/.local/state",
			"XDG_CACHE_HOME="+spec.Home+"/.cache")
	}
	env = append(env, spec.Env...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(path, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child has its copies; ours of its ends must go, so EOF comes
	// when it (and everything it started) exits.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: cannot start %s: %w", spec.Name, path, err)
	}
	p := &Proc{spec: spec, cmd: cmd, stdin: inW, stdout: outR, errDone: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.errDone)
		_, _ = io.Copy(&p.errTail, errR)
		errR.Close()
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id (and process group id).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stdout is the agent's standard output. Read it from one goroutine.
func (p *Proc) Stdout() io.Reader { return p.stdout }

// Done is closed once the process has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// WriteLine writes one frame and a newline, whole, to the agent's stdin.
func (p *Proc) WriteLine(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.stopped {
		return fmt.Errorf("%s: the process is stopping", p.spec.Name)
	}
	buf := make([]byte, 0, len(b)+1)
	buf = append(append(buf, b...), '\n')
	if _, err := p.stdin.Write(buf); err != nil {
		return fmt.Errorf("%s: writing to the agent: %w", p.spec.Name, err)
	}
	return nil
}

// Stdin is the agent's standard input for a protocol library that frames
// its own messages; writes are serialized with WriteLine's.
func (p *Proc) Stdin() io.Writer { return stdinWriter{p} }

type stdinWriter struct{ p *Proc }

func (w stdinWriter) Write(b []byte) (int, error) {
	w.p.wmu.Lock()
	defer w.p.wmu.Unlock()
	if w.p.stopped {
		return 0, fmt.Errorf("%s: the process is stopping", w.p.spec.Name)
	}
	return w.p.stdin.Write(b)
}

// Stderr returns the tail of what the agent wrote on stderr.
func (p *Proc) Stderr() string { return strings.TrimSpace(p.errTail.String()) }

// ExitReason describes how the process ended, with the tail of its stderr,
// for the error a person reads on the thread. Call it after Done.
func (p *Proc) ExitReason() string {
	// Give the stderr copier a moment to drain what the process wrote last.
	select {
	case <-p.errDone:
	case <-time.After(200 * time.Millisecond):
	}
	var b strings.Builder
	b.WriteString(p.spec.Name)
	switch err := p.waitErr; {
	case err == nil:
		b.WriteString(" exited")
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				fmt.Fprintf(&b, " was killed by %s", ws.Signal())
				break
			}
			fmt.Fprintf(&b, " exited with status %d", ee.ExitCode())
			break
		}
		fmt.Fprintf(&b, " ended: %v", err)
	}
	if s := p.Stderr(); s != "" {
		b.WriteString(": ")
		b.WriteString(lastLines(s, 5))
	}
	return b.String()
}

// Stop ends the process in three stages, each with a deadline: the
// protocol's own cancel or shutdown (cancel, may be nil) and the end of
// stdin get grace; then the process group gets SIGTERM and term; then
// SIGKILL. It returns once the process is reaped; anything left in its
// process group (tool commands it started) is killed too.
func (p *Proc) Stop(cancel func(), grace, term time.Duration) {
	if cancel != nil {
		cancel()
	}
	p.wmu.Lock()
	p.stopped = true
	p.stdin.Close()
	p.wmu.Unlock()
	if !p.wait(grace) {
		_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
		if !p.wait(term) {
			_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
			<-p.done
		}
	}
	p.killGroup()
}

// Close releases the pipes; call it after Done.
func (p *Proc) Close() {
	p.wmu.Lock()
	p.stopped = true
	p.stdin.Close()
	p.wmu.Unlock()
	p.stdout.Close()
}

// killGroup kills what the agent left in its group (tool commands it
// started). The leader is reaped, so only members remain, if any.
func (p *Proc) killGroup() { _ = syscall.Kill(-p.Pid(), syscall.SIGKILL) }

func (p *Proc) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// Lines returns a scanner over frames of at most MaxFrame bytes.
func Lines(r io.Reader) *bufio.Scanner {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), MaxFrame)
	return s
}

// tail keeps the last stderrKeep bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > stderrKeep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.buf, []byte("?")))
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Snippet shortens a frame for a message: at most n bytes, valid UTF-8,
// control characters shown as spaces.
func Snippet(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	s := strings.ToValidUTF8(string(b), "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
