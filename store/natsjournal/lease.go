package natsjournal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Leases: one writer per journal.
//
// A journal has one writing host at a time. The host holds the journal's
// lease: a key in a KV bucket of its own (NEXUS_<p>_LEASE, key "writer",
// the holder's name as value) whose entries expire TTL after they were
// written. The holder writes the key again every TTL/3 with a
// compare-and-swap on its revision; another host can create the key only
// once it has expired. The holder trusts its lease until its own clock
// says TTL minus a margin has passed since it sent the last write the
// server accepted (the server counts the TTL from when it stored the
// write, which is later), so it stops before anyone else can start:
// Lost is closed then, and the holder must stop starting effects. The
// journal's compare-and-swap fences whatever a stale holder still tries
// to append.
//
// A host restarted on the same state dir replaces its dead predecessor's
// lease at once (LeaseOptions.Replaces: internal/host names a state dir
// by a random id in its holder string, and holding the state dir's lock
// proves the earlier host gone), so a crash costs no lease TTL.

// DefaultLeaseTTL is a lease's time to live when none is given.
const DefaultLeaseTTL = 15 * time.Second

// leaseKey is the one key of a lease bucket.
const leaseKey = "writer"

// ErrLeaseHeld is matched by the error of AcquireLease when another
// holder's lease has not expired.
var ErrLeaseHeld = errors.New("natsjournal: the journal's lease is held by another host")

// LeaseHeldError names the holder of a lease that is not free.
type LeaseHeldError struct {
	Project, Holder string
	TTL             time.Duration
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("natsjournal: project %s is written by %s; its lease expires %v after that host last renewed it: stop it, or take over once it is down",
		e.Project, HolderName(e.Holder), e.TTL)
}

// Is makes errors.Is(err, ErrLeaseHeld) hold.
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// Lease is a held lease. Renewal runs in the background from
// AcquireLease until Release, or until a renewal finds the lease gone.
type Lease struct {
	kv      jetstream.KeyValue
	project string
	holder  string
	ttl     time.Duration
	margin  time.Duration

	mu       sync.Mutex
	revision uint64
	until    time.Time // the holder's own deadline
	lost     chan struct{}
	lostErr  error
	stop     chan struct{}
	done     chan struct{}
	now      func() time.Time
}

// LeaseOptions configure AcquireLease.
type LeaseOptions struct {
	// TTL is how long an unrenewed lease lasts; zero means
	// DefaultLeaseTTL. Every host of a project must use the same.
	TTL time.Duration
	// NoRenew leaves renewal to the caller (Renew); for tests that stand
	// for a host that stopped.
	NoRenew bool
	// Replaces, when set, names holders this one takes the lease from at
	// once instead of waiting for it to expire: holders the caller knows
	// are dead (a host restarted on the same state dir, whose lock it now
	// holds). The lease is taken by a compare-and-swap on the entry read,
	// so a holder that renewed in between keeps it.
	Replaces func(holder string) bool
}

// AcquireLease takes project's lease for holder, or fails with a
// *LeaseHeldError naming the current holder.
func AcquireLease(ctx context.Context, nc *nats.Conn, project, holder string, opts LeaseOptions) (*Lease, error) {
	nm, err := namesFor(project)
	if err != nil {
		return nil, err
	}
	ttl := opts.TTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: JetStream client: %w", err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: nm.stream + "_LEASE", Description: "nexus writer lease of project " + project,
		History: 1, TTL: ttl, Storage: jetstream.FileStorage,
		// A marker when the lease expires, so that watchers of the
		// project's owner (Remote.WatchOwner) hear of it.
		LimitMarkerTTL: ttl,
	})
	if err != nil {
		return nil, fmt.Errorf("natsjournal: lease bucket of %s: %w", project, err)
	}
	l := &Lease{kv: kv, project: project, holder: holder, ttl: ttl, margin: ttl / 5,
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), now: time.Now}
	sent := l.now()
	rev, err := kv.Create(ctx, leaseKey, []byte(holder))
	if errors.Is(err, jetstream.ErrKeyExists) {
		who := "another host"
		e, gerr := kv.Get(ctx, leaseKey)
		if gerr == nil {
			who = string(e.Value())
		}
		if gerr == nil && opts.Replaces != nil && opts.Replaces(who) {
			sent = l.now()
			rev, err = kv.Update(ctx, leaseKey, []byte(holder), e.Revision())
			if isWrongRevision(err) || errors.Is(err, jetstream.ErrKeyNotFound) {
				err = jetstream.ErrKeyExists // renewed or gone meanwhile: try again
			}
		} else {
			return nil, &LeaseHeldError{Project: project, Holder: who, TTL: ttl}
		}
	}
	if errors.Is(err, jetstream.ErrKeyExists) {
		return nil, &LeaseHeldError{Project: project, Holder: "another host", TTL: ttl}
	}
	if err != nil {
		return nil, fmt.Errorf("natsjournal: take the lease of %s: %w", project, err)
	}
	l.revision, l.until = rev, sent.Add(ttl-l.margin)
	if opts.NoRenew {
		close(l.done)
	} else {
		go l.renewLoop()
	}
	return l, nil
}

// Holder is the name the lease was taken for.
func (l *Lease) Holder() string { return l.holder }

// Lost is closed when the lease can no longer be trusted: a renewal
// found it taken or gone, or the holder's deadline passed without one.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err says why the lease was lost, or nil.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

// Valid reports whether the holder may still act on the lease now.
func (l *Lease) Valid() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr == nil && l.now().Before(l.until)
}

// Renew writes the lease again, moving its deadline. It fails, and
// closes Lost, when another host took the lease or it expired.
func (l *Lease) Renew(ctx context.Context) error {
	l.mu.Lock()
	rev := l.revision
	l.mu.Unlock()
	sent := l.now()
	next, err := l.kv.Update(ctx, leaseKey, []byte(l.holder), rev)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return l.lostErr
	}
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) || isWrongRevision(err) {
			l.loseLocked(fmt.Errorf("natsjournal: the lease of %s expired or was taken over: %w", l.project, err))
			return l.lostErr
		}
		if !l.now().Before(l.until) {
			l.loseLocked(fmt.Errorf("natsjournal: the lease of %s could not be renewed before its deadline: %w", l.project, err))
			return l.lostErr
		}
		return fmt.Errorf("natsjournal: renew the lease of %s: %w", l.project, err)
	}
	l.revision, l.until = next, sent.Add(l.ttl-l.margin)
	return nil
}

// Release gives the lease up at once (a clean stop), so another host
// need not wait for it to expire.
func (l *Lease) Release(ctx context.Context) error {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	l.mu.Lock()
	rev, gone := l.revision, l.lostErr != nil
	l.loseLocked(errors.New("natsjournal: the lease was released"))
	l.mu.Unlock()
	if gone {
		return nil
	}
	return l.kv.Delete(ctx, leaseKey, jetstream.LastRevision(rev))
}

func (l *Lease) loseLocked(err error) {
	if l.lostErr == nil {
		l.lostErr = err
		close(l.lost)
	}
}

// renewLoop renews every TTL/3 and closes Lost at the holder's deadline
// if no renewal moved it.
func (l *Lease) renewLoop() {
	defer close(l.done)
	every := l.ttl / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		l.mu.Lock()
		wait := l.until.Sub(l.now())
		l.mu.Unlock()
		deadline := time.NewTimer(max(wait, 0))
		select {
		case <-l.stop:
			deadline.Stop()
			return
		case <-deadline.C:
			l.mu.Lock()
			if !l.now().Before(l.until) {
				l.loseLocked(fmt.Errorf("natsjournal: the lease of %s was not renewed before its deadline", l.project))
				l.mu.Unlock()
				return
			}
			l.mu.Unlock()
		case <-tick.C:
			deadline.Stop()
			ctx, cancel := context.WithTimeout(context.Background(), every)
			err := l.Renew(ctx)
			cancel()
			if errors.Is(err, l.Err()) && l.Err() != nil {
				return
			}
		}
	}
}

// isWrongRevision reports the server refusing an update whose revision
// is not the key's last.
func isWrongRevision(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
