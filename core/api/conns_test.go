package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A host that decides to exit refuses, in the same step, the clients that
// connect afterwards: their Dial fails (so they retry and find the next
// host) instead of succeeding against a host about to drop them. While a
// client is connected the host is not idle.
func TestCloseIfIdleRefusesLaterClients(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	if n := h.srv.Conns(); n != 1 {
		t.Fatalf("Conns() = %d with one client, want 1", n)
	}
	if h.srv.CloseIfIdle() {
		t.Fatal("CloseIfIdle() with a client connected = true, want false")
	}
	c2, err := Dial(context.Background(), h.path, time.Second)
	if err != nil {
		t.Fatalf("a second client before the host is idle: %v", err)
	}
	c.Close()
	c2.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !h.srv.CloseIfIdle() {
		if time.Now().After(deadline) {
			t.Fatalf("the host never became idle: %d connections", h.srv.Conns())
		}
		time.Sleep(10 * time.Millisecond)
	}
	late, err := Dial(context.Background(), h.path, time.Second)
	if err == nil {
		late.Close()
		t.Fatal("a client dialled a host that had decided to exit")
	}
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Dial to an exiting host: %v, want ErrRefused so the caller retries", err)
	}
}

// A host that serves only its own command refuses every client from the
// start, with an error that says it is alive (ErrRefused), not gone
// (ErrNoHost): the caller waits for it to exit instead of failing.
func TestRefuseFromTheStart(t *testing.T) {
	h := startHost(t)
	h.srv.Refuse()
	_, err := Dial(context.Background(), h.path, time.Second)
	if !errors.Is(err, ErrRefused) || errors.Is(err, ErrNoHost) {
		t.Fatalf("Dial to a refusing host: %v, want ErrRefused", err)
	}
	if n := h.srv.Conns(); n != 0 {
		t.Fatalf("Conns() = %d after a refused client, want 0", n)
	}
	if !h.srv.CloseIfIdle() {
		t.Fatal("CloseIfIdle() on a refusing host with no client = false, want true")
	}
}
