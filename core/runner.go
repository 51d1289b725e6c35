package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// DefaultSnapshotEvery is how many events may pass between snapshots.
const DefaultSnapshotEvery = 10000

// TextFlushInterval bounds how long a streamed text delta stays out of the
// journal: coalesced at most every second (docs/ARCHITECTURE.md, "From an
// agent's output to the journal").
// UrgentFlushInterval is the bound for output a person waits on (command
// output of a worker step).
const (
	TextFlushInterval   = time.Second
	UrgentFlushInterval = 20 * time.Millisecond
)

// ErrStopped is returned to callers when the Runner has stopped.
var ErrStopped = errors.New("core: the host is stopping; try again")

// RunnerConfig wires a Runner.
type RunnerConfig struct {
	Journal Journal
	// Exec starts an effect; it must not block. Outcomes come back through
	// Runner.Observe. Timers are handled by the Runner itself.
	Exec func(Effect)
	// SnapshotEvery: a snapshot is written once the journal is this many
	// events past the newest snapshot (default DefaultSnapshotEvery),
	// counting what earlier hosts appended, so a host started after a
	// crash that left a long tail snapshots at its first commit.
	SnapshotEvery uint64
	// Now is the edge clock (default time.Now).
	Now func() time.Time
	// RetryEvery is how soon observations a failed append lost are
	// decided and appended again (default DefaultRetryEvery).
	RetryEvery time.Duration
	// TextFlush is how long streamed text may stay out of the journal
	// (default TextFlushInterval; runner_text.go).
	TextFlush time.Duration
	// MinScheduleEvery is the shortest "every" schedule.add takes
	// (default DefaultMinScheduleEvery; the kernel's own floor is
	// MinEvery).
	MinScheduleEvery time.Duration
	// NoSchedules: this Runner's Recover pass neither fires nor arms
	// schedules. For a host that serves one read-only command and
	// exits: a fire there would start work that the exit cuts off.
	NoSchedules bool
	// Writer names this host when the journal is shared (team mode);
	// see Recover.Writer.
	Writer string
}

// WriterNote starts the note of the runtime warning that records a new
// writer of a shared journal (Recover.Writer).
const WriterNote = "writer: "

// DefaultRetryEvery is RunnerConfig.RetryEvery's default.
const DefaultRetryEvery = time.Second

// Runner is the goroutine that owns the Kernel: it feeds inputs through
// Decide, appends each batch's events to the journal (one fsync for the
// batch), only then publishes them and starts effects, and answers the
// callers. It implements Backend.
type Runner struct {
	cfg     RunnerConfig
	k       *Kernel
	inbox   chan *call
	stopped chan struct{}
	subs    map[*sub]struct{}
	texts   map[string]*textBuf // attempt/key -> pending delta
	order   []string            // text buffer keys in arrival order
	// The one flush timer of the text buffers (runner_text.go): it fires
	// at flushAt; flushGen tells its call from a stopped one's.
	flushTimer *time.Timer
	flushAt    time.Time
	flushGen   uint64
	timers     map[*time.Timer]struct{}
	snapSeq    uint64 // seq of the newest snapshot written or loaded
	wg         sync.WaitGroup
	mu         sync.Mutex // guards timers
	exited     bool
	// Observations nobody waits on (an effect's outcome, streamed text)
	// that the pending batch decided: if its append fails they are held,
	// and decided again, in order, once the journal takes appends again
	// (a full disk with room made). While some are held, new ones queue
	// behind them.
	unsaved  []Input
	held     []Input
	retrying bool
}

type call struct {
	in       *Input
	get      bool // State
	sub      *sub // Subscribe
	from     uint64
	flushAll uint64 // flush every text buffer (the timer's generation)
	retry    bool   // decide the held observations again
	reply    chan result
	// pending is the result sent once the batch is durable.
	pending result
}

type result struct {
	receipt *Receipt
	state   *State
	seq     uint64
	err     error
}

type textBuf struct {
	obs Observation
	// text accumulates the deltas; obs.Text is set from it at the flush
	// (appending to a string copies it: quadratic in a busy second).
	text strings.Builder
}

// NewRunner loads the newest valid snapshot and replays the journal's tail.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Exec == nil {
		cfg.Exec = func(Effect) {}
	}
	st, snapSeq, err := load(context.Background(), cfg.Journal)
	if err != nil {
		return nil, err
	}
	return &Runner{cfg: cfg, snapSeq: snapSeq, k: NewKernel(st), inbox: make(chan *call, 1024), stopped: make(chan struct{}),
		subs: map[*sub]struct{}{}, texts: map[string]*textBuf{}, timers: map[*time.Timer]struct{}{}}, nil
}

// Load builds the projection from the newest valid snapshot plus the tail.
func Load(ctx context.Context, j Journal) (*State, error) {
	st, _, err := load(ctx, j)
	return st, err
}

// load also returns the seq of the snapshot it started from.
func load(ctx context.Context, j Journal) (*State, uint64, error) {
	st, err := j.LoadSnapshot()
	if err != nil {
		return nil, 0, err
	}
	if st == nil {
		st = NewState()
	}
	snapSeq := st.Seq
	err = j.Read(ctx, st.Seq+1, func(ev Event) error { return st.Apply(&ev) })
	if err != nil {
		return nil, 0, err
	}
	return st, snapSeq, nil
}

// Run owns the kernel until ctx ends. It first reconciles the projection
// with a fresh start (provider processes are gone). On return it has
// flushed streamed text and written a snapshot.
func (r *Runner) Run(ctx context.Context) error {
	defer close(r.stopped)
	r.step(&call{in: &Input{Recover: &Recover{At: r.now(), NoSchedules: r.cfg.NoSchedules, Writer: r.cfg.Writer}}})
	if err := r.commit(nil); err != nil {
		return err
	}
	for {
		var batch []*call
		select {
		case c := <-r.inbox:
			if ctx.Err() != nil {
				// Stopping: an input that races the stop (a provider
				// reporting the end of a turn because the host is closing)
				// is not decided, or a closing host would cancel the very
				// requests and runs the next one resumes. Its caller gets
				// ErrStopped.
				return r.shutdown()
			}
			batch = append(batch, c)
		case <-ctx.Done():
			return r.shutdown()
		}
	drain:
		for len(batch) < 512 {
			select {
			case c := <-r.inbox:
				batch = append(batch, c)
			default:
				break drain
			}
		}
		var answered []*call
		for _, c := range batch {
			// A read sees only durable state: commit what is pending first,
			// so a subscriber's snapshot and its first event never overlap.
			if (c.get || c.sub != nil) && (r.k.HasReady() || len(answered) > 0) {
				if err := r.commit(answered); err != nil {
					return err
				}
				answered = nil
			}
			if r.step(c) {
				answered = append(answered, c)
			}
		}
		if err := r.commit(answered); err != nil {
			return err
		}
	}
}

// step handles one call; it reports whether the call waits for the commit.
func (r *Runner) step(c *call) bool {
	switch {
	case c.get:
		c.reply <- result{state: r.k.State().Clone()}
		return false
	case c.sub != nil:
		r.subs[c.sub] = struct{}{}
		if c.from == 0 {
			c.reply <- result{state: r.k.State().Clone()}
		} else {
			c.reply <- result{seq: r.k.State().Seq}
		}
		return false
	case c.flushAll != 0:
		r.flushAll(c.flushAll)
		return false
	case c.retry:
		held := r.held
		r.held, r.retrying = nil, false
		for i := range held {
			r.stepUnsaved(held[i])
		}
		return false
	}
	in := c.in
	// A timer is an effect's outcome too: held like an observation when
	// an append fails, so no schedule's fire is lost.
	unwaited := (in.Obs != nil || in.Timer != nil) && c.reply == nil
	if unwaited && len(r.held) > 0 {
		r.held = append(r.held, *in) // behind the ones a failed append lost
		return false
	}
	if in.Obs != nil && in.Obs.Kind == ObsText && c.reply == nil && r.bufferText(in.Obs) {
		return false
	}
	if th := inputThread(in); th != "" {
		r.flushThread(th)
	}
	if unwaited {
		r.stepUnsaved(*in)
		return false
	}
	before := len(r.k.Ready().Events)
	rec, err := r.k.Step(*in)
	if c.reply != nil {
		c.rec(rec, err)
		if in.Obs != nil && err == nil && len(r.k.Ready().Events) == before {
			c.pending.err = ErrNotRecorded
		}
	}
	return c.reply != nil
}

func (c *call) rec(rec *Receipt, err error) { c.pending = result{receipt: rec, err: err} }

// stepUnsaved decides an observation nobody waits on, and remembers it
// until its batch is durable.
func (r *Runner) stepUnsaved(in Input) {
	_, _ = r.k.Step(in)
	r.unsaved = append(r.unsaved, in)
}

// holdUnsaved keeps the observations of a batch whose append failed, to
// decide them again, and schedules that.
func (r *Runner) holdUnsaved(err error) {
	r.held = append(r.unsaved, r.held...)
	r.unsaved = nil
	if len(r.held) == 0 || r.retrying {
		return
	}
	r.retrying = true
	r.publish(Event{Type: EvJournalStalled, At: r.now(), Payload: Payload{Text: err.Error()}})
	every := r.cfg.RetryEvery
	if every <= 0 {
		every = DefaultRetryEvery
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exited {
		return
	}
	var tm *time.Timer
	tm = time.AfterFunc(every, func() {
		r.mu.Lock()
		delete(r.timers, tm)
		r.mu.Unlock()
		_ = r.post(contextBackground, &call{retry: true})
	})
	r.timers[tm] = struct{}{}
}

func inputThread(in *Input) string {
	switch {
	case in.Command != nil:
		return in.Command.Thread
	case in.Obs != nil:
		return in.Obs.Thread
	}
	return ""
}

// commit appends the pending events (one journal call, one fsync), then
// publishes them, starts effects and answers the callers.
func (r *Runner) commit(answered []*call) error {
	if err := r.k.State().SealErr(); err != nil {
		// A decision read a run's history as empty: record nothing of it.
		for _, c := range answered {
			c.reply <- result{err: fmt.Errorf("nothing was recorded: %w", err)}
		}
		return fmt.Errorf("core: %w", err)
	}
	rd := r.k.Ready()
	if len(rd.Events) > 0 {
		if err := r.cfg.Journal.Append(context.Background(), rd.Commits); err != nil {
			// The in-memory state is ahead of the journal: rebuild it from
			// what is durable and tell every caller of this batch.
			st, _, lerr := load(context.Background(), r.cfg.Journal)
			for _, c := range answered {
				c.reply <- result{err: fmt.Errorf("journal append failed, nothing was recorded: %w", err)}
			}
			if lerr != nil {
				return fmt.Errorf("core: journal append failed (%v) and reload failed: %w", err, lerr)
			}
			r.k = NewKernel(st)
			r.holdUnsaved(err)
			return nil
		}
		for _, ev := range rd.Events {
			r.publish(ev)
		}
	}
	r.unsaved = nil
	for _, e := range rd.Effects {
		if e.Kind == EffTimer {
			r.schedule(e)
			continue
		}
		r.cfg.Exec(e)
	}
	for _, c := range answered {
		c.reply <- c.pending
	}
	r.k.Advance()
	if r.k.State().Seq-r.snapSeq >= r.cfg.SnapshotEvery {
		snap := r.k.State().Clone()
		r.snapSeq = snap.Seq
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			_ = r.cfg.Journal.SaveSnapshot(snap) // a failed snapshot only costs replay time
		}()
	}
	return nil
}

func (r *Runner) publish(ev Event) {
	for s := range r.subs {
		if !s.push(ev) {
			delete(r.subs, s)
		}
	}
}

func (r *Runner) schedule(e Effect) {
	d := time.Duration(e.Deadline - r.now())
	key := e.Key
	var tm *time.Timer
	tm = time.AfterFunc(d, func() {
		r.mu.Lock()
		delete(r.timers, tm)
		r.mu.Unlock()
		_ = r.post(context.Background(), &call{in: &Input{Timer: &TimerFired{Key: key, At: r.now()}}})
	})
	r.mu.Lock()
	r.timers[tm] = struct{}{}
	r.mu.Unlock()
}

func (r *Runner) shutdown() error {
	for _, key := range append([]string(nil), r.order...) {
		r.flushText(key)
	}
	if r.flushTimer != nil {
		r.flushTimer.Stop()
	}
	_, _ = r.k.Step(Input{Shutdown: &Recover{At: r.now()}})
	err := r.commit(nil)
	r.mu.Lock()
	r.exited = true
	for tm := range r.timers {
		tm.Stop()
	}
	r.mu.Unlock()
	for s := range r.subs {
		s.end(ErrStopped)
	}
	r.wg.Wait()
	// A clean exit snapshots, unless nothing happened since the last one.
	if st := r.k.State(); st.Seq != r.snapSeq {
		if serr := r.cfg.Journal.SaveSnapshot(st.Clone()); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

func (r *Runner) now() int64 { return r.cfg.Now().UnixNano() }

func (r *Runner) post(ctx context.Context, c *call) error {
	select {
	case r.inbox <- c:
		return nil
	case <-r.stopped:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Runner) roundTrip(ctx context.Context, c *call) (result, error) {
	c.reply = make(chan result, 1)
	if err := r.post(ctx, c); err != nil {
		return result{}, err
	}
	select {
	case res := <-c.reply:
		return res, nil
	case <-r.stopped:
		select {
		case res := <-c.reply:
			return res, nil
		default:
		}
		return result{}, ErrStopped
	case <-ctx.Done():
		return result{}, ctx.Err()
	}
}

// Submit implements Backend. The edge assigns the command id (when the
// client gave none), the time and a new thread id.
func (r *Runner) Submit(ctx context.Context, cmd Command) (*Receipt, error) {
	if cmd.ID == "" {
		cmd.ID = NewID("c")
	}
	cmd.At = r.now()
	if (cmd.Kind == CmdThreadCreate || cmd.Kind == CmdThreadFork) && cmd.NewThread == "" {
		cmd.NewThread = NewID("t")
	}
	if err := cmd.Validate(); err != nil {
		return nil, err
	}
	if err := r.checkEvery(&cmd); err != nil {
		return nil, err
	}
	res, err := r.roundTrip(ctx, &call{in: &Input{Command: &cmd}})
	if err != nil {
		return nil, err
	}
	return res.receipt, res.err
}

// checkEvery refuses a schedule.add whose interval is under the
// Runner's MinScheduleEvery.
func (r *Runner) checkEvery(cmd *Command) error {
	if cmd.Kind != CmdScheduleAdd {
		return nil
	}
	least := r.cfg.MinScheduleEvery
	if least <= 0 {
		least = DefaultMinScheduleEvery
	}
	if sp, _ := ParseSpec(cmd.NewSchedule.Spec); sp.Every > 0 && sp.Every < least {
		return refuse("schedule %q fires too often: this host takes every %v or more; %s", cmd.NewSchedule.Spec, least, SpecHelp)
	}
	return nil
}

// Observe feeds a provider observation to the kernel. It blocks only while
// the inbox is full.
func (r *Runner) Observe(ctx context.Context, o Observation) error {
	if o.At == 0 {
		o.At = r.now()
	}
	return r.post(ctx, &call{in: &Input{Obs: &o}})
}

// ErrNotRecorded is returned by Record when the kernel dropped the
// observation: its attempt is no longer current (interrupted, superseded)
// or the run ended. The caller must not act as if it were journaled.
var ErrNotRecorded = errors.New("core: observation not recorded: the attempt is no longer current")

// Record feeds an observation and returns once its events are durable. A
// provider uses it for the first phase of a two-phase effect: the step
// runs only after its start is in the journal.
func (r *Runner) Record(ctx context.Context, o Observation) error {
	if o.At == 0 {
		o.At = r.now()
	}
	res, err := r.roundTrip(ctx, &call{in: &Input{Obs: &o}})
	if err != nil {
		return err
	}
	return res.err
}

// State implements Backend.
func (r *Runner) State(ctx context.Context) (*State, error) {
	res, err := r.roundTrip(ctx, &call{get: true})
	if err != nil {
		return nil, err
	}
	return res.state, nil
}

// Subscribe implements Backend.
func (r *Runner) Subscribe(ctx context.Context, from uint64) (*Subscription, error) {
	s := newSub()
	res, err := r.roundTrip(ctx, &call{sub: s, from: from})
	if err != nil {
		return nil, err
	}
	var history func(func(Event) error) error
	if from > 0 && from <= res.seq {
		upto := res.seq
		history = func(send func(Event) error) error {
			err := r.cfg.Journal.Read(ctx, from, func(ev Event) error {
				if ev.Seq > upto {
					return errStopRead
				}
				return send(ev)
			})
			if errors.Is(err, errStopRead) {
				return nil
			}
			return err
		}
	}
	go s.pump(ctx, history)
	return &Subscription{State: res.state, Events: s.out, Err: s.errFunc()}, nil
}

var errStopRead = errors.New("stop")

// NewID returns a short random id with a prefix, e.g. t3f9a2c.
func NewID(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])[:7]
}
