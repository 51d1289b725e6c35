package codex

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// echoWriter answers every request written to it with its own method as
// the result, from another goroutine, as the app-server would.
type echoWriter struct {
	mu  sync.Mutex
	r   *rpc
	ids map[string]int
}

func (w *echoWriter) WriteLine(b []byte) error {
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	w.mu.Lock()
	w.ids[idString(m.ID)]++
	w.mu.Unlock()
	res, _ := json.Marshal(m.Method)
	go w.r.deliver(msg{ID: m.ID, Result: res})
	return nil
}

// Calls made at once from many goroutines each go out with an id of
// their own and each caller gets the answer to its own request: a
// duplicate id would leave one caller waiting forever.
func TestRPCConcurrentCallsGetTheirOwnAnswers(t *testing.T) {
	w := &echoWriter{ids: map[string]int{}}
	r := newRPC(w)
	w.r = r
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			method := fmt.Sprintf("m%d", i)
			var got msg
			select {
			case got = <-r.call(method, nil):
			case <-time.After(10 * time.Second):
				errs <- "call " + method + " got no answer: its request went out with another call's id"
				return
			}
			var res string
			_ = json.Unmarshal(got.Result, &res)
			if res != method {
				errs <- "call " + method + " got the answer " + res
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for id, c := range w.ids {
		if c != 1 {
			t.Errorf("request id %s was sent %d times", id, c)
		}
	}
	if len(w.ids) != n {
		t.Errorf("%d distinct ids for %d calls", len(w.ids), n)
	}
}
