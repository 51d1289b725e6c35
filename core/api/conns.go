package api

// Conns returns how many client connections are open. A command-line host
// uses it to keep serving while other invocations still talk to it.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
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
