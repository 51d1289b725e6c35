package workers

import (
	"fmt"
	"sync"
	"time"
)

// ledger is what a worker remembers of the tokens it accepted, so that
// each is accepted once: a token copied from one request and sent again,
// to run the same write or command a second time, is refused.
//
// Invariant: an entry is kept until its token's expiry plus TokenGrace,
// so a wall clock stepped back a little cannot make a used token look
// fresh once its entry is gone. Tokens live at most their step's timeout
// plus TokenGrace (Verify's maxLife), which bounds the ledger by the
// steps of the last few timeouts.
type ledger struct {
	mu   sync.Mutex
	used map[string]time.Time // nonce -> when the entry may go
}

// spend records g's nonce, or refuses it with ErrTokenReplayed when it
// was recorded before. It drops the entries whose time has come.
func (l *ledger) spend(g Grant, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, until := range l.used {
		if now.After(until) {
			delete(l.used, n)
		}
	}
	if _, ok := l.used[g.Nonce]; ok {
		return fmt.Errorf("%w: this worker already accepted the token for step %d of task %q; each token is good for one request",
			ErrTokenReplayed, g.Step, g.Task)
	}
	if l.used == nil {
		l.used = map[string]time.Time{}
	}
	l.used[g.Nonce] = g.Expiry.Add(TokenGrace)
	return nil
}
