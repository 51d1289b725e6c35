package api

// Conns returns how many client connections are open. A command-line host
// uses it to keep serving while other invocations still talk to it.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
