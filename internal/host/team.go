package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/store/checkpoint"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// team is a host's journal on a hub ([team] in the config): the
// connection, the project's journal and its writer lease.
//
// The host still opens the bbolt journal of its state dir, which stays
// empty: its lock keeps one host per state dir and names it in host.pid,
// as for a solo host. A state dir whose own journal has history is
// refused, so team mode never hides a solo host's threads. Checkpoints,
// worktrees, the socket and the agents' processes stay in the state dir
// and on this machine.
type team struct {
	nc       *nats.Conn
	j        *natsjournal.Journal
	lease    *natsjournal.Lease
	project  string
	replicas int
	// wg counts the goroutines serving the hub (serveTeam); close waits
	// for them before it closes the connection.
	wg sync.WaitGroup
}

// openTeam connects to the hub, takes the project's lease and opens the
// journal. holder names this host in the lease. A lease another host
// holds fails with an error matching natsjournal.ErrLeaseHeld (`nexus
// serve --take-over` waits and tries again).
//
// The caller holds the state dir's lock, so an earlier host of the same
// state dir (holder ends in the same " #id") is dead: its lease is taken
// at once rather than waited out, and a host restarted after a crash
// serves again in a moment.
func openTeam(ctx context.Context, t *config.Team, holder string) (*team, error) {
	if t.Credentials != "" {
		// A sender's or a viewer's credentials reach the hub but may not
		// take a lease or write a journal: say so before the server
		// refuses a write without an answer.
		c, err := natsjournal.ReadCredentials(t.Credentials)
		if err != nil {
			return nil, err
		}
		if c.User == natsjournal.SenderUser || c.User == natsjournal.ViewerUser {
			return nil, fmt.Errorf("%s holds a %s's credentials, which cannot host project %s: give this box the hub's host.creds, or reach the project from here with `nexus --project %s ...`",
				t.Credentials, c.User, t.Project, t.Project)
		}
	}
	nc, err := natsjournal.Connect(t.URL, natsjournal.ConnectOptions{Credentials: t.Credentials, CA: t.CA, Name: holder})
	if err != nil {
		return nil, err
	}
	self := holder[strings.LastIndex(holder, " #"):]
	lease, err := natsjournal.AcquireLease(ctx, nc, t.Project, holder, natsjournal.LeaseOptions{TTL: t.Lease,
		Replaces: func(h string) bool { return strings.HasSuffix(h, self) }})
	if err != nil {
		nc.Close()
		if errors.Is(err, natsjournal.ErrLeaseHeld) {
			err = fmt.Errorf("%w; `nexus --project %s ...` reaches its threads through the hub, `nexus serve --take-over` waits for it and takes them", err, t.Project)
		}
		return nil, err
	}
	j, err := natsjournal.Open(ctx, nc, t.Project, natsjournal.Options{Replicas: t.Replicas, Writer: holder})
	if err != nil {
		_ = lease.Release(context.Background())
		nc.Close()
		return nil, err
	}
	return &team{nc: nc, j: j, lease: lease, project: t.Project, replicas: t.Replicas}, nil
}

// journal is what the Runner appends through: the hub's journal behind
// the lease, so that a host past its lease's deadline (frozen, cut off)
// appends nothing even before it notices and stops. The new writer's
// first commit (Recover.Writer) fences whatever slips past this check.
func (t *team) journal() core.Journal { return leasedJournal{t.j, t.lease} }

type leasedJournal struct {
	*natsjournal.Journal
	lease *natsjournal.Lease
}

func (l leasedJournal) Append(ctx context.Context, cs []core.Commit) error {
	if !l.lease.Valid() {
		return fmt.Errorf("this host's lease of the project has lapsed (%v); it writes nothing more and stops", l.lease.Err())
	}
	return l.Journal.Append(ctx, cs)
}

// close releases the lease (another host may take the project at once)
// after the runner stopped.
func (t *team) close() {
	t.wg.Wait()
	_ = t.j.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = t.lease.Release(ctx)
	cancel()
	t.nc.Close()
}

// leaseHolder names this host in its lease: machine, state dir, pid and
// the state dir's id (stateDirID), "box:/home/me/.nexus (pid 42) #9f2c...".
func leaseHolder(dir string) (string, error) {
	name, err := os.Hostname()
	if err != nil {
		name = "unknown"
	}
	id, err := stateDirID(dir)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s:%s (pid %d) #%s", name, dir, os.Getpid(), id), nil
}

// idFile holds a state dir's random id: it tells this state dir's
// earlier hosts from any other host of the project, on any machine.
const idFile = "host-id"

// stateDirID returns the state dir's id, making it on first use (or
// anew when the file does not hold one).
func stateDirID(dir string) (string, error) {
	path := filepath.Join(dir, idFile)
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); len(id) == 32 && strings.Trim(id, "0123456789abcdef") == "" {
			return id, nil
		}
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw[:])
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("the state dir's id (%s): %w", path, err)
	}
	return id, nil
}

// watchLease stops the host when its lease is lost: past its own
// deadline without a renewal, or taken by another host after it
// expired. The host stops before its lease can expire on the hub, and
// the journal's compare-and-swap refuses whatever it still appends.
func (h *Host) watchLease(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-h.team.lease.Lost():
		h.logf("stopping: %v; another host may take the project's threads (nexus serve --take-over)", h.team.lease.Err())
		h.adm.stopOnce.Do(func() { close(h.adm.stop) })
	}
}

// LeaseErr is why the host lost its team lease, or nil (a solo host, or
// a lease still held).
func (h *Host) LeaseErr() error {
	if h.team == nil {
		return nil
	}
	select {
	case <-h.team.lease.Lost():
		return h.team.lease.Err()
	default:
		return nil
	}
}

// teamRefusal is the error of Verify and Export on a host whose journal
// is on a hub.
func teamRefusal(what string) error {
	return &core.InputError{Msg: what + " reads the bbolt journal of a state dir; this host's journal is on the hub ([team]), which checks its chain on every read"}
}

// serveTeam serves the project to the rest of the hub until ctx ends:
// the commands queued for it from any machine (natsjournal.ServeCommands,
// on the same backend as the socket's clients), the runner's live text
// deltas for remote viewers (natsjournal.PublishLive) and the threads'
// live terminals (natsjournal.ServeTerminals).
func (h *Host) serveTeam(ctx context.Context) {
	t := h.team
	t.wg.Add(4)
	go func() {
		defer t.wg.Done()
		if err := natsjournal.ServeDiffs(ctx, t.nc, t.project, h.diffFor); err != nil {
			h.logf("diffs over the hub: %v", err)
		}
	}()
	go func() {
		defer t.wg.Done()
		if err := natsjournal.ServeTerminals(ctx, t.nc, t.project, h.backend); err != nil {
			h.logf("terminals over the hub: %v", err)
		}
	}()
	go func() {
		defer t.wg.Done()
		for ctx.Err() == nil {
			err := natsjournal.ServeCommands(ctx, t.nc, t.project, t.replicas, h.backend, h.logf)
			if ctx.Err() != nil {
				return
			}
			h.logf("the hub's command queue of %s: %v; serving it again in a second", t.project, err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	go func() {
		defer t.wg.Done()
		h.forwardLive(ctx)
	}()
}

// diffFor makes a diff a remote machine asked for, as `nexus diff` does
// here: the checkpoints are on this host's disk.
func (h *Host) diffFor(ctx context.Context, q natsjournal.DiffRequest) (string, error) {
	st, err := h.runner.State(ctx)
	if err != nil {
		return "", err
	}
	out, err := Diff(ctx, st, h.backend.stateDir, DiffQuery{Thread: q.Thread, Run: q.Run, From: q.From, To: q.To, Stat: q.Stat})
	if errors.Is(err, checkpoint.ErrNotFound) {
		// Not damage: checkpoints stay on the disk of the host that
		// made them, and this one may have taken the project over.
		return "", fmt.Errorf("the checkpoints of that diff are not on the disk of this project's host (%s): it took the project over, and the checkpoints its predecessor made stay on that machine", natsjournal.HolderName(h.team.lease.Holder()))
	}
	return out, err
}

// forwardLive publishes the runner's live events (text deltas, seq 0)
// to the project's remote viewers until ctx ends.
func (h *Host) forwardLive(ctx context.Context) {
	from := h.team.j.Last() + 1
	for ctx.Err() == nil {
		sub, err := h.runner.Subscribe(ctx, from)
		if err != nil {
			return // the runner stopped
		}
		for ev := range sub.Events {
			if ev.Seq > 0 {
				from = ev.Seq + 1
				if len(sub.Events) == 0 {
					_ = natsjournal.PublishTail(h.team.nc, h.team.project, ev.Seq)
				}
				continue
			}
			_ = natsjournal.PublishLive(h.team.nc, h.team.project, ev, from-1)
		}
		if !errors.Is(sub.Err(), core.ErrLagged) {
			return
		}
	}
}
