package core

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// appendCounter counts the journal's appends and keeps what each held.
type appendCounter struct {
	*MemJournal
	mu      sync.Mutex
	appends [][]Commit
}

func (j *appendCounter) Append(ctx context.Context, commits []Commit) error {
	j.mu.Lock()
	j.appends = append(j.appends, commits)
	j.mu.Unlock()
	return j.MemJournal.Append(ctx, commits)
}

func (j *appendCounter) since(n int) [][]Commit {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([][]Commit(nil), j.appends[n:]...)
}

// The streamed text of many threads reaches the journal in one commit
// per flush: four chatty threads inside their turns cost one append (one
// fsync), not one per thread or per line, and no line is lost.
func TestRunnerFlushesAllThreadsInOneCommit(t *testing.T) {
	j := &appendCounter{MemJournal: &MemJournal{}}
	r, stop := runWith(t, RunnerConfig{Journal: j, Exec: func(Effect) {}, TextFlush: time.Hour})
	defer stop()
	ctx := context.Background()
	threads := []string{"t1", "t2", "t3", "t4"}
	line := strings.Repeat("x", 79) + "\n"
	var obs []Observation
	for _, th := range threads {
		newThread(t, r, th)
		rec, err := r.Submit(ctx, Command{Kind: CmdMessageSend, Thread: th, Text: "go"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a := st.CurrentAttempt(st.Runs[rec.Run])
		o := Observation{Kind: ObsText, Thread: th, Run: rec.Run, Attempt: a.ID, Key: "out", Text: line}
		// The first line creates the node (journaled at once); the others
		// are buffered.
		if err := r.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
		obs = append(obs, o)
	}
	for i := 0; i < 10; i++ {
		for _, o := range obs {
			if err := r.Observe(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := r.State(ctx); err != nil { // every line is buffered
		t.Fatal(err)
	}
	before := len(j.since(0))
	// The flush timer's own call (the first and only timer set).
	if err := r.post(ctx, &call{flushAll: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := r.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := j.since(before)
	if len(after) != 1 {
		t.Fatalf("the flush of 4 threads' text took %d appends, want 1", len(after))
	}
	got := map[string]int{}
	for _, c := range after[0] {
		for _, ev := range c.Events {
			if ev.Type == EvNodeText {
				got[ev.Thread] += len(ev.Payload.Text)
			}
		}
	}
	for _, o := range obs {
		if got[o.Thread] != 10*len(line) {
			t.Errorf("thread %s: the flush journaled %d bytes of text, want %d", o.Thread, got[o.Thread], 10*len(line))
		}
		if n := st.NodeByKey(o.Attempt, o.Key); n == nil || n.Text != strings.Repeat(line, 11) {
			t.Errorf("thread %s: the node does not hold all 11 lines", o.Thread)
		}
	}
}

// runWith runs a Runner of cfg until the returned stop is called.
func runWith(t *testing.T, cfg RunnerConfig) (*Runner, func()) {
	t.Helper()
	r, err := NewRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	return r, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runner: %v", err)
		}
	}
}
