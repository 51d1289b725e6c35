package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// scripted is a provider stand-in for runner tests: every start_turn
// streams the given deltas and ends the turn completed.
type scripted struct {
	r      *Runner
	deltas []string
	gap    time.Duration
}

func (s *scripted) exec(e Effect) {
	if e.Kind != EffStartTurn {
		return
	}
	go func() {
		ctx := context.Background()
		for i, d := range s.deltas {
			_ = s.r.Observe(ctx, Observation{Kind: ObsText, Thread: e.Thread, Run: e.Run, Attempt: e.Attempt,
				Key: "reply", Text: d, Final: i == len(s.deltas)-1})
			time.Sleep(s.gap)
		}
		_ = s.r.Observe(ctx, Observation{Kind: ObsTurnEnded, Thread: e.Thread, Run: e.Run, Attempt: e.Attempt, TurnStatus: AttemptCompleted})
	}()
}

func startRunner(t *testing.T, j Journal, sc *scripted) (*Runner, func()) {
	t.Helper()
	ready := make(chan struct{})
	r, stop := runWith(t, RunnerConfig{Journal: j, Exec: func(e Effect) {
		<-ready
		if sc != nil {
			sc.exec(e)
		}
	}})
	if sc != nil {
		sc.r = r
	}
	close(ready)
	return r, stop
}

func newThread(t *testing.T, r *Runner, id string) {
	t.Helper()
	rec, err := r.Submit(context.Background(), Command{Kind: CmdThreadCreate, NewThread: id, Provider: "p",
		Caps: Capabilities{Steer: true, Interrupt: true}})
	if err != nil || rec.Reject != nil {
		t.Fatalf("create: %v %+v", err, rec)
	}
}

func waitRun(t *testing.T, r *Runner, run string, status RunStatus) *State {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := r.State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if x := st.Runs[run]; x != nil && x.Status == status {
			return st
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("run %s never became %s", run, status)
	return nil
}

func TestRunnerReceiptDedupe(t *testing.T) {
	j := &MemJournal{}
	r, stop := startRunner(t, j, nil)
	defer stop()
	ctx := context.Background()
	cmd := Command{ID: "client-1", Kind: CmdThreadCreate, NewThread: "t1", Provider: "p"}
	first, err := r.Submit(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	last := j.Last()
	cmd.NewThread = "t2" // a retry carries the same id; the first outcome wins
	again, err := r.Submit(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if *again != *first || again.Thread != "t1" {
		t.Fatalf("retry receipt %+v, want first %+v", again, first)
	}
	if j.Last() != last {
		t.Fatalf("retry journaled %d new events", j.Last()-last)
	}
	st, _ := r.State(ctx)
	if st.Threads["t2"] != nil {
		t.Fatal("retry created a second thread")
	}
}

func TestRunnerRefusalJournalsNothing(t *testing.T) {
	j := &MemJournal{}
	r, stop := startRunner(t, j, nil)
	defer stop()
	newThread(t, r, "t1")
	last := j.Last()
	for _, c := range []Command{
		{Kind: CmdMessageSend, Thread: "t1", Text: " \t"},
		{Kind: CmdMessageSend, Thread: "t1", Text: string([]byte{0xff})},
		{Kind: CmdMessageSend, Thread: "zzz", Text: "hi"},
		{Kind: CmdRequestRespond, Request: "R404", Response: RespAllow},
	} {
		_, err := r.Submit(context.Background(), c)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err = %v, want InputError", c, err)
		}
	}
	if j.Last() != last {
		t.Fatalf("refused input journaled %d events", j.Last()-last)
	}
}

// TestRunnerSubscribeConsistent checks that a subscriber sees a snapshot
// plus every later event exactly once, in order, while commands race.
func TestRunnerSubscribeConsistent(t *testing.T) {
	j := &MemJournal{}
	sc := &scripted{deltas: []string{"a", "b"}}
	r, stop := startRunner(t, j, sc)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			newThread(t, r, fmt.Sprintf("t%d", i))
		}(i)
	}
	time.Sleep(time.Millisecond)
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := sub.State
	for i := 4; i < 8; i++ {
		newThread(t, r, fmt.Sprintf("t%d", i))
	}
	wg.Wait()
	want := j.Last()
	for st.Seq < want {
		select {
		case ev := <-sub.Events:
			if ev.Seq == 0 {
				continue
			}
			if err := st.Apply(&ev); err != nil {
				t.Fatalf("gap or duplicate: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("subscriber stuck at seq %d of %d", st.Seq, want)
		}
	}
	if len(st.Threads) != 8 {
		t.Fatalf("subscriber sees %d threads, want 8", len(st.Threads))
	}
	// from > 0: history from the journal, then live.
	sub2, err := r.Subscribe(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	st2 := NewState()
	for st2.Seq < want {
		ev := <-sub2.Events
		if err := st2.Apply(&ev); err != nil {
			t.Fatalf("history: %v", err)
		}
	}
}

// TestRunnerCoalescesText checks streamed deltas reach subscribers live
// (unjournaled) and reach the journal coalesced, with the full text.
func TestRunnerCoalescesText(t *testing.T) {
	j := &MemJournal{}
	var deltas []string
	for i := 0; i < 200; i++ {
		deltas = append(deltas, fmt.Sprintf("w%d ", i))
	}
	sc := &scripted{deltas: deltas}
	r, stop := startRunner(t, j, sc)
	defer stop()
	ctx := context.Background()
	newThread(t, r, "t1")
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Submit(ctx, Command{Kind: CmdMessageSend, Thread: "t1", Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	st := waitRun(t, r, rec.Run, RunCompleted)
	want := ""
	for _, d := range deltas {
		want += d
	}
	if got := st.Runs[rec.Run].Reply; got != want {
		t.Fatalf("reply has %d bytes, want %d", len(got), len(want))
	}
	texts, live := 0, 0
	_ = j.Read(ctx, 1, func(ev Event) error {
		if ev.Type == EvNodeText {
			texts++
		}
		return nil
	})
	timeout := time.After(2 * time.Second)
	for live < len(deltas) {
		select {
		case ev := <-sub.Events:
			if ev.Type == EvNodeDelta {
				live++
			}
		case <-timeout:
			t.Fatalf("saw %d live deltas, want %d (only the first one creates the node)", live, len(deltas)-1)
		}
		if live == len(deltas)-1 {
			break
		}
	}
	if texts >= len(deltas)/2 {
		t.Fatalf("journal has %d node.text events for %d deltas: not coalesced", texts, len(deltas))
	}
}

func TestRunnerAppendFailureLosesNothingAcknowledged(t *testing.T) {
	j := &MemJournal{}
	r, stop := startRunner(t, j, nil)
	defer stop()
	newThread(t, r, "t1")
	j.mu.Lock()
	j.FailAppend = errors.New("disk full")
	j.mu.Unlock()
	_, err := r.Submit(context.Background(), Command{Kind: CmdThreadCreate, NewThread: "t2", Provider: "p"})
	if err == nil {
		t.Fatal("append failure was acknowledged")
	}
	st, _ := r.State(context.Background())
	if st.Threads["t2"] != nil || st.Threads["t1"] == nil {
		t.Fatalf("state after a failed append: threads %v", sortedKeys(st.Threads))
	}
	newThread(t, r, "t3") // the runner keeps working
}

func TestRunnerRestartRecovers(t *testing.T) {
	j := &MemJournal{}
	sc := &scripted{deltas: []string{"slow"}, gap: time.Hour}
	r, stop := startRunner(t, j, sc)
	newThread(t, r, "t1")
	rec, err := r.Submit(context.Background(), Command{Kind: CmdMessageSend, Thread: "t1", Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	stop()
	// A new host over the same journal: the run is interrupted, recoverable.
	r2, stop2 := startRunner(t, j, &scripted{deltas: []string{"done"}})
	defer stop2()
	st := waitRun(t, r2, rec.Run, RunInterrupted)
	if !st.Runs[rec.Run].Recoverable {
		t.Fatal("run interrupted by a restart is not recoverable")
	}
	if _, err := r2.Submit(context.Background(), Command{Kind: CmdRunResume, Thread: "t1"}); err != nil {
		t.Fatal(err)
	}
	st = waitRun(t, r2, rec.Run, RunCompleted)
	as := st.AttemptsOf(rec.Run)
	if len(as) != 2 || as[1].Reason != ReasonProviderRecovery {
		t.Fatalf("attempts after resume: %+v", as)
	}
}

// slowJournal makes every append take a while, so inputs pile up and
// the Runner drains them in mixed batches.
type slowJournal struct{ *MemJournal }

func (s slowJournal) Append(ctx context.Context, c []Commit) error {
	time.Sleep(3 * time.Millisecond)
	return s.MemJournal.Append(ctx, c)
}

// TestRunnerReadsSeeOnlyDurableState races subscriptions against commands
// in one batch: the snapshot never includes an event that is then also
// delivered, and never includes an event not yet in the journal.
func TestRunnerReadsSeeOnlyDurableState(t *testing.T) {
	mem := &MemJournal{}
	r, stop := startRunner(t, slowJournal{mem}, nil)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for i := 0; ctx.Err() == nil; i++ {
			_, _ = r.Submit(ctx, Command{Kind: CmdThreadCreate, NewThread: fmt.Sprintf("t%d", i), Provider: "p"})
		}
	}()
	for i := 0; i < 40; i++ {
		sub, err := r.Subscribe(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sub.State.Seq > mem.Last() {
			t.Fatalf("snapshot at seq %d ahead of the journal at %d", sub.State.Seq, mem.Last())
		}
		st := sub.State
		for k := 0; k < 4; k++ {
			ev := <-sub.Events
			if err := st.Apply(&ev); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	}
}

// forgetful is a journal whose host dies before any snapshot lands.
type forgetful struct{ *MemJournal }

func (forgetful) SaveSnapshot(*State) error { return nil }

// A host started after others left a long tail without a snapshot (they
// kept dying first) snapshots at once: the count runs from the newest
// snapshot, not from this host's start, so recovery cannot keep growing.
func TestRunnerSnapshotsALongInheritedTail(t *testing.T) {
	j := &MemJournal{}
	first, err := NewRunner(RunnerConfig{Journal: forgetful{j}, Exec: func(Effect) {}, SnapshotEvery: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()
	for i := range 30 {
		newThread(t, first, fmt.Sprintf("t%d", i))
	}
	cancel()
	<-done
	tail := j.Last()
	if st, _ := j.LoadSnapshot(); st != nil || tail < 30 {
		t.Fatalf("setup: snapshot %v, %d events; want none and at least 30", st != nil, tail)
	}
	second, err := NewRunner(RunnerConfig{Journal: j, Exec: func(Effect) {}, SnapshotEvery: 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go second.Run(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if st, _ := j.LoadSnapshot(); st != nil && st.Seq >= tail {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot at or past seq %d from a host that inherited %d events over SnapshotEvery 20", tail, tail)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fullJournal refuses appends while full, as a full disk does.
type fullJournal struct {
	*MemJournal
	mu      sync.Mutex
	full    bool
	refused int
}

func (j *fullJournal) setFull(v bool) { j.mu.Lock(); j.full = v; j.mu.Unlock() }

func (j *fullJournal) Append(ctx context.Context, cs []Commit) error {
	j.mu.Lock()
	if j.full {
		j.refused++
		j.mu.Unlock()
		return errors.New("write journal: no space left on device")
	}
	j.mu.Unlock()
	return j.MemJournal.Append(ctx, cs)
}

// A turn that ends while the journal refuses appends (a full disk) is
// not lost: its outcome is held, subscribers are told the journal is
// stalled, and once appends work again the run completes; meanwhile an
// interrupt is refused with the error and works afterwards.
func TestRunnerHoldsObservationsAcrossAFullDisk(t *testing.T) {
	j := &fullJournal{MemJournal: &MemJournal{}}
	r, stop := runWith(t, RunnerConfig{Journal: j, Exec: func(Effect) {}, RetryEvery: 10 * time.Millisecond})
	defer stop()
	ctx := context.Background()
	newThread(t, r, "t1")
	rec, err := r.Submit(ctx, Command{ID: "c-send", Kind: CmdMessageSend, Thread: "t1", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := sub.State.Runs[rec.Run]
	a := sub.State.CurrentAttempt(run)
	j.setFull(true)
	if err := r.Observe(ctx, Observation{Kind: ObsTurnEnded, Thread: "t1", Run: run.ID, Attempt: a.ID, TurnStatus: AttemptCompleted}); err != nil {
		t.Fatal(err)
	}
	ev := awaitEvent(t, sub, "the stalled notice", func(ev Event) bool { return ev.Type == EvJournalStalled })
	if !strings.Contains(ev.Payload.Text, "no space left") {
		t.Fatalf("stalled notice %q", ev.Payload.Text)
	}
	if _, err := r.Submit(ctx, Command{ID: "c-int", Kind: CmdRunInterrupt, Thread: "t1"}); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("interrupt on a full disk: %v; want the journal's error", err)
	}
	j.setFull(false)
	awaitEvent(t, sub, "the run to complete", func(ev Event) bool {
		return ev.Type == EvRunUpdated && ev.Payload.Run.ID == run.ID && ev.Payload.Run.Status == RunCompleted
	})
	if _, err := r.Submit(ctx, Command{ID: "c-int2", Kind: CmdRunInterrupt, Thread: "t1"}); err != nil && !strings.Contains(err.Error(), "no active run") {
		t.Fatalf("interrupt after room was made: %v", err)
	}
	if j.refused == 0 {
		t.Fatal("the journal never refused an append: the test proves nothing")
	}
}

// awaitEvent reads a subscription until an event matches. The deadline
// only keeps a broken runner from hanging the suite; nothing is timed.
func awaitEvent(t *testing.T, sub *Subscription, what string, match func(Event) bool) Event {
	t.Helper()
	failsafe := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				t.Fatalf("the subscription ended before %s", what)
			}
			if match(ev) {
				return ev
			}
		case <-failsafe:
			t.Fatalf("no %s", what)
		}
	}
}

// A long reply is journaled about once: its deltas, and the run's reply
// when it ends. Status changes of its node and run (completion, the
// checkpoint barrier) do not carry the text again.
func TestRunnerJournalsALongReplyOnce(t *testing.T) {
	j := &MemJournal{}
	var deltas []string
	for i := 0; i < 200; i++ {
		deltas = append(deltas, strings.Repeat(string(rune('a'+i%26)), 1023)+"\n")
	}
	sc := &scripted{deltas: deltas}
	r, stop := startRunner(t, j, sc)
	defer stop()
	ctx := context.Background()
	newThread(t, r, "t1")
	rec, err := r.Submit(ctx, Command{Kind: CmdMessageSend, Thread: "t1", Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	st := waitRun(t, r, rec.Run, RunCompleted)
	reply := len(st.Runs[rec.Run].Reply)
	if reply != 200*1024 {
		t.Fatalf("reply has %d bytes, want %d", reply, 200*1024)
	}
	total := 0
	replay := NewState()
	_ = j.Read(ctx, 1, func(ev Event) error {
		b, _ := json.Marshal(ev)
		total += len(b)
		return replay.Apply(&ev)
	})
	if total > 2*reply+64<<10 {
		t.Fatalf("a %d-byte reply cost %d bytes of events: text is journaled again on updates", reply, total)
	}
	if got := replay.Runs[rec.Run].Reply; len(got) != reply {
		t.Fatalf("replayed reply has %d bytes, want %d", len(got), reply)
	}
	for _, n := range replay.NodesOf(replay.CurrentAttempt(replay.Runs[rec.Run]).ID) {
		if n.Kind == NodeAssistantMessage && len(n.Text) != reply {
			t.Fatalf("replayed message has %d bytes, want %d", len(n.Text), reply)
		}
	}
}

// A Runner on a shared journal (team mode) journals its writer first,
// even when there is nothing to recover: that commit moves the journal
// past anything the host it took over from still tries to append.
func TestRunnerJournalsItsWriter(t *testing.T) {
	j := &MemJournal{}
	r, err := NewRunner(RunnerConfig{Journal: j, Writer: "box-b:/state (pid 7)"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	if _, err := r.State(context.Background()); err != nil { // answered after the recovery's commit
		t.Fatal(err)
	}
	cancel()
	<-done
	var first *Event
	_ = j.Read(context.Background(), 1, func(ev Event) error {
		if first == nil {
			first = &ev
		}
		return nil
	})
	if first == nil || first.Type != EvRuntimeWarning || first.Payload.Note != WriterNote+"box-b:/state (pid 7)" {
		t.Fatalf("the first event of a shared journal's new writer is %+v, want its writer note", first)
	}
}
