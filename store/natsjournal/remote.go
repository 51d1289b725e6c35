package natsjournal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

// ErrNoOwner is matched by the error of Remote.Submit when no host holds
// the project's lease: the command is queued on the hub and runs when a
// host takes the project.
var ErrNoOwner = errors.New("natsjournal: the project has no owner")

// NoOwnerError says which command waits for which project's owner.
type NoOwnerError struct{ Project, Command string }

func (e *NoOwnerError) Error() string {
	return fmt.Sprintf("project %s has no owner (no host holds its lease): command %s is queued on the hub and runs when a host takes the project (nexus serve, or nexus serve --take-over)", e.Project, e.Command)
}

// Is makes errors.Is(err, ErrNoOwner) and errors.Is(err, core.ErrQueued)
// hold.
func (e *NoOwnerError) Is(target error) bool { return target == ErrNoOwner || target == core.ErrQueued }

// ownerCheck is how often a Submit waiting for its outcome looks whether
// the project still has an owner; after noAnswer without an answer it
// stops waiting (the command stays queued).
const (
	ownerCheck = 2 * time.Second
	noAnswer   = 2 * cmdAckWait
)

// NoAnswerError: the project's owner took no decision on a command in
// time; the command stays queued (it matches core.ErrQueued).
type NoAnswerError struct {
	Project, Command, Owner string
	Waited                  time.Duration
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("project %s's host %s has not answered command %s in %v; it stays queued on the hub and runs when that host (or the next) takes it", e.Project, e.Owner, e.Command, e.Waited)
}

// Is makes errors.Is(err, core.ErrQueued) hold.
func (e *NoAnswerError) Is(target error) bool { return target == core.ErrQueued }

// RemoteOptions configure OpenRemote.
type RemoteOptions struct {
	// ReadOnly: a viewer's credentials; Submit is refused without asking
	// the hub.
	ReadOnly bool
	// Timeout bounds each request to the server (Options.Timeout).
	Timeout time.Duration
	// NoAnswer is how long Submit waits for a live owner's answer before
	// it returns a *NoAnswerError (the command stays queued); zero means
	// one minute.
	NoAnswer time.Duration
}

// Remote is a project seen from any machine on the hub: a core.Backend
// whose State and Subscribe read the project's journal (and its owner's
// live text deltas) and whose Submit queues commands for the project's
// owner (doc.go, "Commands from anywhere" and "One view").
type Remote struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	project string
	opts    RemoteOptions
	j       *Journal
	// wake is the subject whose messages wake a subscription: the
	// journal's commits (tests set another to leave only tail notices).
	wake string

	mu      sync.Mutex
	subject string // the command queue's subject, once looked up
}

// OpenRemote opens project on the hub nc is connected to. The project
// must have a journal (a host of it ran once). The caller owns nc.
func OpenRemote(ctx context.Context, nc *nats.Conn, project string, opts RemoteOptions) (*Remote, error) {
	j, err := Open(ctx, nc, project, Options{ReadOnly: true, Timeout: opts.Timeout})
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("natsjournal: JetStream client: %w", err)
	}
	return &Remote{nc: nc, js: js, project: project, opts: opts, j: j, wake: j.names.subject + ">"}, nil
}

// Close closes the project's journal; nc stays open.
func (r *Remote) Close() error { return r.j.Close() }

// Project is the project's key.
func (r *Remote) Project() string { return r.project }

// Owner names the host holding the project's lease ("" when none does).
func (r *Remote) Owner(ctx context.Context) (string, error) {
	return LeaseHolder(ctx, r.js, r.project)
}

// State replays the project: its newest snapshot and the journal after it.
func (r *Remote) State(ctx context.Context) (*core.State, error) {
	return core.Load(ctx, r.j)
}

// Submit queues cmd for the project's owner and waits for its outcome:
// the receipt once the owner's events are durable, a *core.InputError
// when the owner refused it, or a *NoOwnerError when no host holds the
// project (the command stays queued and runs when one does).
func (r *Remote) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	if r.opts.ReadOnly {
		return nil, &core.InputError{Msg: fmt.Sprintf("these are a viewer's credentials: they read project %s and send nothing; use a host's credentials to send", r.project)}
	}
	if cmd.ID == "" {
		cmd.ID = core.NewID("c")
	}
	body, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	if len(body) > maxCmdBytes {
		return nil, &core.InputError{Msg: fmt.Sprintf("the command is %d bytes; the hub takes at most %d", len(body), maxCmdBytes)}
	}
	subject, err := r.cmdSubject(ctx)
	if err != nil {
		return nil, err
	}
	inbox := nats.NewInbox()
	sub, err := r.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: listen for the command's outcome: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	m := nats.NewMsg(subject)
	m.Data = body
	m.Header.Set(jetstream.MsgIDHeader, cmd.ID)
	m.Header.Set(hdrReply, inbox)
	ack, err := r.js.PublishMsg(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: queue the command on the hub: %w", err)
	}
	return r.await(ctx, sub, cmd.ID, ack.Duplicate)
}

// await waits for a queued command's outcome. dup: the hub had the
// command id already (a retry), so no outcome comes here; its receipt is
// looked for in the journal instead.
func (r *Remote) await(ctx context.Context, sub *nats.Subscription, id string, dup bool) (*core.Receipt, error) {
	if dup {
		if rc, err := r.receipt(ctx, id); rc != nil || err != nil {
			return rc, err
		}
	}
	start := time.Now()
	if owner, err := r.Owner(ctx); err != nil || owner == "" {
		if err != nil {
			return nil, err
		}
		return nil, &NoOwnerError{Project: r.project, Command: id}
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, ownerCheck)
		m, err := sub.NextMsgWithContext(wctx)
		cancel()
		if err == nil {
			var out outcome
			if err := json.Unmarshal(m.Data, &out); err != nil {
				return nil, fmt.Errorf("natsjournal: the owner's answer does not decode: %w", err)
			}
			switch {
			case out.Input:
				return nil, &core.InputError{Msg: out.Error}
			case out.Error != "":
				return nil, errors.New(out.Error)
			case out.Receipt == nil:
				return nil, errors.New("natsjournal: the owner answered with no receipt")
			}
			return out.Receipt, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("natsjournal: wait for the command's outcome: %w", err)
		}
		if dup {
			if rc, err := r.receipt(ctx, id); rc != nil || err != nil {
				return rc, err
			}
		}
		owner, err := r.Owner(ctx)
		if err != nil {
			return nil, err
		}
		if owner == "" {
			return nil, &NoOwnerError{Project: r.project, Command: id}
		}
		if wait := cmp.Or(r.opts.NoAnswer, noAnswer); time.Since(start) > wait {
			return nil, &NoAnswerError{Project: r.project, Command: id, Owner: owner, Waited: wait}
		}
	}
}

// receipt is the journal's receipt of command id, or nil.
func (r *Remote) receipt(ctx context.Context, id string) (*core.Receipt, error) {
	st, err := r.State(ctx)
	if err != nil {
		return nil, err
	}
	return st.Receipts[id], nil
}

// cmdSubject looks up the project's command queue once (its owner makes
// it; a host's credentials make it here too, so commands can wait for
// an owner that has not started yet; a sender's only look, so a queue
// that exists is never touched).
func (r *Remote) cmdSubject(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subject != "" {
		return r.subject, nil
	}
	cctx, cancel := context.WithTimeout(ctx, r.j.opts.Timeout)
	defer cancel()
	_, subject, err := commandStream(cctx, r.js, r.project, 0, false)
	if err != nil {
		if _, subject, err = commandStream(cctx, r.js, r.project, r.j.stream.CachedInfo().Config.Replicas, true); err != nil {
			return "", err
		}
	}
	r.subject = subject
	return subject, nil
}

var _ core.Backend = (*Remote)(nil)
