//go:build unix

package api

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// socketPair is a connected pair of unix sockets, closed when the test
// ends.
func socketPair(t *testing.T) [2]net.Conn {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ends [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		ends[i], err = net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ends[i].Close() })
	}
	return ends
}
