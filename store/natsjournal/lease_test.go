package natsjournal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// One writer per journal: a second host cannot take a held lease and is
// told who holds it; a released lease is free at once; a holder that
// stops renewing (a host stopped or cut off) loses the lease to another
// host once it expires, its own deadline has passed by then, and its
// renewal fails instead of taking the lease back.
func TestLeaseOneWriter(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	ctx := context.Background()

	a, err := AcquireLease(ctx, nc, testProject, "host-a", LeaseOptions{TTL: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Renewals keep it: wait for two of them (counted, not timed).
	first := revisionOf(a)
	for revisionOf(a) < first+2 {
		select {
		case <-a.Lost():
			t.Fatalf("a renewed lease was lost: %v", a.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	_, err = AcquireLease(ctx, nc, testProject, "host-b", LeaseOptions{TTL: 6 * time.Second})
	var held *LeaseHeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrLeaseHeld) || held.Holder != "host-a" {
		t.Fatalf("a second host took a held lease, or was not told who holds it: %v", err)
	}
	if !a.Valid() {
		t.Fatal("the holder's renewed lease is not valid")
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Valid() {
		t.Fatal("a released lease is still valid")
	}
	b, err := AcquireLease(ctx, nc, testProject, "host-b", LeaseOptions{TTL: 6 * time.Second})
	if err != nil {
		t.Fatalf("a released lease was not free: %v", err)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// A holder that stops renewing.
	const ttl = time.Second
	stale, err := AcquireLease(ctx, nc, "other project", "host-stale", LeaseOptions{TTL: ttl, NoRenew: true})
	if err != nil {
		t.Fatal(err)
	}
	var next *Lease
	for tries := 0; next == nil; tries++ {
		next, err = AcquireLease(ctx, nc, "other project", "host-next", LeaseOptions{TTL: ttl, NoRenew: true})
		if err != nil && !errors.Is(err, ErrLeaseHeld) {
			t.Fatal(err)
		}
		if tries > 600 {
			t.Fatal("the unrenewed lease never expired")
		}
		if next == nil {
			time.Sleep(ttl / 10)
		}
	}
	if stale.Valid() {
		t.Fatal("the stale holder still trusts its lease after another host took it")
	}
	if err := stale.Renew(ctx); err == nil || !strings.Contains(err.Error(), "expired or was taken over") {
		t.Fatalf("the stale holder renewed a lease another host holds: %v", err)
	}
	select {
	case <-stale.Lost():
	default:
		t.Fatal("Lost is open after the stale holder's renewal failed")
	}
	if err := next.Renew(ctx); err != nil {
		t.Fatalf("the new holder cannot renew after the stale one tried: %v", err)
	}
}

func revisionOf(l *Lease) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.revision
}

// A holder the new one knows is dead (the same state dir's earlier host)
// is replaced at once, without waiting for its lease to expire; its
// renewal then fails. Any other holder keeps the lease.
func TestLeaseReplacesAKnownDeadHolder(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	ctx := context.Background()
	opts := LeaseOptions{TTL: time.Hour, NoRenew: true}
	old, err := AcquireLease(ctx, nc, testProject, "box:/state (pid 1) #abc", opts)
	if err != nil {
		t.Fatal(err)
	}
	sameDir := func(holder string) bool { return strings.HasSuffix(holder, " #abc") }
	_, err = AcquireLease(ctx, nc, testProject, "box:/other (pid 2) #def", LeaseOptions{TTL: time.Hour,
		Replaces: func(holder string) bool { return strings.HasSuffix(holder, " #def") }})
	if !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("a host of another state dir took a live lease: %v", err)
	}
	next, err := AcquireLease(ctx, nc, testProject, "box:/state (pid 3) #abc", LeaseOptions{TTL: time.Hour, Replaces: sameDir})
	if err != nil {
		t.Fatalf("the restarted host of the same state dir waits for its dead predecessor's lease: %v", err)
	}
	defer next.Release(ctx)
	if err := old.Renew(ctx); err == nil || old.Valid() {
		t.Fatalf("the replaced holder renewed its lease (%v)", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if who, err := LeaseHolder(ctx, js, testProject); err != nil || who != "box:/state (pid 3) #abc" {
		t.Fatalf("the lease names %q after the replacement (%v)", who, err)
	}
}

// People read a holder without its state dir id: the error that refuses
// a second host and every list of owners name the machine, the state dir
// and the pid, not 32 hex digits.
func TestHolderNameDropsTheStateDirID(t *testing.T) {
	id := strings.Repeat("d1108a49", 4)
	for in, want := range map[string]string{
		"vm:/home/me/.local/state/nexus (pid 3610) #" + id: "vm:/home/me/.local/state/nexus (pid 3610)",
		"box:/state (pid 1)":                   "box:/state (pid 1)",
		"box:/a #b/state (pid 1)":              "box:/a #b/state (pid 1)",
		"box:/state (pid 1) #not-an-id-at-all": "box:/state (pid 1) #not-an-id-at-all",
		"":                                     "",
	} {
		if got := HolderName(in); got != want {
			t.Errorf("HolderName(%q) = %q, want %q", in, got, want)
		}
	}
	err := (&LeaseHeldError{Project: "acme", Holder: "vm:/s (pid 9) #" + id, TTL: time.Second}).Error()
	if strings.Contains(err, id) || !strings.Contains(err, "written by vm:/s (pid 9);") {
		t.Fatalf("the held lease's error names its holder as %q", err)
	}
}
