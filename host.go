package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/store"
	"github.com/nexus-tui/nexus/store/checkpoint"
	"github.com/nexus-tui/nexus/workers"
)

// socketName is the host's socket inside the state dir.
const socketName = "nexus.sock"

// session is how one invocation reaches the kernel: as the host (it owns
// the journal and serves the others) or as a client of the host.
type session struct {
	core.Backend
	dir  string
	host *host // nil for a client
	// stop ends the session: a client disconnects; a command-line host
	// first serves the clients still connected (drain), then closes.
	stop func()
}

// host owns the state dir: journal, runner, providers and socket server.
type host struct {
	st     *store.Store
	runner *core.Runner
	// backend is what the socket and the host's own TUI use: the runner
	// plus the providers' terminals.
	backend *hostBackend
	reg     *providers.Registry
	pool    *workers.Pool
	cps     *checkpointer
	srv     *api.Server
	cancel  context.CancelFunc
	runErr  chan error
	srvErr  chan error
}

// connect makes this invocation a client of the running host, or the host
// itself when none runs. Two invocations racing for an empty state dir end
// with one host and one client.
func (a *app) connect(ctx context.Context) (*session, error) {
	return a.dialOrHost(ctx, false)
}

// refusedWait is how long after a host last refused this invocation
// (it is exiting, or serves only its own read) connect keeps trying; the
// host is alive, so it is waited for rather than reported as locked.
// maxRefusedWait bounds the whole wait.
const (
	lockedWait     = 2 * time.Second
	refusedWait    = 2 * time.Second
	maxRefusedWait = time.Minute
)

// dialOrHost is connect. readOnly: when this invocation becomes the host,
// it serves nobody else (api.Server.Refuse), so a one-shot read such as
// `thread show` never hosts another invocation's long run and returns as
// soon as it has printed; the other invocation retries and hosts itself.
func (a *app) dialOrHost(ctx context.Context, readOnly bool) (*session, error) {
	dir, err := a.resolveStateDir()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, socketName)
	start := time.Now()
	deadline := start.Add(lockedWait)
	for {
		c, err := api.Dial(ctx, sock, time.Second)
		if err == nil {
			return &session{Backend: c, dir: dir, stop: func() { c.Close() }}, nil
		}
		if errors.Is(err, api.ErrRefused) {
			if d := time.Now().Add(refusedWait); d.After(deadline) && d.Before(start.Add(maxRefusedWait)) {
				deadline = d
			}
		}
		h, err := startHost(dir, 200*time.Millisecond, cfg, readOnly)
		if err == nil {
			s := &session{Backend: h.backend, dir: dir, host: h}
			s.stop = func() { s.drain(); h.close() }
			return s, nil
		}
		var le *store.LockedError
		if !errors.As(err, &le) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, &exitError{code: exitLocked, msg: fmt.Sprintf(
				"state dir %s is locked by process %d, which does not answer on %s; stop that process or use another --state-dir",
				dir, le.PID, sock)}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startHost opens the journal, recovers, and serves the socket, with the
// ready-made profiles and those of cfg (nil: none). The host reads the
// config file once: a changed file takes effect at the next host.
// private: refuse every client (a host for one read-only invocation).
func startHost(dir string, lockTimeout time.Duration, cfg *config.Config, private bool) (*host, error) {
	st, err := store.Open(dir, store.Options{LockTimeout: lockTimeout})
	if err != nil {
		return nil, err
	}
	pool, err := workers.NewPool(workers.PoolConfig{})
	if err != nil {
		st.Close()
		return nil, err
	}
	reg := newRegistry(pool, cfg)
	hctx, cancel := context.WithCancel(context.Background())
	cps := &checkpointer{m: checkpoint.New(dir, checkpoint.Options{PackAfter: envInt("NEXUS_CHECKPOINT_PACK_AFTER")}), ctx: hctx}
	exec := func(e core.Effect) {
		switch e.Kind {
		case core.EffCheckpoint, core.EffRestore:
			cps.exec(e)
		default:
			reg.Exec(e)
		}
	}
	runner, err := core.NewRunner(core.RunnerConfig{Journal: st, Exec: exec, SnapshotEvery: snapshotEvery()})
	if err != nil {
		cancel()
		pool.Close()
		st.Close()
		return nil, err
	}
	cps.sink = runner
	ln, err := api.Listen(filepath.Join(dir, socketName))
	if err != nil {
		cancel()
		pool.Close()
		st.Close()
		return nil, fmt.Errorf("cannot serve the state dir socket: %w", err)
	}
	h := &host{st: st, runner: runner, backend: &hostBackend{Backend: runner, reg: reg}, reg: reg, pool: pool,
		cps: cps, cancel: cancel, runErr: make(chan error, 1), srvErr: make(chan error, 1)}
	reg.Bind(hctx, runner)
	go func() { h.runErr <- runner.Run(hctx) }()
	h.srv = api.NewServer(h.backend, api.HostInfo{PID: os.Getpid(), Version: Version, StateDir: dir})
	if private {
		h.srv.Refuse()
	}
	go func() { h.srvErr <- h.srv.Serve(hctx, ln) }()
	return h, nil
}

// close stops the host in the order that keeps the journal honest: the
// runner first (it flushes text and writes a snapshot; providers can no
// longer report), then the providers and their processes, then the socket
// and the journal.
func (h *host) close() {
	h.cancel()
	<-h.runErr
	h.reg.Close()
	h.cps.wait()
	h.pool.Close()
	<-h.srvErr
	h.st.Close()
}

// linger keeps a command-line host serving while clients are connected or
// runs are running, so a second terminal's `nexus send --mode steer` or a
// queued run is not cut off when the first command finishes.
func (s *session) linger(ctx context.Context) {
	if s.host == nil {
		return
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := s.State(ctx)
		if err != nil {
			return
		}
		busy := false
		for _, r := range st.Runs {
			if r.Status == core.RunRunning {
				busy = true
				break
			}
		}
		for _, op := range st.Operations {
			if op.Status == core.OpRunning {
				busy = true
			}
		}
		// Deciding that no client is connected and refusing new ones
		// is one step, so a client that connects as this host decides
		// to exit is refused (and retries) rather than dropped mid-call.
		if !busy && s.host.srv.CloseIfIdle() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// drain keeps a command-line host serving until no client is connected,
// refusing new ones from that instant (Server.CloseIfIdle), so no
// invocation that found this host is cut off by its exit.
func (s *session) drain() {
	for !s.host.srv.CloseIfIdle() {
		time.Sleep(50 * time.Millisecond)
	}
}

// snapshotEvery reads NEXUS_SNAPSHOT_EVERY, a tuning knob the crash tests
// use to snapshot often; 0 (unset or invalid) means the kernel's default.
func snapshotEvery() uint64 {
	return uint64(envInt("NEXUS_SNAPSHOT_EVERY"))
}

// envInt reads a tuning knob the crash tests set (NEXUS_SNAPSHOT_EVERY,
// NEXUS_CHECKPOINT_PACK_AFTER); 0 when unset, invalid or negative means
// the default.
func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
