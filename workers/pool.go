package workers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// PoolConfig configures a Pool. Zero fields take the defaults named on
// them.
type PoolConfig struct {
	// Command is a worker's argv before "--workspace DIR --key-fd 3"
	// (default: this executable, "worker"). Tests point it at a built
	// binary or at the test binary itself.
	Command []string
	// Env is added to the workers' environment, which is the host's
	// allow-listed variables (those commands get, and the Go runtime's).
	// Commands do not see Env unless it is allow-listed too.
	Env []string
	// CommandEnv are the variables commands get on top of the defaults
	// (env.go): names, or prefixes ending in "*" (NODE_*), which never
	// pass a name that looks like a credential. From [commands] env.
	CommandEnv []string
	// Workspace is used by steps that name none.
	Workspace string
	// Deny are directories no step may read or write, even inside a
	// workspace (the host's state dir); each worker gets --deny DIR.
	Deny []string
	// Max caps worker processes, and so concurrent steps (4).
	Max int
	// Key signs capability tokens (default: NewKey()). It reaches
	// workers only through an inherited pipe; never journal or log it.
	Key []byte
	// KillGrace (3 s): after cancelling a step, the pool waits this long
	// plus 1 s for its result before it kills the worker and the step's
	// process group. Keep it above the worker's SIGTERM grace of 2 s.
	KillGrace time.Duration
	// StepTimeout applies to steps without a Timeout (10 min). It and
	// every Timeout may not pass MaxStepTimeout.
	StepTimeout time.Duration
	// TokenTTL is how long a token outlives its step's timeout (30 s).
	// It may not pass TokenGrace, beyond which workers refuse tokens; the
	// difference absorbs a wall clock stepped back between signing and
	// checking.
	TokenTTL time.Duration
}

// Step is one worker step as the kernel asks for it.
type Step struct {
	Task      string // the task id: the kernel's node or effect key
	N         int    // the step number within the task
	Action    string // one of the Action constants
	Args      Args
	Timeout   time.Duration // 0: PoolConfig.StepTimeout
	Workspace string        // "": PoolConfig.Workspace
}

// Pool runs steps on warm worker processes, at most Max at a time. It is
// safe for concurrent use; each Execute holds one worker for the step.
type Pool struct {
	cfg    PoolConfig
	sem    chan struct{}
	nextID atomic.Int64

	mu     sync.Mutex
	closed bool
	count  int                // workers running or starting
	idle   map[string][]*proc // warm workers by workspace
	all    map[*proc]bool
}

// NewPool returns a pool; it starts workers on demand.
func NewPool(cfg PoolConfig) (*Pool, error) {
	if len(cfg.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("workers: find the nexus executable for workers: %w", err)
		}
		cfg.Command = []string{exe, "worker"}
	}
	for _, d := range cfg.Deny {
		cfg.Command = append(slices.Clone(cfg.Command), "--deny", d)
	}
	for _, e := range cfg.CommandEnv {
		if err := CheckEnvPattern(e); err != nil {
			return nil, fmt.Errorf("workers: %w", err)
		}
		cfg.Command = append(slices.Clone(cfg.Command), "--env", e)
	}
	if cfg.Max <= 0 {
		cfg.Max = 4
	}
	if len(cfg.Key) == 0 {
		k, err := NewKey()
		if err != nil {
			return nil, err
		}
		cfg.Key = k
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = 3 * time.Second
	}
	if cfg.StepTimeout <= 0 {
		cfg.StepTimeout = 10 * time.Minute
	}
	if cfg.StepTimeout > MaxStepTimeout {
		return nil, fmt.Errorf("workers: StepTimeout %s is over MaxStepTimeout (%s)", cfg.StepTimeout, MaxStepTimeout)
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = TokenGrace / 2
	}
	if cfg.TokenTTL > TokenGrace {
		return nil, fmt.Errorf("workers: TokenTTL %s is over TokenGrace (%s): workers would refuse every token", cfg.TokenTTL, TokenGrace)
	}
	return &Pool{cfg: cfg, sem: make(chan struct{}, cfg.Max), idle: map[string][]*proc{}, all: map[*proc]bool{}}, nil
}

// Execute runs one step on a worker and returns how it ended; status
// error "worker died: ..." if the worker exited under it (the next step
// gets a fresh worker). It signs the step's capability token itself.
// onCheckpoint (may be nil) is called in order on the worker's reader
// goroutine and must not block for long.
//
// Cancelling ctx cancels the step: the worker kills its process group and
// answers status cancelled; a worker that does not answer in time is
// killed with the group. A non-nil error means the step did not run:
// invalid step, pool closed, ctx done while waiting for a worker, or no
// worker could be started.
func (p *Pool) Execute(ctx context.Context, st Step, onCheckpoint func(Checkpoint)) (Result, error) {
	ws := st.Workspace
	if ws == "" {
		ws = p.cfg.Workspace
	}
	switch {
	case st.Task == "":
		return Result{}, fmt.Errorf("%w: the step has no task id", ErrBadStep)
	case Class(st.Action) == "":
		return Result{}, fmt.Errorf("%w: unknown action %q", ErrBadStep, st.Action)
	case ws == "":
		return Result{}, fmt.Errorf("%w: the step has no workspace and the pool no default", ErrBadStep)
	case st.Timeout > MaxStepTimeout:
		return Result{}, fmt.Errorf("%w: timeout %s is over the %s a step may take", ErrBadStep, st.Timeout, MaxStepTimeout)
	}
	ws, err := filepath.Abs(ws)
	if err != nil {
		return Result{}, fmt.Errorf("%w: workspace: %v", ErrBadStep, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return Result{}, fmt.Errorf("%w: workspace %s is not a directory", ErrBadStep, ws)
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-p.sem }()
	timeout := st.Timeout
	if timeout <= 0 {
		timeout = p.cfg.StepTimeout
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		w, err := p.get(ws)
		if err != nil {
			return Result{}, err
		}
		g := Grant{Task: st.Task, Step: st.N, Action: st.Action, Target: TargetOf(st.Action, st.Args),
			Nonce: NewNonce(), Expiry: time.Now().Add(timeout + p.cfg.TokenTTL)}
		ex := Execute{TaskID: st.Task, Step: st.N, Action: st.Action, Args: st.Args,
			Capability: Sign(p.cfg.Key, g), TimeoutMS: max(1, timeout.Milliseconds())}
		id := strconv.FormatInt(p.nextID.Add(1), 10)
		res, sent := w.do(ctx, id, ex, p.cfg.KillGrace, onCheckpoint)
		if !sent {
			w.kill(nil) // its stdin is broken: it is dying or stuck
		}
		p.put(w)
		if sent {
			return res, nil
		}
		if attempt > 0 {
			return Result{}, fmt.Errorf("workers: could not hand step %d of %s to a worker", st.N, st.Task)
		}
	}
}

// get returns a warm worker on ws or starts one, evicting an idle worker
// of another workspace when the pool is full.
func (p *Pool) get(ws string) (*proc, error) {
	var evict *proc
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, ErrPoolClosed
		}
		l := p.idle[ws]
		if len(l) == 0 {
			break
		}
		w := l[len(l)-1]
		p.idle[ws] = l[:len(l)-1]
		if !w.isDead() {
			p.mu.Unlock()
			return w, nil
		}
		p.forget(w)
	}
	if p.count >= p.cfg.Max {
		// Execute holds a slot, so fewer than Max workers are busy and
		// one is idle on another workspace.
		for other, l := range p.idle {
			if len(l) > 0 {
				evict = l[0]
				p.idle[other] = l[1:]
				p.forget(evict)
				break
			}
		}
	}
	p.count++
	p.mu.Unlock()
	if evict != nil {
		evict.stop(p.cfg.KillGrace)
	}
	env := append(p.workerAllow().filter(os.Environ()), p.cfg.Env...)
	w, err := startProc(p.cfg.Command, env, ws, p.cfg.Key)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.count--
		return nil, err
	}
	p.all[w] = true
	return w, nil
}

// put returns a worker after a step: warm if alive, else forgotten (a
// dead worker is already reaped; the next step starts a fresh one).
func (p *Pool) put(w *proc) {
	p.mu.Lock()
	if !w.isDead() && !p.closed {
		p.idle[w.ws] = append(p.idle[w.ws], w)
		p.mu.Unlock()
		return
	}
	alive := p.all[w]
	p.forget(w)
	p.mu.Unlock()
	if alive && !w.isDead() {
		w.stop(p.cfg.KillGrace) // the pool closed during the step
	}
}

// forget drops w from the books. Called with p.mu held.
func (p *Pool) forget(w *proc) {
	if p.all[w] {
		delete(p.all, w)
		p.count--
	}
}

// Close stops every worker (closing its stdin cancels its steps, which
// kills their process groups), kills those that do not exit in time, and
// reaps them all. Running Executes return status cancelled (or worker
// died); later ones return ErrPoolClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	procs := make([]*proc, 0, len(p.all))
	for w := range p.all {
		procs = append(procs, w)
	}
	p.idle = map[string][]*proc{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.stop(p.cfg.KillGrace + time.Second)
		}()
	}
	wg.Wait()
	return nil
}

// workerAllow is the allow-list of a worker process's environment:
// what its commands get, and the Go runtime's variables.
func (p *Pool) workerAllow() envAllow {
	return append(commandAllow(p.cfg.CommandEnv), runtimeEnv...)
}
