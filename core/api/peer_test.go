package api

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The uid rule: a peer the kernel vouches for must run as this process's
// uid, root being no exception; one nothing is known about is let be.
func TestForeignUIDRule(t *testing.T) {
	cases := []struct {
		name    string
		cred    peerCred
		want    int
		foreign bool
	}{
		{"same uid", peerCred{uid: 1000, pid: 7, known: true}, 1000, false},
		{"another uid", peerCred{uid: 1001, pid: 7, known: true}, 1000, true},
		{"root talking to a user", peerCred{uid: 0, pid: 1, known: true}, 1000, true},
		{"a user talking to root", peerCred{uid: 1000, pid: 7, known: true}, 0, true},
		{"root talking to root", peerCred{uid: 0, pid: 1, known: true}, 0, false},
		{"nothing known (not Linux, or not a unix socket)", peerCred{}, 1000, false},
	}
	for _, tc := range cases {
		if got := foreign(tc.cred, tc.want); got != tc.foreign {
			t.Errorf("%s: foreign(%+v, %d) = %v, want %v", tc.name, tc.cred, tc.want, got, tc.foreign)
		}
	}
}

// A host serving only another uid than the test's (which is what a
// client of another user looks like to it) closes the connection
// without a word and logs one line naming the uid and pid.
func TestServerRefusesAnotherUID(t *testing.T) {
	var log logLines
	h := serveWith(t, nil, func(s *Server) {
		s.uid = os.Geteuid() + 1
		s.SetLog(log.add)
	})
	r := dialRaw(t, h.path)
	// The host may have closed before this: the write may fail.
	r.nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"hello"}` + "\n"))
	if in, err := r.tryRecv(10 * time.Second); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("a client of another uid got %+v / %v, want the connection closed without an answer", in, err)
	}
	lines := log.get()
	if len(lines) != 1 || !strings.Contains(lines[0], "from uid "+strconv.Itoa(os.Geteuid())) ||
		!strings.Contains(lines[0], "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("log %q, want one line naming uid %d and pid %d", lines, os.Geteuid(), os.Getpid())
	}
	if n := h.srv.Conns(); n != 0 {
		t.Fatalf("Conns() = %d after a refused client, want 0", n)
	}
	if _, err := Dial(context.Background(), h.path, 2*time.Second); err == nil {
		t.Fatal("Dial to a host of another uid succeeded")
	}
}

// A client refuses a host of another uid before it sends anything, with
// an error that names the state dir and the host's uid.
func TestClientRefusesHostOfAnotherUID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer nc.Close()
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(nc) // until the client closes
		got <- b
	}()
	_, err = dialAs(context.Background(), path, 2*time.Second, os.Geteuid()+1)
	var ue *UIDError
	if !errors.As(err, &ue) {
		t.Fatalf("dial a host of another uid: %v, want a *UIDError", err)
	}
	if ue.UID != os.Geteuid() || ue.PID != os.Getpid() || ue.Want != os.Geteuid()+1 {
		t.Fatalf("UIDError %+v, want the host's uid %d and pid %d", ue, os.Geteuid(), os.Getpid())
	}
	want := "the host on " + filepath.Dir(path) + " runs as uid " + strconv.Itoa(os.Geteuid()) + ", not you"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want it to say %q", err, want)
	}
	if b := <-got; len(b) != 0 {
		t.Fatalf("the client sent %q to a host of another uid, want nothing", b)
	}
}
