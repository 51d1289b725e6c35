package core

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// sealedJournal is a journal whose snapshot is st: its run seal holds
// the history the store would keep in its vault.
type sealedJournal struct {
	*MemJournal
	st *State
}

func (j sealedJournal) LoadSnapshot() (*State, error) { return j.st.Clone(), nil }

// sealRun moves a finished run's history out of st's hot maps behind a
// seal whose loader is load, as a state loaded from a snapshot holds it.
func sealRun(st *State, run string, load func() (*SealedRun, error)) {
	h := st.SealOf(run)
	for _, a := range h.Attempts {
		delete(st.Attempts, a.ID)
	}
	for _, n := range h.Nodes {
		delete(st.Nodes, n.ID)
	}
	if h.Plan != nil {
		delete(st.Plans, h.Plan.ID)
	}
	for _, e := range h.Effects {
		delete(st.Effects, e.Key)
	}
	st.Sealed[run] = &Seal{Ref: "0123456789abcdef0123", Load: load}
	st.Reindex()
}

// A sealed history that cannot be read (its journal file damaged after
// it was opened) is an error, never a panic: readers see the run without
// its history and SealErr says what to run; a Runner that decides
// anything from it stops with the error and records nothing.
func TestDamagedSealStopsTheRunnerWithoutPanic(t *testing.T) {
	j := &MemJournal{}
	r, stop := startRunner(t, j, &scripted{deltas: []string{"hi"}})
	newThread(t, r, "t1")
	if rec, err := r.Submit(context.Background(), Command{Kind: CmdMessageSend, Thread: "t1", Text: "hello"}); err != nil || rec.Reject != nil {
		t.Fatalf("send: %v %+v", err, rec)
	}
	full := waitRun(t, r, "t1/1", RunCompleted)
	stop()
	node := full.NodesOf(full.AttemptsOf("t1/1")[0].ID)[0].ID

	st := full.Clone()
	sealRun(st, "t1/1", func() (*SealedRun, error) { return nil, errors.New("checksum mismatch") })
	if !st.Sealable("t1/1") || st.Node(node) != nil || st.SealErr() == nil {
		t.Fatalf("a damaged seal: node %v, SealErr %v; want no node and the error", st.Node(node), st.SealErr())
	}
	if err := st.SealErr(); !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), "verify --repair") {
		t.Fatalf("SealErr %q does not say what broke and what to run", err)
	}

	fresh := full.Clone()
	sealRun(fresh, "t1/1", func() (*SealedRun, error) { return nil, errors.New("checksum mismatch") })
	before := j.Last()
	r2, err := NewRunner(RunnerConfig{Journal: sealedJournal{j, fresh}, Exec: func(Effect) {}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r2.Run(context.Background()) }()
	_, serr := r2.Submit(context.Background(), Command{Kind: CmdRollbackNode, Thread: "t1", Node: node})
	if serr == nil {
		t.Fatal("a command decided from an unreadable history was acknowledged")
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("the Runner ended with %v; want it stopped by the unreadable history", err)
	}
	if j.Last() != before {
		t.Fatalf("the journal grew from %d to %d after the history could not be read", before, j.Last())
	}
}

// A Runner that is stopping decides nothing more: inputs that race the
// stop (a provider reporting the end of a turn because its host closes)
// are refused, so a closing host never records their effects. The
// journal is held while the inputs queue up and the stop comes, so the
// Runner finds both at once.
func TestStoppingRunnerDecidesNothing(t *testing.T) {
	for round := 0; round < 10; round++ {
		gate := &gatedJournal{MemJournal: &MemJournal{}, release: make(chan struct{})}
		r, err := NewRunner(RunnerConfig{Journal: gate, Exec: func(Effect) {}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		close(gate.release)
		if rec, err := r.Submit(context.Background(), Command{Kind: CmdThreadCreate, NewThread: "t1", Provider: "p"}); err != nil || rec.Reject != nil {
			t.Fatalf("create: %v %+v", err, rec)
		}
		gate.hold()
		go r.Submit(context.Background(), Command{Kind: CmdThreadRename, Thread: "t1", Title: "first"})
		<-gate.held // the Runner is inside the journal with "first"
		for i := 0; i < 8; i++ {
			go r.Submit(context.Background(), Command{Kind: CmdThreadRename, Thread: "t1", Title: "late"})
		}
		for len(r.inbox) < 8 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		gate.open()
		<-done
		st, err := Load(context.Background(), gate.MemJournal)
		if err != nil {
			t.Fatal(err)
		}
		if title := st.Threads["t1"].Title; title != "first" {
			t.Fatalf("round %d: the thread is titled %q after the stop; want the rename that was being written, %q", round, title, "first")
		}
	}
}

// gatedJournal can hold Append until released.
type gatedJournal struct {
	*MemJournal
	mu      sync.Mutex
	release chan struct{}
	held    chan struct{}
}

func (g *gatedJournal) hold() {
	g.mu.Lock()
	g.release, g.held = make(chan struct{}), make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedJournal) open() {
	g.mu.Lock()
	close(g.release)
	g.mu.Unlock()
}

func (g *gatedJournal) Append(ctx context.Context, c []Commit) error {
	g.mu.Lock()
	release, held := g.release, g.held
	g.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		default:
			close(held)
		}
	}
	<-release
	return g.MemJournal.Append(ctx, c)
}
