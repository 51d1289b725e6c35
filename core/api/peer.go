package api

import (
	"fmt"
	"net"
	"path/filepath"
)

// peerCred is what the kernel says about the process at the other end of
// a unix socket: its uid and pid when it connected (a client) or
// listened (a host).
type peerCred struct {
	uid, pid int
	// known is false where nothing can be asked: a platform without
	// SO_PEERCRED (peer_other.go), or a connection that is not a unix
	// socket.
	known bool
}

// foreign is the uid rule both ends apply: a peer the kernel vouches for
// must run as uid want (this process's effective uid). There is no
// exception, root included: a host serves its own user, and a client
// talks only to a host of its own user. A peer nothing can be asked
// about is not foreign; the socket's 0600 mode is then the only guard.
func foreign(cred peerCred, want int) bool {
	return cred.known && cred.uid != want
}

// UIDError is a host that runs as another user than the client. The
// client closes the connection before it sends anything.
type UIDError struct {
	Path string // the socket
	UID  int    // the host's uid
	PID  int    // the host's pid
	Want int    // the client's (effective) uid
}

func (e *UIDError) Error() string {
	return fmt.Sprintf("api: the host on %s runs as uid %d, not you (uid %d)", filepath.Dir(e.Path), e.UID, e.Want)
}

// checkHost applies the uid rule to the host at the other end of nc, a
// connection to the socket at path.
func checkHost(nc net.Conn, path string, want int) error {
	cred, err := peerCredOf(nc)
	if err != nil {
		return fmt.Errorf("api: cannot tell which user runs the host at %s: %w", path, err)
	}
	if foreign(cred, want) {
		return &UIDError{Path: path, UID: cred.uid, PID: cred.pid, Want: want}
	}
	return nil
}
