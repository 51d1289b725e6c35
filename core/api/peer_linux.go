//go:build linux

package api

import (
	"fmt"
	"net"
	"syscall"
)

// peerCredOf asks the kernel (SO_PEERCRED) who is at the other end of
// nc. A connection that is not a unix socket has no such credentials
// (known is false).
func peerCredOf(nc net.Conn) (peerCred, error) {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return peerCred{}, nil
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return peerCred{}, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return peerCred{}, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	if cerr != nil {
		return peerCred{}, fmt.Errorf("SO_PEERCRED: %w", cerr)
	}
	return peerCred{uid: int(cred.Uid), pid: int(cred.Pid), known: true}, nil
}
