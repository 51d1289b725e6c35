package api

import (
	"fmt"
	"net"
	"time"
)

// Conns returns how many client connections are open. A command-line host
// uses it to keep serving while other invocations still talk to it.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// ConnsChanged returns a channel that is closed the next time a client
// connection opens or closes. Take it before reading Conns (or calling
// CloseIfIdle) and wait on it after, and no change is missed: a host
// waits for its clients to leave without polling.
func (s *Server) ConnsChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// connsChanged wakes the waiters of ConnsChanged; s.mu is held.
func (s *Server) connsChanged() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// CloseIfIdle reports whether no client connection is open and, if so,
// makes the server refuse (close at once) every connection it accepts
// from then on. A command-line host calls it before it exits: checking
// Conns and then closing would drop a client that connected in between,
// while a refused client's hello fails, so it retries and finds the next
// host.
func (s *Server) CloseIfIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) > 0 {
		return false
	}
	s.refusing = true
	return true
}

// Refuse makes the server refuse every connection from now on, the way
// CloseIfIdle does once idle. A command-line host that only reads (thread
// show, requests) calls it before serving: an invocation that finds it
// retries until it exits and then becomes the host itself, rather than
// keeping a one-shot read waiting on its own long work.
func (s *Server) Refuse() {
	s.mu.Lock()
	s.refusing = true
	s.mu.Unlock()
}

// Defaults of Limits.
const (
	// DefaultMaxConns is far more than one person's clients need: a UI
	// holds a request connection, a subscription and one per terminal
	// pane; a waiting command holds two.
	DefaultMaxConns = 256
	// DefaultLineTimeout is how long a request line may take to arrive
	// once begun; a client writes a whole line at once, so only a stuck
	// or hostile one comes near it.
	DefaultLineTimeout = 30 * time.Second
)

// refuseTimeout bounds the write of the error line to a connection
// refused for MaxConns. It is new, so its buffer is empty and the write
// does not wait; the bound only keeps the accept loop safe.
const refuseTimeout = 100 * time.Millisecond

// Limits bound what clients can cost the host (doc.go, "Limits"). A zero
// field takes its default.
type Limits struct {
	// MaxConns is how many connections may be open at once
	// (DefaultMaxConns). One more gets an error line (-32000, data.kind
	// "host_full"; ErrHostFull on the client) and is closed.
	MaxConns int
	// MaxLineBytes bounds one request line (MaxRequestBytes). A longer
	// line gets an error line and the connection is closed, after at
	// most this much of it was read.
	MaxLineBytes int
	// LineTimeout is how long a request line may take to end once its
	// first byte is in (DefaultLineTimeout); then the connection gets an
	// error line and is closed. Between lines a connection may stay idle
	// for as long as it likes.
	LineTimeout time.Duration
}

func (l Limits) orDefaults() Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = MaxRequestBytes
	}
	if l.LineTimeout <= 0 {
		l.LineTimeout = DefaultLineTimeout
	}
	return l
}

// SetLimits sets the server's limits; zero fields keep their defaults.
// Call it before Serve.
func (s *Server) SetLimits(l Limits) { s.lim = l.orDefaults() }

// admit decides whether to serve a connection just accepted; one it
// refuses is closed.
func (s *Server) admit(nc net.Conn) bool {
	cred, err := peerCredOf(nc)
	switch {
	case err != nil:
		s.logf("refused a connection: cannot tell which user made it: %v", err)
		nc.Close()
		return false
	case foreign(cred, s.uid):
		// Nothing is sent: a process of another user learns nothing
		// from this host. Its own client refuses this host anyway.
		s.logf("refused a connection from uid %d (pid %d): this host serves uid %d only", cred.uid, cred.pid, s.uid)
		nc.Close()
		return false
	}
	s.mu.Lock()
	if s.refusing {
		s.mu.Unlock()
		nc.Close()
		return false
	}
	if n := len(s.conns); n >= s.lim.MaxConns {
		// One log line per spell of refusals, not one per refusal.
		first := !s.full
		s.full = true
		s.mu.Unlock()
		if first {
			s.logf("refusing new connections: %d are open, the limit; the next is taken when one closes", n)
		}
		refuseFull(nc, n)
		return false
	}
	s.full = false
	s.conns[nc] = struct{}{}
	s.connsChanged()
	s.mu.Unlock()
	return true
}

// refuseFull tells a connection over MaxConns why it is closed, and
// closes it.
func refuseFull(nc net.Conn, n int) {
	line := encodeResponse(nil, nil, &wireError{Code: CodeServer,
		Message: fmt.Sprintf("%d connections are open, the host's limit; close some clients (UIs, waiting commands) and try again", n),
		Data:    &errorData{Kind: kindHostFull}})
	nc.SetWriteDeadline(time.Now().Add(refuseTimeout))
	nc.Write(append(line, '\n'))
	nc.Close()
}
