package acp

import (
	"bytes"
	"sync"
	"time"
)

// The SDK queues at most 1,024 notifications ahead of the handler and
// closes the connection when more wait, so an agent that streams faster
// than the UI takes its updates would have its turn fail. The filter
// therefore holds a session/update line while maxInFlight of them are
// queued and not yet handled. It waits at most holdMax per line: a line
// the SDK never hands to the handler (malformed params) must not stop the
// stream for good.
const (
	maxInFlight = 512
	holdMax     = 100 * time.Millisecond
)

// inflight counts session/update notifications passed to the SDK and not
// yet handled.
type inflight struct {
	mu   sync.Mutex
	n    int
	free chan struct{} // signalled when n drops below maxInFlight
}

func newInflight() *inflight { return &inflight{free: make(chan struct{}, 1)} }

var updateMethod = []byte(`"session/update"`)

// admit is called by the filter before it passes line on.
func (f *inflight) admit(line []byte) {
	if !bytes.Contains(line, updateMethod) {
		return
	}
	deadline := time.Now().Add(holdMax)
	for {
		f.mu.Lock()
		if f.n < maxInFlight || time.Now().After(deadline) {
			f.n++
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		select {
		case <-f.free:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// done is called when the handler has taken one notification.
func (f *inflight) done() {
	f.mu.Lock()
	if f.n > 0 {
		f.n--
	}
	f.mu.Unlock()
	select {
	case f.free <- struct{}{}:
	default:
	}
}
