package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// proc is one worker child process seen from the host.
//
// Invariant: its reader goroutine is the only reader of the worker's
// stdout; it closes dead after stdout ended and the process was reaped,
// so once dead is closed waitErr is set and the process is gone.
type proc struct {
	ws     string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *frameWriter
	stderr *tailBuffer

	dead    chan struct{}
	waitErr error

	mu    sync.Mutex
	calls map[string]*call // by request id
}

// call is one execute request waiting for its response.
type call struct {
	task string
	step int
	res  chan Result
	onCP func(Checkpoint)
	pgid atomic.Int64 // the step's process group, once reported
}

// startProc starts a worker on ws with the capability key written into
// a pipe that the child inherits as fd 3.
func startProc(argv, env []string, ws string, key []byte) (*proc, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("workers: key pipe: %w", err)
	}
	_, err = fmt.Fprintf(w, "%x", key)
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("workers: key pipe: %w", err)
	}
	defer r.Close()
	args := append(append([]string{}, argv[1:]...), "--workspace", ws, "--key-fd", "3")
	cmd := exec.Command(argv[0], args...)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{r}
	// Its own process group: a terminal's ^C reaches the host, which
	// stops workers in order, not the workers directly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{ws: ws, cmd: cmd, stderr: &tailBuffer{max: 2048}, dead: make(chan struct{}), calls: map[string]*call{}}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("workers: start worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("workers: start worker: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("workers: start worker %s: %w", argv[0], err)
	}
	p.out = newFrameWriter(p.stdin)
	go p.readLoop(stdout)
	return p, nil
}

func (p *proc) isDead() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

// readLoop delivers responses and checkpoints, then reaps the worker.
func (p *proc) readLoop(stdout io.Reader) {
	lr := newLineReader(stdout, MaxFrame)
	for {
		line, err := lr.next()
		if errors.Is(err, errLongLine) {
			continue
		}
		if err != nil {
			break
		}
		f, perr := ParseFrame(line)
		if perr != nil {
			continue
		}
		switch f.Method {
		case MethodCheckpoint:
			var cp Checkpoint
			if json.Unmarshal(f.Params, &cp) != nil {
				continue
			}
			if c := p.callFor(cp.TaskID, cp.Step); c != nil {
				if cp.Artifacts.PGID > 0 {
					c.pgid.Store(int64(cp.Artifacts.PGID))
				}
				if c.onCP != nil {
					c.onCP(cp)
				}
			}
		case "":
			p.deliver(f)
		}
	}
	p.waitErr = p.cmd.Wait()
	close(p.dead)
}

func (p *proc) callFor(task string, step int) *call {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		if c.task == task && c.step == step {
			return c
		}
	}
	return nil
}

func (p *proc) deliver(f *Frame) {
	p.mu.Lock()
	c := p.calls[string(f.ID)]
	delete(p.calls, string(f.ID))
	p.mu.Unlock()
	if c == nil {
		return
	}
	var r Result
	switch {
	case f.Error != nil:
		r = Result{TaskID: c.task, Step: c.step, Status: StatusError, Error: "the worker rejected the request: " + f.Error.Message}
	case json.Unmarshal(f.Result, &r) != nil:
		r = Result{TaskID: c.task, Step: c.step, Status: StatusError, Error: "the worker sent a result that does not decode"}
	}
	c.res <- r
}

// do sends one step and waits for its result. sent is false when the
// request could not be written (the step did not reach the worker).
func (p *proc) do(ctx context.Context, id string, ex Execute, grace time.Duration, onCP func(Checkpoint)) (res Result, sent bool) {
	c := &call{task: ex.TaskID, step: ex.Step, res: make(chan Result, 1), onCP: onCP}
	p.mu.Lock()
	p.calls[id] = c
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.calls, id)
		p.mu.Unlock()
	}()
	if err := p.out.write(outFrame{ID: json.RawMessage(id), Method: MethodExecute, Params: ex}); err != nil {
		return Result{}, false
	}
	stopped := func(status, msg string) Result {
		return Result{TaskID: ex.TaskID, Step: ex.Step, Status: status, Error: msg}
	}
	// The worker enforces timeout_ms; this is the backstop for a worker
	// that stops answering.
	backstop := time.NewTimer(time.Duration(ex.TimeoutMS)*time.Millisecond + grace + 2*time.Second)
	defer backstop.Stop()
	select {
	case r := <-c.res:
		return r, true
	case <-p.dead:
		return p.died(c, ex), true
	case <-backstop.C:
		p.kill(c)
		return stopped(StatusTimeout, fmt.Sprintf("timed out: the worker gave no result within %s of the step's timeout and was killed", grace+2*time.Second)), true
	case <-ctx.Done():
	}
	reason := "cancelled by the host"
	if cause := context.Cause(ctx); cause != nil {
		reason = cause.Error()
	}
	p.out.write(outFrame{Method: MethodCancel, Params: Cancel{TaskID: ex.TaskID, Reason: reason}})
	t := time.NewTimer(grace + time.Second)
	defer t.Stop()
	select {
	case r := <-c.res:
		return r, true
	case <-p.dead:
		return p.died(c, ex), true
	case <-t.C:
		p.kill(c)
		return stopped(StatusCancelled, "cancelled: "+reason+"; the worker did not stop in time and was killed"), true
	}
}

// died is the result of a step whose worker exited under it. A command
// the step started is in its own session, so its group is killed too.
func (p *proc) died(c *call, ex Execute) Result {
	if g := c.pgid.Load(); g > 0 {
		syscall.Kill(-int(g), syscall.SIGKILL)
	}
	msg := fmt.Sprintf("worker died: %v", p.waitErr)
	if p.waitErr == nil {
		msg = "worker died: it exited during the step"
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		msg += "; its last words: " + oneLine(tail)
	}
	return Result{TaskID: ex.TaskID, Step: ex.Step, Status: StatusError, Error: msg}
}

// kill ends the worker (and the step's process group when c has one)
// with SIGKILL and waits until it is reaped.
func (p *proc) kill(c *call) {
	if c != nil {
		if g := c.pgid.Load(); g > 0 {
			syscall.Kill(-int(g), syscall.SIGKILL)
		}
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.dead
}

// stop closes the worker's stdin, which makes it cancel its steps and
// exit, and kills it if it has not exited within wait.
func (p *proc) stop(wait time.Duration) {
	p.stdin.Close()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.dead:
	case <-t.C:
		p.kill(nil)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
