package workers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Config configures one worker (Serve). Zero fields take the defaults
// named on them.
type Config struct {
	// Workspace is the directory every path is confined to.
	Workspace string
	// Deny are directories no step may read or write, even inside the
	// workspace: the host passes its state dir.
	Deny []string
	// Key checks capability tokens. A worker without a key refuses
	// every step.
	Key []byte
	// Env is the environment run_command's variables are taken from
	// (default: the worker's own); only allow-listed ones pass.
	Env []string
	// CommandEnv are the entries run_command's environment allows on top
	// of the defaults (env.go): names, or prefixes ending in "*".
	CommandEnv []string
	// MaxRead caps read_file, write_file and edit_file (8 MiB).
	MaxRead int64
	// MaxOutput caps the output run_command keeps and streams (1 MiB).
	MaxOutput int
	// KillGrace is the time between SIGTERM and SIGKILL (2 s).
	KillGrace time.Duration
	// DefaultTimeout applies when execute has no timeout_ms (10 min, at
	// most MaxStepTimeout).
	DefaultTimeout time.Duration
	// MaxSteps is how many steps may run at once (64).
	MaxSteps int
	// Now is the clock tokens are checked against (time.Now).
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.MaxRead <= 0 {
		c.MaxRead = 8 << 20
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = 1 << 20
	}
	if c.KillGrace <= 0 {
		c.KillGrace = 2 * time.Second
	}
	if c.DefaultTimeout <= 0 {
		c.DefaultTimeout = 10 * time.Minute
	}
	c.DefaultTimeout = min(c.DefaultTimeout, MaxStepTimeout)
	if c.MaxSteps <= 0 {
		c.MaxSteps = 64
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	return c
}

// stopCause is why a step's context ended; it picks the step's status.
type stopCause struct{ status, msg string }

func (c *stopCause) Error() string { return c.msg }

type actionFunc func(s *server, ctx context.Context, a Args, r *Result, emit emitFunc) error

var actions = map[string]actionFunc{
	ActionReadFile:   (*server).readFile,
	ActionWriteFile:  (*server).writeFile,
	ActionEditFile:   (*server).editFile,
	ActionListDir:    (*server).listDir,
	ActionSearch:     (*server).search,
	ActionRunCommand: (*server).runCommand,
}

type server struct {
	cfg   Config
	ws    *workspace
	allow envAllow // run_command's environment
	out   *frameWriter
	spent ledger // tokens accepted

	mu      sync.Mutex
	closed  bool
	running map[string]map[int]context.CancelCauseFunc // task -> step -> cancel
	wg      sync.WaitGroup                             // running steps
}

// Serve runs a worker: it reads frames from in and writes frames to out
// until in ends (returning nil) or ctx is done (returning ctx.Err()).
// Either way it first cancels the running steps, which kills their
// process groups, and waits for them. Steps run concurrently, each on its
// own goroutine; out is written by one frame at a time.
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	cfg = cfg.withDefaults()
	for _, p := range cfg.CommandEnv {
		if err := CheckEnvPattern(p); err != nil {
			return fmt.Errorf("workers: %w", err)
		}
	}
	ws, err := openWorkspace(cfg.Workspace, cfg.Deny...)
	if err != nil {
		return err
	}
	defer ws.close()
	s := &server{cfg: cfg, ws: ws, allow: commandAllow(cfg.CommandEnv), out: newFrameWriter(out),
		running: map[string]map[int]context.CancelCauseFunc{}}
	stepCtx, stopAll := context.WithCancelCause(context.WithoutCancel(ctx))
	readErr := make(chan error, 1)
	// The reader goroutine ends when in does; after ctx is done it may
	// still be blocked in a read, but it starts no more steps.
	go func() { readErr <- s.readLoop(stepCtx, in) }()
	select {
	case err = <-readErr:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	stopAll(&stopCause{StatusCancelled, "cancelled: the worker is shutting down"})
	s.wg.Wait()
	return err
}

func (s *server) readLoop(ctx context.Context, in io.Reader) error {
	lr := newLineReader(in, MaxFrame)
	for {
		line, err := lr.next()
		switch {
		case errors.Is(err, errLongLine):
			s.reply(nullID, nil, &RPCError{CodeInvalidRequest, fmt.Sprintf("frame over the %d byte limit", MaxFrame)})
			continue
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("workers: read frames: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			s.handle(ctx, line)
		}
	}
}

func (s *server) reply(id json.RawMessage, result any, rerr *RPCError) {
	if id == nil {
		id = nullID
	}
	s.out.write(outFrame{ID: id, Result: result, Error: rerr})
}

func (s *server) handle(ctx context.Context, line []byte) {
	f, perr := ParseFrame(line)
	if perr != nil {
		s.reply(nullID, nil, perr)
		return
	}
	switch f.Method {
	case "":
		// A response: the worker sends no requests, so there is nothing
		// to match it to.
	case MethodExecute:
		if f.ID == nil {
			s.reply(nullID, nil, &RPCError{CodeInvalidRequest, "execute must be a request with an id"})
			return
		}
		var ex Execute
		if err := decodeParams(f.Params, &ex); err != nil {
			s.reply(f.ID, nil, &RPCError{CodeInvalidParams, "execute: " + err.Error()})
			return
		}
		if msg := ex.invalid(); msg != "" {
			s.reply(f.ID, nil, &RPCError{CodeInvalidParams, "execute: " + msg})
			return
		}
		s.start(ctx, f.ID, &ex)
	case MethodCancel:
		var c Cancel
		err := decodeParams(f.Params, &c)
		if err == nil && c.TaskID == "" {
			err = errors.New("task_id is empty")
		}
		if err != nil {
			if f.ID != nil {
				s.reply(f.ID, nil, &RPCError{CodeInvalidParams, "cancel: " + err.Error()})
			}
			return
		}
		n := s.cancelTask(c.TaskID, c.Reason)
		if f.ID != nil {
			s.reply(f.ID, map[string]int{"cancelled": n}, nil)
		}
	default:
		if f.ID != nil {
			s.reply(f.ID, nil, &RPCError{CodeMethodNotFound, fmt.Sprintf("unknown method %q (want execute or cancel)", f.Method)})
		}
	}
}

func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("params missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad params: %v", err)
	}
	return nil
}

// invalid says what is wrong with an execute request's shape, or "".
func (ex *Execute) invalid() string {
	switch {
	case ex.TaskID == "" || len(ex.TaskID) > 256 || !utf8.ValidString(ex.TaskID):
		return "task_id must be 1 to 256 bytes of UTF-8"
	case ex.Step < 0:
		return "step must not be negative"
	case ex.Action == "":
		return "action is empty"
	case ex.TimeoutMS < 0:
		return "timeout_ms must not be negative"
	case ex.TimeoutMS > MaxStepTimeout.Milliseconds():
		return fmt.Sprintf("timeout_ms must be at most %d (%s)", MaxStepTimeout.Milliseconds(), MaxStepTimeout)
	}
	return ""
}

func (s *server) start(ctx context.Context, id json.RawMessage, ex *Execute) {
	res := Result{TaskID: ex.TaskID, Step: ex.Step, Status: StatusError}
	s.mu.Lock()
	steps := s.running[ex.TaskID]
	n := 0
	for _, m := range s.running {
		n += len(m)
	}
	switch {
	case s.closed:
		res.Status, res.Error = StatusCancelled, "cancelled: the worker is shutting down"
	case steps[ex.Step] != nil:
		res.Error = fmt.Sprintf("step %d of task %q is already running on this worker", ex.Step, ex.TaskID)
	case n >= s.cfg.MaxSteps:
		res.Error = fmt.Sprintf("worker busy: %d steps running", n)
	}
	if res.Error != "" {
		s.mu.Unlock()
		s.reply(id, res, nil)
		return
	}
	timeout := s.timeout(ex)
	sctx, cancel := context.WithCancelCause(ctx)
	tctx, tcancel := context.WithTimeoutCause(sctx, timeout,
		&stopCause{StatusTimeout, fmt.Sprintf("timed out after %s", timeout)})
	if steps == nil {
		steps = map[int]context.CancelCauseFunc{}
		s.running[ex.TaskID] = steps
	}
	steps[ex.Step] = cancel
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		res := s.execute(tctx, ex)
		tcancel()
		cancel(nil)
		s.mu.Lock()
		delete(steps, ex.Step)
		if len(s.running[ex.TaskID]) == 0 {
			delete(s.running, ex.TaskID)
		}
		s.mu.Unlock()
		s.reply(id, res, nil)
	}()
}

// timeout is the step's timeout: timeout_ms, else the default.
func (s *server) timeout(ex *Execute) time.Duration {
	if ex.TimeoutMS > 0 {
		return time.Duration(ex.TimeoutMS) * time.Millisecond
	}
	return s.cfg.DefaultTimeout
}

func (s *server) cancelTask(task, reason string) int {
	if reason == "" {
		reason = "cancel requested"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.running[task] {
		cancel(&stopCause{StatusCancelled, "cancelled: " + reason})
	}
	return len(s.running[task])
}

// execute runs one step and says how it ended.
func (s *server) execute(ctx context.Context, ex *Execute) Result {
	start := time.Now()
	res := Result{TaskID: ex.TaskID, Step: ex.Step}
	emit := func(a Artifacts) {
		s.out.write(outFrame{Method: MethodCheckpoint, Params: Checkpoint{TaskID: ex.TaskID, Step: ex.Step, Artifacts: a}})
	}
	err := s.perform(ctx, ex, &res, emit)
	res.Status = StatusOK
	if err != nil {
		res.Status, res.Error = classify(ctx, err)
	}
	res.Metrics.DurationMS = time.Since(start).Milliseconds()
	return res
}

func (s *server) perform(ctx context.Context, ex *Execute, res *Result, emit emitFunc) error {
	act, ok := actions[ex.Action]
	if !ok {
		return fmt.Errorf("unknown action %q (want read_file, write_file, edit_file, list_dir, search or run_command)", ex.Action)
	}
	g := Grant{Task: ex.TaskID, Step: ex.Step, Action: ex.Action, Target: TargetOf(ex.Action, ex.Args)}
	now := s.cfg.Now()
	tok, err := Verify(s.cfg.Key, ex.Capability, g, now, s.timeout(ex)+TokenGrace)
	if err == nil {
		err = s.spent.spend(tok, now)
	}
	if err != nil {
		return refusef("refused: %s", strings.TrimPrefix(err.Error(), "workers: "))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return act(s, ctx, ex.Args, res, emit)
}

// classify maps a step's error to its status and message.
func classify(ctx context.Context, err error) (string, string) {
	var ref *refusal
	var sc *stopCause
	switch {
	case errors.As(err, &ref):
		return StatusRefused, ref.msg
	case errors.As(err, &sc):
		return sc.status, sc.msg
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &sc):
		return sc.status, sc.msg
	}
	return StatusError, err.Error()
}

// RunProcess is `nexus worker`: it parses the flags (--workspace DIR;
// --deny DIR and --env ENTRY, both repeatable; --key-fd N, default 3),
// reads the capability key from the inherited fd, closes the fd, and
// serves stdin/stdout until stdin ends.
func RunProcess(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("nexus worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ws := fs.String("workspace", "", "workspace directory")
	keyFD := fs.Int("key-fd", 3, "fd the capability key is read from")
	var deny, env listFlag
	fs.Var(&deny, "deny", "a directory no step may touch (repeatable)")
	fs.Var(&env, "env", "a variable (NAME or PREFIX*) commands get on top of the defaults (repeatable)")
	const usage = "nexus worker --workspace DIR [--deny DIR]... [--env NAME]... [--key-fd N] (started by the nexus host)"
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUsage, usage, err)
	}
	if fs.NArg() > 0 || *ws == "" {
		return fmt.Errorf("%w: %s", ErrUsage, usage)
	}
	for _, p := range env {
		if err := CheckEnvPattern(p); err != nil {
			return fmt.Errorf("%w: --env: %v", ErrUsage, err)
		}
	}
	key, err := ReadKeyFD(*keyFD)
	if err != nil {
		return err
	}
	return Serve(ctx, stdin, stdout, Config{Workspace: *ws, Deny: deny, CommandEnv: env, Key: key})
}

// listFlag collects a repeated flag.
type listFlag []string

func (d *listFlag) String() string { return strings.Join(*d, ",") }

func (d *listFlag) Set(v string) error {
	*d = append(*d, v)
	return nil
}
