package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// admin is what the host tells about itself (host.status) and how it is
// asked to stop (host.stop).
type admin struct {
	started time.Time

	mu         sync.Mutex
	background bool
	linger     time.Duration
	stopOnce   sync.Once
	stop       chan struct{}
}

var _ api.Admin = (*Host)(nil)

// SetBackground marks the host as a background one that stays linger
// after nothing needs it (-1: for ever); host.status reports it.
func (h *Host) SetBackground(linger time.Duration) {
	h.adm.mu.Lock()
	defer h.adm.mu.Unlock()
	h.adm.background, h.adm.linger = true, linger
}

// Live counts the work that would stop with the host: runs not ended,
// pending requests, live terminals, missions at work and schedules.
func (h *Host) Live(ctx context.Context) (api.LiveWork, error) {
	st, err := h.runner.State(ctx)
	if err != nil {
		return api.LiveWork{}, err
	}
	return h.LiveIn(st), nil
}

// LiveIn is Live counted in st (a state Watch keeps).
func (h *Host) LiveIn(st *core.State) api.LiveWork {
	var l api.LiveWork
	for _, r := range st.Runs {
		switch r.Status {
		case core.RunRunning, core.RunWaiting, core.RunQueued:
			l.Runs++
		}
	}
	for _, q := range st.Requests {
		if q.Status == core.RequestPending {
			l.Requests++
		}
	}
	for _, m := range st.Missions {
		if m.Working() {
			l.Missions++
		}
	}
	for _, s := range st.Schedules {
		if !s.Removed {
			l.Schedules++
		}
	}
	for id, th := range st.Threads {
		if th.Status == core.ThreadArchived {
			continue
		}
		if _, err := h.reg.Terminal(id); err == nil {
			l.Terminals++
		}
	}
	return l
}

// Status implements api.Admin.
func (h *Host) Status(ctx context.Context) (api.HostStatus, error) {
	live, err := h.Live(ctx)
	if err != nil {
		return api.HostStatus{}, err
	}
	h.adm.mu.Lock()
	defer h.adm.mu.Unlock()
	st := api.HostStatus{StartedAt: h.adm.started.UnixNano(), Background: h.adm.background, Live: live}
	if h.adm.background {
		st.Linger = "never"
		if h.adm.linger >= 0 {
			st.Linger = h.adm.linger.String()
		}
	}
	return st, nil
}

// Stop implements api.Admin: it asks the host's owner to close it
// (StopRequested). Without force a host with ongoing work refuses;
// schedules alone do not hold it (the next host fires them).
func (h *Host) Stop(ctx context.Context, force bool) error {
	if !force {
		live, err := h.Live(ctx)
		if err != nil {
			return err
		}
		if live.Ongoing() {
			return &core.InputError{Msg: "the host has live work (" + live.String() +
				"); stopping it ends that work: use --force to stop anyway"}
		}
	}
	h.adm.stopOnce.Do(func() { close(h.adm.stop) })
	return nil
}

// StopRequested is closed once host.stop was accepted.
func (h *Host) StopRequested() <-chan struct{} { return h.adm.stop }

// Verify implements api.Admin: the store's report on the journal the
// host holds open.
func (h *Host) Verify(ctx context.Context) (any, error) {
	if h.team != nil {
		return nil, teamRefusal("verify")
	}
	return h.st.Verify(ctx)
}

// Export implements api.Admin: the journal into a new file at path.
func (h *Host) Export(ctx context.Context, path string) (uint64, error) {
	if h.team != nil {
		return 0, teamRefusal("export")
	}
	if !filepath.IsAbs(path) {
		return 0, &core.InputError{Msg: fmt.Sprintf("export path %q is not absolute", path)}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, &core.InputError{Msg: fmt.Sprintf("cannot create %s: %v (export never overwrites a file)", path, err)}
	}
	last := h.st.Last()
	if err := h.st.Export(ctx, f); err != nil {
		f.Close()
		os.Remove(path)
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, err
	}
	return last, f.Close()
}
