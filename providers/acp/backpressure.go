package acp

import (
	"encoding/json"
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
	// fed and handled count every update passed on and handled; handledC
	// is closed (and replaced) whenever handled grows.
	fed, handled uint64
	handledC     chan struct{}
}

func newInflight() *inflight {
	return &inflight{free: make(chan struct{}, 1), handledC: make(chan struct{})}
}

// isUpdate reports whether a line the agent sent is a session/update
// notification; a request whose text merely mentions the method (a file
// being written, say) is not. It scans the line only when it is JSON.
func isUpdate(line []byte) (update, valid bool) {
	var head struct {
		ID     *json.RawMessage `json:"id"` // nil for null, as the SDK reads it
		Method string           `json:"method"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return false, json.Valid(line) // valid JSON that is not an object
	}
	return head.Method == "session/update" && head.ID == nil, true
}

// admit is called by the filter before it passes an update on.
func (f *inflight) admit() {
	deadline := time.Now().Add(holdMax)
	for {
		f.mu.Lock()
		if f.n < maxInFlight || time.Now().After(deadline) {
			f.n++
			f.fed++
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
	f.handled++
	close(f.handledC)
	f.handledC = make(chan struct{})
	f.mu.Unlock()
	select {
	case f.free <- struct{}{}:
	default:
	}
}

// mark is the number of updates passed on so far.
func (f *inflight) mark() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fed
}

// wait returns once the updates passed on up to mark are handled, or
// after d: a request the agent sent after an update (fs/write_text_file
// after the tool_call it belongs to) reaches its handler before the
// update does, since the SDK handles requests at once and updates in
// turn. The bound covers updates the SDK drops (malformed params).
func (f *inflight) wait(mark uint64, d time.Duration) {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		f.mu.Lock()
		ok, ch := f.handled >= mark, f.handledC
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-timeout.C:
			return
		}
	}
}
