package acp

import (
	"testing"
	"time"
)

// Only session/update notifications count as updates: a file the agent
// writes may well mention the method, and counting its request would
// leave every later write waiting for an update that never comes.
func TestIsUpdate(t *testing.T) {
	for _, tc := range []struct {
		line          string
		update, valid bool
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{}}`, true, true},
		{`{"jsonrpc":"2.0","method":"session/update","id":null,"params":{}}`, true, true},
		{`{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"content":"\"session/update\""}}`, false, true},
		{`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`, false, true},
		{`[1,2]`, false, true},
		{`Loaded cached credentials`, false, false},
	} {
		if update, valid := isUpdate([]byte(tc.line)); update != tc.update || valid != tc.valid {
			t.Errorf("isUpdate(%s) = %v, %v; want %v, %v", tc.line, update, valid, tc.update, tc.valid)
		}
	}
}

// A write waits for the updates sent before it, and no longer.
func TestWaitForUpdatesBefore(t *testing.T) {
	f := newInflight()
	f.admit()
	f.admit()
	mark := f.mark()
	go func() {
		time.Sleep(20 * time.Millisecond)
		f.done()
		f.done()
	}()
	start := time.Now()
	f.wait(mark, 5*time.Second)
	if f.handled < mark {
		t.Fatalf("wait returned with %d of %d updates handled", f.handled, mark)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("wait took %s after the updates were handled", d)
	}
	f.admit() // one the SDK drops: the wait is bounded
	start = time.Now()
	f.wait(f.mark(), 50*time.Millisecond)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("wait for a dropped update took %s", d)
	}
}
