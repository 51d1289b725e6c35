package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Journal is the durable, append-only event log the Runner writes through.
// It is small on purpose so a second backend (a NATS JetStream team mode)
// fits behind it: append a batch of commits, read from a seq, snapshots.
//
// Append must return only after the events are durable (fsync). Events carry
// their Seq, which must be the journal's last seq + 1, + 2, ... in order;
// a mismatch returns ErrSeqMismatch and writes nothing.
type Journal interface {
	Append(ctx context.Context, commits []Commit) error
	// Last returns the highest durable seq (0 when empty).
	Last() uint64
	// Read calls fn for every event with seq >= from, in order, until fn
	// returns an error or the end is reached.
	Read(ctx context.Context, from uint64, fn func(Event) error) error
	// SaveSnapshot durably stores the projection at st.Seq.
	SaveSnapshot(st *State) error
	// LoadSnapshot returns the newest valid snapshot, or nil if none.
	LoadSnapshot() (*State, error)
}

// Commit is one input's events. Command is the client command id (the
// dedupe key), empty for provider observations and timers.
type Commit struct {
	Command string
	Events  []Event
}

// ErrSeqMismatch is returned by Append when the first event's seq does not
// follow the journal's last seq.
var ErrSeqMismatch = errors.New("core: event seq does not follow the journal")

// MemJournal is an in-memory Journal for tests. It is safe for concurrent use.
type MemJournal struct {
	mu     sync.Mutex
	events []Event
	snap   *State
	// FailAppend, when set, makes the next Append fail with it (then clears).
	FailAppend error
}

// Append implements Journal.
func (j *MemJournal) Append(ctx context.Context, commits []Commit) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.FailAppend; err != nil {
		j.FailAppend = nil
		return err
	}
	next := uint64(len(j.events)) + 1
	for _, c := range commits {
		for _, ev := range c.Events {
			if ev.Seq != next {
				return fmt.Errorf("%w: got %d want %d", ErrSeqMismatch, ev.Seq, next)
			}
			next++
		}
	}
	for _, c := range commits {
		j.events = append(j.events, c.Events...)
	}
	return nil
}

// Last implements Journal.
func (j *MemJournal) Last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return uint64(len(j.events))
}

// Read implements Journal.
func (j *MemJournal) Read(ctx context.Context, from uint64, fn func(Event) error) error {
	j.mu.Lock()
	evs := j.events
	j.mu.Unlock()
	if from == 0 {
		from = 1
	}
	for i := from - 1; i < uint64(len(evs)); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// SaveSnapshot implements Journal.
func (j *MemJournal) SaveSnapshot(st *State) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.snap = st.Clone()
	return nil
}

// LoadSnapshot implements Journal.
func (j *MemJournal) LoadSnapshot() (*State, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.snap == nil {
		return nil, nil
	}
	return j.snap.Clone(), nil
}
