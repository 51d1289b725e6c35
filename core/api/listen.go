package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// probeTimeout bounds how long Listen waits on a socket someone answers on
// (a holder that does not answer within 1 s is not waited for:
// docs/ARCHITECTURE.md, "Host and clients").
const probeTimeout = time.Second

// maxSocketPath is the longest path a unix socket address can hold, its
// terminating NUL excluded (107 bytes on Linux, 103 on the BSDs).
var maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// Listen creates the host's unix socket at path with mode 0600 and returns
// its listener. Closing the listener removes the socket file.
//
// If a socket already exists, Listen dials it: if something answers it
// returns an error wrapping ErrHostRunning (naming the pid when the host
// says hello); if the connection is refused, the socket is stale (its host
// was killed) and is replaced. A path that exists and is not a socket is
// refused with ErrNotSocket and left alone.
//
// Listen is not a lock: two processes racing through it can both succeed.
// Call it while holding the state dir's lock.
//
// The socket is never reachable with a wider mode: it is bound inside a
// fresh 0700 directory, chmodded to 0600 and only then renamed into place,
// which also replaces a stale socket atomically. (The kernel goes on
// reporting the temporary name as the socket's address; the listener's
// Addr reports path.) When the path is too long for that detour it is
// bound in place and chmodded at once, relying on the state dir's own 0700
// mode for that instant.
func Listen(path string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("api: socket path %s is %d bytes, over the %d-byte limit of unix sockets: use a shorter state dir",
			path, len(path), maxSocketPath)
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%w: %s is a %v; move it away or use another state dir", ErrNotSocket, path, fi.Mode().Type())
		}
		if err := probe(path); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("api: check socket %s: %w", path, err)
	}
	ln, err := bindPrivate(path)
	if err != nil {
		return nil, err
	}
	fi, err = os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("api: socket %s vanished after listening: %w", path, err)
	}
	return &listener{UnixListener: ln, path: path, fi: fi}, nil
}

// probe tells a live host from a stale socket. It returns nil when the
// socket is stale.
func probe(path string) error {
	conn, err := net.DialTimeout("unix", path, probeTimeout)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("api: cannot tell whether a host is serving %s: %w", path, err)
	}
	defer conn.Close()
	// Something accepted: a host is alive. One of another user is not
	// asked anything.
	var ue *UIDError
	if err := checkHost(conn, path, os.Geteuid()); errors.As(err, &ue) {
		return fmt.Errorf("%w (pid %d at %s, running as uid %d, not you)", ErrHostRunning, ue.PID, path, ue.UID)
	} else if err != nil {
		return fmt.Errorf("%w (at %s; %v)", ErrHostRunning, path, err)
	}
	// Ask its pid for the message.
	conn.SetDeadline(time.Now().Add(probeTimeout))
	var info HostInfo
	if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"hello"}` + "\n")); err == nil {
		if line, err := bufio.NewReader(conn).ReadBytes('\n'); err == nil {
			var in struct{ Result HostInfo }
			if json.Unmarshal(line, &in) == nil {
				info = in.Result
			}
		}
	}
	if info.PID != 0 {
		return fmt.Errorf("%w (pid %d at %s)", ErrHostRunning, info.PID, path)
	}
	return fmt.Errorf("%w (at %s; it did not say its pid)", ErrHostRunning, path)
}

// bindPrivate binds the socket so that it is 0600 before anyone can reach it.
func bindPrivate(path string) (*net.UnixListener, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".sock")
	if err != nil {
		return nil, fmt.Errorf("api: create socket: %w", err)
	}
	defer os.RemoveAll(tmp)
	tpath := filepath.Join(tmp, "s")
	if len(tpath) > maxSocketPath {
		return bindInPlace(path)
	}
	ln, err := bindChmod(tpath)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tpath, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("api: move socket into place at %s: %w", path, err)
	}
	return ln, nil
}

func bindInPlace(path string) (*net.UnixListener, error) {
	// probe found the old socket stale; bind fails while its file exists.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("api: remove stale socket %s: %w", path, err)
	}
	return bindChmod(path)
}

func bindChmod(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("api: listen on %s: %w", path, err)
	}
	// The listener removes the socket itself, from its final path (listener.Close).
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("api: chmod socket %s: %w", path, err)
	}
	return ln, nil
}

// listener removes its socket file on Close, unless another host has
// replaced it since.
type listener struct {
	*net.UnixListener
	path string
	fi   fs.FileInfo
	once sync.Once
}

// Addr is the socket's final path, not the name it was bound under.
func (l *listener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

func (l *listener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(func() {
		if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.fi) {
			os.Remove(l.path)
		}
	})
	return err
}
