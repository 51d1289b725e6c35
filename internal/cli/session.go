package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/store"
)

// session is how one invocation reaches the kernel: as the host (it owns
// the journal and serves the others) or as a client of the host.
type session struct {
	core.Backend
	dir  string
	host *host.Host // nil for a client
	// stop ends the session: a client disconnects; a command-line host
	// first serves the clients still connected (drain), then closes.
	stop func()
}

// connect makes this invocation a client of the running host. When none
// runs it starts a background host and connects to it (background.go),
// or, in inline mode, becomes the host itself. Two invocations racing
// for an empty state dir end with one host and two clients (inline: one
// host and one client).
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
	if a.project != "" {
		return a.hubSession(ctx)
	}
	dir, err := a.resolveStateDir()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	mode := "inline"
	if !readOnly {
		if mode, err = a.hostMode(); err != nil {
			return nil, err
		}
	}
	sock := filepath.Join(dir, host.SocketName)
	start := time.Now()
	deadline := start.Add(lockedWait)
	for {
		c, err := api.Dial(ctx, sock, time.Second)
		if err == nil {
			return &session{Backend: c, dir: dir, stop: func() { c.Close() }}, nil
		}
		if rerr := hostRefusal(err); rerr != nil {
			return nil, rerr
		}
		if errors.Is(err, api.ErrRefused) {
			if d := time.Now().Add(refusedWait); d.After(deadline) && d.Before(start.Add(maxRefusedWait)) {
				deadline = d
			}
		}
		if mode == "background" {
			err := a.startBackground(ctx, dir)
			switch {
			case err == nil:
				continue // it serves: dial it
			case !errors.Is(err, errHostRace):
				return nil, err
			case time.Now().After(deadline):
				return nil, &exitError{code: ExitLocked, msg: fmt.Sprintf(
					"state dir %s is locked by another process, which does not answer on %s; stop it or use another --state-dir", dir, sock)}
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		h, err := host.Start(dir, 200*time.Millisecond, cfg, readOnly)
		if err == nil {
			s := &session{Backend: h.Backend(), dir: dir, host: h}
			s.stop = func() { s.drain(); h.Close() }
			return s, nil
		}
		var le *store.LockedError
		if !errors.As(err, &le) {
			return nil, journalErr(dir, err)
		}
		if time.Now().After(deadline) {
			return nil, &exitError{code: ExitLocked, msg: fmt.Sprintf(
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

// hostRefusal is the error to stop on when a host answered on the socket
// and cannot be used, or nil: starting a host of our own would only find
// the state dir locked by it.
func hostRefusal(err error) error {
	var ue *api.UIDError
	if errors.As(err, &ue) {
		return failErr("the host on %s runs as uid %d, not you; nexus talks only to a host of its own user (you are uid %d): use a state dir of your own (--state-dir or NEXUS_STATE_DIR)",
			filepath.Dir(ue.Path), ue.UID, ue.Want)
	}
	if errors.Is(err, api.ErrHostFull) {
		return err
	}
	return nil
}

// linger keeps a command-line host serving while clients are connected or
// runs are running, so a second terminal's `nexus send --mode steer` or a
// queued run is not cut off when the first command finishes. It wakes
// only when a client comes or goes or an event is journaled (Host.Watch).
func (s *session) linger(ctx context.Context) {
	if s.host == nil {
		return
	}
	_ = s.host.Watch(ctx, func(st *core.State) (bool, time.Duration) {
		// Deciding that no client is connected and refusing new ones
		// is one step, so a client that connects as this host decides
		// to exit is refused (and retries) rather than dropped mid-call.
		return !hostBusy(st) && s.host.Server().CloseIfIdle(), 0
	})
}

// hostBusy reports a run running or an operation (a rollback) under way.
func hostBusy(st *core.State) bool {
	for _, r := range st.Runs {
		if r.Status == core.RunRunning {
			return true
		}
	}
	for _, op := range st.Operations {
		if op.Status == core.OpRunning {
			return true
		}
	}
	for _, m := range st.Missions {
		if m.Working() {
			return true
		}
	}
	return false
}

// drain keeps a command-line host serving until no client is connected,
// refusing new ones from that instant (Server.CloseIfIdle), so no
// invocation that found this host is cut off by its exit. It wakes only
// when a client comes or goes (or an event is journaled); a kernel that
// stopped ends it at once.
func (s *session) drain() {
	_ = s.host.Watch(context.Background(), func(*core.State) (bool, time.Duration) {
		return s.host.Server().CloseIfIdle(), 0
	})
}

// stateOf is the host's state narrowed to what a command shows: brief
// (no transcripts) or the transcripts of some threads only, so one
// thread's long outputs never make another command's state too large to
// read. An in-process host's state is whole.
func (s *session) stateOf(ctx context.Context, q api.StateQuery) (*core.State, error) {
	if c, ok := s.Backend.(*api.Client); ok {
		return c.StateOf(ctx, q)
	}
	return s.State(ctx)
}

// subscribeOf is Subscribe with its starting state narrowed by q (see
// stateOf).
func (s *session) subscribeOf(ctx context.Context, from uint64, q api.StateQuery) (*core.Subscription, error) {
	if c, ok := s.Backend.(*api.Client); ok {
		return c.SubscribeOf(ctx, from, q)
	}
	return s.Subscribe(ctx, from)
}
