package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"runtime"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// maxBatch bounds how many requests one transaction takes, so one fsync
// never waits behind an unbounded amount of writing.
const maxBatch = 1024

// Pending is an Enqueue'd batch on its way to disk.
type Pending struct {
	first  uint64   // seq of the first event
	values [][]byte // chain hash (filled by the commit loop) || encoded event
	done   chan struct{}
	err    error
}

// Wait blocks until the batch is durable (nil) or failed; nothing of a
// failed batch is visible. It may be called any number of times.
func (p *Pending) Wait() error {
	<-p.done
	return p.err
}

func (p *Pending) finish(err error) {
	p.err = err
	close(p.done)
}

// Append writes commits durably: it returns nil only after the events are
// fsynced. It implements core.Journal. Events must carry the journal's
// next seqs in order (else core.ErrSeqMismatch, nothing written).
//
// Once the batch is handed to the commit loop Append waits for the
// outcome even if ctx ends, because the events may already be durable and
// the caller has to know.
func (s *Store) Append(ctx context.Context, commits []core.Commit) error {
	p, err := s.Enqueue(ctx, commits)
	if err != nil {
		return err
	}
	return p.Wait()
}

// Enqueue encodes commits, hands them to the commit loop and returns
// without waiting for the disk. Batches are committed in Enqueue order,
// so concurrent producers assign seqs and call Enqueue under one lock of
// their own, then Wait outside it: that is how many appenders share one
// fsync (the group commit) without any of them blocking the others.
func (s *Store) Enqueue(ctx context.Context, commits []core.Commit) (*Pending, error) {
	p := &Pending{done: make(chan struct{})}
	for ci := range commits {
		evs := commits[ci].Events
		for i := range evs {
			ev := &evs[i]
			if len(p.values) == 0 {
				p.first = ev.Seq
			} else if want := p.first + uint64(len(p.values)); ev.Seq != want {
				return nil, fmt.Errorf("store: %w: the batch jumps from seq %d to %d (a caller bug)", core.ErrSeqMismatch, want-1, ev.Seq)
			}
			v := make([]byte, hashSize, hashSize+384)
			p.values = append(p.values, appendEvent(v, ev))
		}
	}
	if len(p.values) == 0 {
		p.finish(nil)
		return p, nil
	}
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	select {
	case s.reqs <- p:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// commitLoop is the one goroutine that writes events. It takes every
// request that is waiting, writes them in one transaction (one fsync pair)
// and only then answers each. It returns after Close, once the queue is
// empty.
func (s *Store) commitLoop() {
	defer close(s.done)
	batch := make([]*Pending, 0, 64)
	prev := 0
	for {
		var p *Pending
		select {
		case p = <-s.reqs:
		case <-s.quit:
			select {
			case p = <-s.reqs:
			default:
				return
			}
		}
		batch = append(batch[:0], p)
		s.gather(prev)
	drain:
		for len(batch) < maxBatch {
			select {
			case p = <-s.reqs:
				batch = append(batch, p)
			default:
				break drain
			}
		}
		prev = len(batch)
		s.commit(batch)
		clear(batch)
	}
}

// gatherWindow bounds how long the commit loop waits for a batch to
// fill; an fsync takes a few hundred microseconds, so this is small.
const gatherWindow = 100 * time.Microsecond

// gather gives appenders just woken by the previous commit the chance to
// queue their next batch before this commit starts. Alone (prev == 1) it
// only yields once, which costs nothing when nobody else is ready; under
// load it waits, yielding, until as many requests as last time are queued
// or gatherWindow passes, which keeps batches large instead of letting
// them alternate between large and tiny.
func (s *Store) gather(prev int) {
	runtime.Gosched()
	if prev <= 1 {
		return
	}
	deadline := time.Now().Add(gatherWindow)
	for len(s.reqs)+1 < prev && time.Now().Before(deadline) {
		runtime.Gosched()
	}
}

// commit validates seqs, chains hashes and writes one transaction.
func (s *Store) commit(batch []*Pending) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.failed != nil {
		for _, p := range batch {
			p.finish(s.failed)
		}
		return
	}
	next, hash := s.last.Load()+1, s.lastHash
	ok := make([]*Pending, 0, len(batch))
	h := blake3.New()
	for _, p := range batch {
		if p.first != next {
			p.finish(fmt.Errorf("store: %w: got seq %d, the journal's next is %d", core.ErrSeqMismatch, p.first, next))
			continue
		}
		for _, v := range p.values {
			h.Reset()
			h.Write(hash[:])
			h.Write(v[hashSize:])
			h.Sum(v[:0])
			copy(hash[:], v[:hashSize])
		}
		next += uint64(len(p.values))
		ok = append(ok, p)
	}
	if len(ok) == 0 {
		return
	}
	last := next - 1
	err := s.write(ok, last, hash)
	if err == nil {
		s.last.Store(last)
		s.lastHash = hash
		s.stats.commits.Add(1)
		s.stats.requests.Add(uint64(len(ok)))
		s.stats.events.Add(last - ok[0].first + 1)
	}
	for _, p := range ok {
		p.finish(err)
	}
}

// write puts the batch and meta/last in one bbolt transaction.
func (s *Store) write(batch []*Pending, last uint64, hash [hashSize]byte) error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("store: begin journal transaction: %w", err)
	}
	err = guard(func() error { return putBatch(tx, batch, last, hash) })
	if err == nil && s.beforeCommit != nil {
		err = s.beforeCommit(tx)
	}
	var bp *bboltPanic
	if errors.As(err, &bp) {
		// bbolt met a damaged page on the way to the tail: nothing
		// reached the file, but no later append can do better.
		_ = guard(tx.Rollback)
		s.failed = damaged(s.path, "%v", bp)
		return s.failed
	}
	if err != nil {
		// Nothing reached the file yet: the journal is unchanged and the
		// callers may retry.
		_ = tx.Rollback()
		return fmt.Errorf("store: journal write failed, nothing was recorded: %w", err)
	}
	failpoint.Hit("store.commit.before")
	if err := failpoint.Err("store.append"); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("store: journal commit failed, nothing was acknowledged: %w", err)
	}
	if err := guard(tx.Commit); err != nil {
		if errors.As(err, &bp) {
			s.failed = damaged(s.path, "%v", bp)
			return s.failed
		}
		s.checkAfterFailedCommit()
		return fmt.Errorf("store: journal commit failed, nothing was acknowledged: %w", err)
	}
	failpoint.Hit("store.commit.after")
	return nil
}

func putBatch(tx *bolt.Tx, batch []*Pending, last uint64, hash [hashSize]byte) error {
	events := tx.Bucket(bucketEvents)
	// Seqs only grow, so pages split full (docs/ARCHITECTURE.md, "The
	// journal"; store/doc.go, "Buckets").
	events.FillPercent = 1.0
	var key [8]byte
	for _, p := range batch {
		for i, v := range p.values {
			putSeq(key[:], p.first+uint64(i))
			if err := events.Put(key[:], v); err != nil {
				return err
			}
		}
	}
	return tx.Bucket(bucketMeta).Put(keyLast, encodeLast(last, hash))
}

func putSeq(k []byte, seq uint64) {
	for i := 7; i >= 0; i-- {
		k[i] = byte(seq)
		seq >>= 8
	}
}

// checkAfterFailedCommit runs after bbolt's Commit failed (a write or an
// fsync error, such as a full disk). If the data pages failed, bbolt
// rolled back and the journal is as before: appends may be retried. If the
// meta page was written but its fsync failed, bbolt may now see the
// transaction that the callers were told failed; then nothing the store
// believes about the tail can be trusted and it refuses further appends
// until a restart reloads the durable state.
func (s *Store) checkAfterFailedCommit() {
	var last uint64
	var hash [hashSize]byte
	err := guard(func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			var ok bool
			last, hash, ok = parseLast(tx.Bucket(bucketMeta).Get(keyLast))
			if !ok {
				return corrupt(0, "meta/last is malformed")
			}
			return nil
		})
	})
	if err != nil || last != s.last.Load() || !bytes.Equal(hash[:], s.lastHash[:]) {
		s.failed = ErrFailed
	}
}
