//go:build linux

package api

import (
	"os"
	"testing"
)

// Both ends of a real unix socket learn each other's uid and pid from
// the kernel, and neither is foreign to the other.
func TestPeerCredOfOwnUID(t *testing.T) {
	for i, nc := range socketPair(t) {
		cred, err := peerCredOf(nc)
		if err != nil {
			t.Fatalf("end %d: %v", i, err)
		}
		if !cred.known || cred.uid != os.Geteuid() || cred.pid != os.Getpid() {
			t.Fatalf("end %d: %+v, want uid %d pid %d", i, cred, os.Geteuid(), os.Getpid())
		}
		if foreign(cred, os.Geteuid()) {
			t.Fatalf("end %d: this process's own socket is foreign to it", i)
		}
	}
	// The same through Listen and Dial, as host and client see it.
	h := startHost(t)
	nc := dialRaw(t, h.path).nc
	cred, err := peerCredOf(nc)
	if err != nil || !cred.known || cred.uid != os.Geteuid() {
		t.Fatalf("client side of the host socket: %+v, %v; want uid %d", cred, err, os.Geteuid())
	}
	if err := checkHost(nc, h.path, os.Geteuid()); err != nil {
		t.Fatalf("checkHost on this process's own host: %v", err)
	}
}
