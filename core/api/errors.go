package api

import (
	"errors"
	"fmt"
)

// Sentinel errors. Match them with errors.Is: the errors returned wrap them
// with the path, the pid or the underlying cause.
var (
	// ErrHostRunning: Listen found a live host answering on the socket.
	ErrHostRunning = errors.New("api: another nexus host is serving this state dir")
	// ErrNotSocket: Listen found something other than a socket at the path.
	ErrNotSocket = errors.New("api: the socket path exists and is not a socket")
	// ErrNoHost: Dial found no socket, or a stale one nobody listens on.
	ErrNoHost = errors.New("api: no nexus host is listening")
	// ErrHostGone: the connection to the host dropped, or the host stopped.
	ErrHostGone = errors.New("api: the nexus host went away")
	// ErrRefused: a host accepted the connection and closed it before
	// answering hello: it is exiting (Server.CloseIfIdle) or serves only
	// its own command (Server.Refuse). It is alive, so try again shortly.
	ErrRefused = errors.New("api: the nexus host is busy or exiting and refused the connection")
	// ErrHostFull: the host has as many connections open as it takes
	// (Limits.MaxConns) and refused this one.
	ErrHostFull = errors.New("api: the host is at its connection limit")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("api: client is closed")
)

// Error is an error the host answered with, other than refused input
// (which comes back as *core.InputError).
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("api: host: %s (code %d)", e.Message, e.Code)
}
