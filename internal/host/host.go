package host

import (
	"context"
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

// SocketName is the host's socket inside the state dir.
const SocketName = "nexus.sock"

// Version is the nexus version; release builds set it with -ldflags
// (-X github.com/nexus-tui/nexus/internal/host.Version=...).
var Version = "0.1.0-dev"

// Host owns the state dir: journal, runner, providers and socket server.
type Host struct {
	st     *store.Store
	runner *core.Runner
	// backend is what the socket and the host's own TUI use: the runner
	// plus the providers' terminals.
	backend *hostBackend
	reg     *providers.Registry
	pool    *workers.Pool
	cps     *checkpointer
	miss    *missioner
	srv     *api.Server
	cancel  context.CancelFunc
	srvErr  chan error

	// dead is closed when the Runner returned: at Close, or on its own
	// when its journal failed beyond recovery; runErr is then its error.
	dead   chan struct{}
	runErr error

	adm admin

	// notify runs [notify] command for the journal's notices (notify.go);
	// nil without one.
	notify *notifier

	// team is the journal on a hub ([team]); nil for the state dir's.
	team *team
	// logf tells the host's log (stderr; host.log for a background host).
	logf func(format string, args ...any)
}

// Start opens the journal, recovers, and serves the socket, with the
// ready-made profiles and those of cfg (nil: none). The host reads the
// config file once: a changed file takes effect at the next host.
// private: refuse every client (a host for one read-only invocation).
func Start(dir string, lockTimeout time.Duration, cfg *config.Config, private bool) (*Host, error) {
	st, err := store.Open(dir, store.Options{LockTimeout: lockTimeout})
	if err != nil {
		return nil, err
	}
	// The checkpoints live under the state dir; a symlink there would
	// send them (and the git processes run on them) somewhere else.
	if fi, err := os.Lstat(filepath.Join(dir, "checkpoints")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		st.Close()
		return nil, fmt.Errorf("the checkpoints dir %s is a symlink; nexus keeps checkpoints only in the state dir itself: remove the link",
			filepath.Join(dir, "checkpoints"))
	}
	var journal core.Journal = st
	var tm *team
	if cfg != nil && cfg.Team != nil {
		if st.Last() > 0 {
			st.Close()
			return nil, fmt.Errorf("state dir %s has a journal of its own (%d events) and the config names a hub ([team]): team mode starts from a state dir of its own; use another --state-dir, or remove [team]", dir, st.Last())
		}
		holder, err := leaseHolder(dir)
		if err == nil {
			tm, err = openTeam(context.Background(), cfg.Team, holder)
		}
		if err != nil {
			st.Close()
			return nil, err
		}
		journal = tm.journal()
	}
	closeTeam := func() {
		if tm != nil {
			tm.close()
		}
	}
	pool, err := workers.NewPool(poolConfig(dir, cfg))
	if err != nil {
		closeTeam()
		st.Close()
		return nil, err
	}
	reg := NewRegistry(pool, cfg)
	hctx, cancel := context.WithCancel(context.Background())
	cps := &checkpointer{m: checkpoint.New(dir, checkpoint.Options{PackAfter: envInt("NEXUS_CHECKPOINT_PACK_AFTER")}), ctx: hctx}
	miss := &missioner{m: cps.m, root: worktreeRoot(dir, cfg), ctx: hctx}
	exec := func(e core.Effect) {
		switch e.Kind {
		case core.EffCheckpoint, core.EffRestore:
			cps.exec(e)
		case core.EffMission:
			miss.exec(e)
		default:
			reg.Exec(e)
		}
	}
	rc := core.RunnerConfig{Journal: journal, Exec: exec, SnapshotEvery: snapshotEvery(),
		MinScheduleEvery: scheduleMinEvery(), NoSchedules: private}
	if tm != nil {
		rc.Writer = tm.lease.Holder()
	}
	runner, err := core.NewRunner(rc)
	if err != nil {
		cancel()
		pool.Close()
		closeTeam()
		st.Close()
		return nil, err
	}
	cps.sink, miss.sink = runner, runner
	ln, err := api.Listen(filepath.Join(dir, SocketName))
	if err != nil {
		cancel()
		pool.Close()
		closeTeam()
		st.Close()
		return nil, fmt.Errorf("cannot serve the state dir socket: %w", err)
	}
	h := &Host{st: st, runner: runner, backend: &hostBackend{Backend: runner, reg: reg, stateDir: dir}, reg: reg, pool: pool,
		cps: cps, miss: miss, cancel: cancel, dead: make(chan struct{}), srvErr: make(chan error, 1),
		adm: admin{started: time.Now(), stop: make(chan struct{})}, team: tm,
		logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "%s nexus: %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
		}}
	reg.Bind(hctx, runner)
	if tm != nil {
		go h.watchLease(hctx)
		h.serveTeam(hctx)
	}
	go func() {
		h.runErr = runner.Run(hctx)
		close(h.dead)
	}()
	h.notify = startNotifier(hctx, runner, cfg.NotifySettings())
	h.srv = api.NewServer(h.backend, api.HostInfo{PID: os.Getpid(), Version: Version, StateDir: dir})
	h.srv.SetAdmin(h)
	if private {
		h.srv.Refuse()
	}
	go func() { h.srvErr <- h.srv.Serve(hctx, ln) }()
	return h, nil
}

// poolConfig is the worker pool of a host on dir: no step may touch the
// state dir, and commands get the variables [commands] env names on top
// of the defaults.
func poolConfig(dir string, cfg *config.Config) workers.PoolConfig {
	pc := workers.PoolConfig{Deny: []string{dir}}
	if cfg != nil {
		pc.CommandEnv = cfg.CommandEnv
	}
	return pc
}

// Close stops the host in the order that keeps the journal honest: the
// runner first (it flushes text and writes a snapshot; providers can no
// longer report), then the providers and their processes, then the socket
// and the journal.
func (h *Host) Close() {
	h.cancel()
	<-h.dead
	h.notify.wait()
	h.reg.Close()
	h.cps.wait()
	h.miss.wait()
	h.pool.Close()
	<-h.srvErr
	if h.team != nil {
		h.team.close()
	}
	h.st.Close()
}

// Dead is closed when the kernel has stopped: after Close, or before it
// when the journal failed beyond recovery (Err says why). A host whose
// kernel stopped acknowledges nothing more; its owner should Close it
// and exit non-zero with Err.
func (h *Host) Dead() <-chan struct{} { return h.dead }

// Err is why the kernel stopped, once Dead is closed; nil for a clean
// stop.
func (h *Host) Err() error {
	select {
	case <-h.dead:
		return h.runErr
	default:
		return nil
	}
}

// Backend is what the socket serves and the host's own UI uses: the
// Runner plus the providers' live terminals.
func (h *Host) Backend() core.Backend { return h.backend }

// Server is the host's socket server (client counting, refusal).
func (h *Host) Server() *api.Server { return h.srv }

// snapshotEvery reads NEXUS_SNAPSHOT_EVERY, a tuning knob the crash tests
// use to snapshot often; 0 (unset or invalid) means the kernel's default.
func snapshotEvery() uint64 {
	return uint64(envInt("NEXUS_SNAPSHOT_EVERY"))
}

// scheduleMinEvery reads NEXUS_SCHEDULE_MIN_EVERY, a tuning knob the
// end-to-end tests use to add schedules that fire every few seconds: the
// shortest "every" schedule.add takes (a Go duration; the kernel's floor
// is core.MinEvery). Unset or invalid means core.DefaultMinScheduleEvery.
func scheduleMinEvery() time.Duration {
	d, err := time.ParseDuration(os.Getenv("NEXUS_SCHEDULE_MIN_EVERY"))
	if err != nil || d <= 0 {
		return 0
	}
	return d
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
