package journaltest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// Writers and appends per writer in testConcurrent: enough to interleave
// on two cores, few enough for a journal that fsyncs each append.
const (
	concurrentWriters = 4
	concurrentAppends = 12
)

// testConcurrent runs writers that each take a shared lock, compute the
// next seq from Last and Append under it (the port orders appends by seq,
// so the caller serialises them, as the Runner's one goroutine does),
// while a reader keeps reading from seq 1. Every read must be a gapless
// prefix of the final journal.
func testConcurrent(t *testing.T, h *harness) {
	j := h.open()
	var (
		mu      sync.Mutex
		written []core.Event
		wg      sync.WaitGroup
	)
	for w := range concurrentWriters {
		wg.Go(func() {
			for i := range concurrentAppends {
				mu.Lock()
				n := 1 + (w+i)%3
				c := commit(fmt.Sprintf("w%d-%d", w, i), j.Last()+1, n)
				err := j.Append(context.Background(), []core.Commit{c})
				if err == nil {
					written = append(written, c.Events...)
				}
				mu.Unlock()
				if err != nil {
					t.Errorf("writer %d append %d: %v", w, i, err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	var rg sync.WaitGroup
	var reads int
	rg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			reads++
			next := uint64(1)
			err := j.Read(context.Background(), 1, func(ev core.Event) error {
				if ev.Seq != next {
					return fmt.Errorf("read seq %d where %d was due", ev.Seq, next)
				}
				next++
				return nil
			})
			if err != nil {
				t.Errorf("a Read alongside the writers: %v", err)
				return
			}
		}
	})
	wg.Wait()
	close(done)
	rg.Wait()
	if t.Failed() {
		return
	}
	var total uint64
	for w := range concurrentWriters {
		for i := range concurrentAppends {
			total += uint64(1 + (w+i)%3)
		}
	}
	if j.Last() != total {
		t.Fatalf("Last() = %d after %d events were appended", j.Last(), total)
	}
	sameEvents(t, "the journal after concurrent appends", ReadAll(t, j, 1), written)
	t.Logf("%d reads ran alongside the writers", reads)
}
