package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// Reads copy a chunk of events out of a short read transaction and work
// on the copy after it closes. A bbolt reader does not block writers, but
// a writer that must grow the memory map waits for every open reader, so
// a reader that held one transaction through a slow consumer could stall
// appends for as long as it reads.
const (
	chunkEvents = 4096
	chunkBytes  = 4 << 20
)

var errPastEnd = errors.New("read starts past the end")

// rawEvent is one stored event copied out of a transaction: its value is
// one string (chain hash || encoded event), so the decoded event's strings
// share that single copy.
type rawEvent struct {
	seq   uint64
	value string
}

func (e *rawEvent) hash() string { return e.value[:hashSize] }
func (e *rawEvent) data() string { return e.value[hashSize:] }

// chunk is a run of consecutive events; err, if set, applies right after
// the last of them.
type chunk struct {
	events []rawEvent
	err    error
}

// walk calls fn with every stored event from seq from on, in order. It
// checks that seqs are gapless; with verify it also checks each stored hash
// against BLAKE3(previous hash || encoded event), starting from the stored
// hash of from-1. The copying and hashing run on a second goroutine, one
// chunk ahead of fn, so replay uses two cores; walk stops and waits for it
// before returning.
func (s *Store) walk(ctx context.Context, from uint64, verify bool, fn func(*rawEvent) error) error {
	if from == 0 {
		from = 1
	}
	chunks := make(chan chunk, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(chunks)
		s.produce(ctx, from, verify, chunks, stop)
	}()
	defer func() {
		close(stop)
		<-done
	}()
	for c := range chunks {
		for i := range c.events {
			if err := fn(&c.events[i]); err != nil {
				return err
			}
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// produce feeds walk: it copies chunks out of read transactions and checks
// seqs and hashes, until the end, an error, or stop.
func (s *Store) produce(ctx context.Context, from uint64, verify bool, out chan<- chunk, stop <-chan struct{}) {
	var prev [hashSize]byte
	h := blake3.New()
	send := func(c chunk) bool {
		select {
		case out <- c:
			return true
		case <-stop:
			return false
		}
	}
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			send(chunk{err: err})
			return
		}
		evs, err := s.copyChunk(from, first && verify, &prev)
		if err == errPastEnd {
			return
		}
		if err != nil {
			send(chunk{err: err})
			return
		}
		for i := range evs {
			ev := &evs[i]
			switch {
			case ev.seq != from:
				err = corrupt(from, "event is missing (the next stored seq is %d)", ev.seq)
			case len(ev.value) < hashSize:
				err = corrupt(from, "value is shorter than its hash")
			case verify:
				h.Reset()
				h.Write(prev[:])
				h.WriteString(ev.data())
				h.Sum(prev[:0])
				if string(prev[:]) != ev.hash() {
					err = corrupt(from, "hash does not chain (stored %x, computed %x)", ev.hash()[:6], prev[:6])
				}
			}
			if err != nil {
				send(chunk{events: evs[:i], err: err})
				return
			}
			from++
		}
		if len(evs) == 0 || !send(chunk{events: evs}) {
			return
		}
	}
}

// copyChunk copies up to a chunk of events from seq from on out of one
// read transaction. With needPrev it first loads the stored hash of
// from-1 into prev.
func (s *Store) copyChunk(from uint64, needPrev bool, prev *[hashSize]byte) ([]rawEvent, error) {
	var evs []rawEvent
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		if needPrev && from > 1 {
			v := b.Get(seqKey(from - 1))
			if k, _ := b.Cursor().Last(); v == nil && (k == nil || seqOf(k) < from-1) {
				return errPastEnd // nothing stored at or after from
			}
			if len(v) < hashSize {
				return corrupt(from-1, "event is missing or shorter than its hash")
			}
			copy(prev[:], v)
		}
		size := 0
		c := b.Cursor()
		for k, v := c.Seek(seqKey(from)); k != nil && len(evs) < chunkEvents && size < chunkBytes; k, v = c.Next() {
			if len(k) != 8 {
				return corrupt(from+uint64(len(evs)), "malformed key %x in the events bucket", k)
			}
			if evs == nil {
				evs = make([]rawEvent, 0, 256)
			}
			evs = append(evs, rawEvent{seq: seqOf(k), value: string(v)})
			size += len(v)
		}
		return nil
	})
	return evs, err
}

// view is db.View that fails with ErrClosed after Close (which waits for
// it) and turns a bbolt panic or a fault in the mapped file (see
// guard.go) into a *DamagedError, so a damaged page is an error, not a
// crash.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	err := s.viewRaw(fn)
	if bp, ok := err.(*bboltPanic); ok {
		return s.damagedPage(bp)
	}
	return err
}

func (s *Store) viewRaw(fn func(*bolt.Tx) error) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return guard(func() error { return s.db.View(fn) })
}

// damagedPage names the page bbolt panicked on, by walking every page:
// the same reason Verify gives, instead of bbolt's assertion.
func (s *Store) damagedPage(bp *bboltPanic) error {
	if problem, err := s.walkPages(true); err == nil && problem != "" {
		return damaged(s.path, "%s", problem)
	}
	return damaged(s.path, "%v", bp)
}

// Read calls fn for every event with seq >= from, in order, until fn
// returns an error or the end is reached. It implements core.Journal. It
// verifies the hash chain from the stored hash of seq from-1 and returns a
// *CorruptError at the first event that does not chain, does not decode,
// or is missing. Events appended while Read runs may or may not be seen.
func (s *Store) Read(ctx context.Context, from uint64, fn func(core.Event) error) error {
	if err := failpoint.Err("store.read"); err != nil {
		return fmt.Errorf("store: read the journal: %w", err)
	}
	return s.read(ctx, from, true, fn)
}

// read is Read with the hash check optional (benchmarks measure the
// difference). It runs three stages, each on its own goroutine and a chunk
// ahead of the next: copy and hash (produce), decode (decodeChunks), and
// fn on the caller's goroutine, so a replay keeps two cores busy.
func (s *Store) read(ctx context.Context, from uint64, verify bool, fn func(core.Event) error) error {
	if from == 0 {
		from = 1
	}
	raws := make(chan chunk, 1)
	decoded := make(chan decodedChunk, 1)
	free := make(chan []core.Event, 2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(raws)
		s.produce(ctx, from, verify, raws, stop)
	}()
	go func() {
		defer wg.Done()
		defer close(decoded)
		decodeChunks(raws, decoded, free, stop)
	}()
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for c := range decoded {
		for i := range c.events {
			if err := fn(c.events[i]); err != nil {
				return err
			}
		}
		if c.err != nil {
			return c.err
		}
		select {
		case free <- c.events:
		default:
		}
	}
	return nil
}

// decodedChunk is a chunk after decoding; err applies after its events.
type decodedChunk struct {
	events []core.Event
	err    error
}

// decodeChunks decodes the chunks of produce in order, reusing event
// slices the consumer hands back on free.
func decodeChunks(in <-chan chunk, out chan<- decodedChunk, free <-chan []core.Event, stop <-chan struct{}) {
	for c := range in {
		var evs []core.Event
		select {
		case evs = <-free:
		default:
			evs = make([]core.Event, 0, chunkEvents)
		}
		d := decodedChunk{events: evs[:0], err: c.err}
		for i := range c.events {
			raw := &c.events[i]
			d.events = append(d.events, core.Event{})
			ev := &d.events[len(d.events)-1]
			err := decodeEvent(raw.data(), ev)
			if err == nil && ev.Seq != raw.seq {
				err = fmt.Errorf("it is stored under seq %d but says %d", raw.seq, ev.Seq)
			}
			if err != nil {
				d.events = d.events[:len(d.events)-1]
				d.err = corrupt(raw.seq, "event does not decode: %v", err)
				break
			}
		}
		select {
		case out <- d:
		case <-stop:
			return
		}
		if d.err != nil {
			return
		}
	}
}

// hashAt returns the stored chain hash of seq (zero for seq 0).
func hashAt(events *bolt.Bucket, seq uint64) ([hashSize]byte, error) {
	var h [hashSize]byte
	if seq == 0 {
		return h, nil
	}
	v := events.Get(seqKey(seq))
	if len(v) < hashSize {
		return h, fmt.Errorf("no event at seq %d", seq)
	}
	copy(h[:], v)
	return h, nil
}
