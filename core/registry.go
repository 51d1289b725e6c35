package core

// SessionState is a runtime registry state of a provider session
// (docs/ARCHITECTURE.md, "Providers and sessions"). The empty state is a
// thread that never had a session.
type SessionState string

// Runtime registry states.
const (
	SessStarting SessionState = "STARTING"
	SessRunning  SessionState = "RUNNING"
	SessWaiting  SessionState = "WAITING"
	SessApproval SessionState = "APPROVAL"
	SessHandoff  SessionState = "HANDOFF"
	SessStopping SessionState = "STOPPING"
	SessStopped  SessionState = "STOPPED"
	SessFailed   SessionState = "FAILED"
)

// transitions is the runtime registry. STARTING may also go to STOPPING or
// FAILED: a process can die or be stopped before its first turn, and the
// registry must say so rather than pretend it ran.
var transitions = map[SessionState][]SessionState{
	"":           {SessStarting},
	SessStarting: {SessRunning, SessStopping, SessFailed},
	SessRunning:  {SessWaiting, SessApproval, SessHandoff, SessStopping},
	SessWaiting:  {SessRunning, SessStopping},
	SessApproval: {SessRunning, SessStopping},
	SessHandoff:  {SessRunning, SessStopping},
	SessStopping: {SessStopped, SessFailed},
	SessStopped:  {SessStarting},
	SessFailed:   {SessStarting},
}

// CanTransition reports whether a session may move from one state to another.
func CanTransition(from, to SessionState) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Path returns the shortest chain of registry states that leads from one
// state to another, excluding from, or nil when none does. The decider uses
// it so every journaled session change is a single legal transition.
func Path(from, to SessionState) []SessionState {
	if from == to {
		return []SessionState{}
	}
	type step struct {
		state SessionState
		prev  *step
	}
	seen := map[SessionState]bool{from: true}
	queue := []*step{{state: from}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, next := range transitions[cur.state] {
			if seen[next] {
				continue
			}
			seen[next] = true
			s := &step{state: next, prev: cur}
			if next == to {
				var out []SessionState
				for p := s; p.prev != nil; p = p.prev {
					out = append([]SessionState{p.state}, out...)
				}
				return out
			}
			queue = append(queue, s)
		}
	}
	return nil
}

// Live reports whether a session state means a running provider process.
func Live(state SessionState) bool {
	switch state {
	case SessStarting, SessRunning, SessWaiting, SessApproval, SessHandoff:
		return true
	}
	return false
}
