package api

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The socket is 0600 even under a umask that would leave it open to all,
// and nothing else is left in the state dir.
func TestListenSocketMode0600(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "nexus.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := ln.Addr().String(); got != path {
		t.Errorf("Addr() = %s, want %s", got, path)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("state dir holds %d entries, want only the socket: %v", len(entries), entries)
	}
}

// Closing the listener removes the socket, so a later start finds none.
func TestListenerCloseRemovesSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Close: %v, want the socket removed", err)
	}
}

// A socket left by a killed host is replaced, and the new host answers.
func TestListenReplacesStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.sock")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close() // the file stays, nobody listens: a killed host
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket should still exist: %v", err)
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- NewServer(&stubBackend{}, HostInfo{PID: 7}).Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	c, err := Dial(context.Background(), path, time.Second)
	if err != nil {
		t.Fatalf("Dial the new host: %v", err)
	}
	defer c.Close()
	if c.Info().PID != 7 {
		t.Fatalf("answered by pid %d, want the new host's 7", c.Info().PID)
	}
}

// A live host is never displaced; the error names its pid.
func TestListenRefusesLiveHost(t *testing.T) {
	h := serveBackend(t, &stubBackend{})
	_, err := Listen(h.path)
	if !errors.Is(err, ErrHostRunning) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("Listen on a live socket: %v, want ErrHostRunning naming pid 4242", err)
	}
	dialRaw(t, h.path).hello(1) // still serving
}

// Anything at the path that is not a socket is refused and left alone.
func TestListenRefusesNonSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.sock")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrNotSocket) {
		t.Fatalf("Listen over a regular file: %v, want ErrNotSocket", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "precious" {
		t.Fatalf("the file was touched: %q, %v", b, err)
	}
}

func TestListenPathTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("d", 120), "nexus.sock")
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "limit of unix sockets") {
		t.Fatalf("Listen on a %d-byte path: %v, want an error about the limit", len(path), err)
	}
}

// When the path leaves no room for the private detour, the socket is bound
// in place, still 0600, and a stale one is still replaced.
func TestListenLongPathBindsInPlace(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	pad := maxSocketPath - len(dir) - len("/nexus.sock") - len("/")
	if pad < 1 {
		t.Skip("temp dir too long for this test")
	}
	dir = filepath.Join(dir, strings.Repeat("d", pad))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nexus.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen on a %d-byte path: %v", len(path), err)
	}
	defer ln.Close()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v (%v), want 0600", fi.Mode(), err)
	}
}
