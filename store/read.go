package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/nexus-tui/nexus/core"
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

// rawEvent is one stored event copied out of a transaction.
type rawEvent struct {
	seq   uint64
	value []byte // chain hash || encoded event, as stored
}

// walk calls fn with every stored event from seq from on, in order. It
// checks that seqs are gapless; with verify it also checks each stored hash
// against BLAKE3(previous hash || encoded event), starting from the
// stored hash of from-1. fn gets the value's encoded event (valid only
// during the call) and its stored hash.
func (s *Store) walk(ctx context.Context, from uint64, verify bool, fn func(seq uint64, hash, data []byte) error) error {
	if from == 0 {
		from = 1
	}
	var prev [hashSize]byte
	first := true
	var chunk []rawEvent
	var arena []byte
	h := blake3.New()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, arena = chunk[:0], arena[:0]
		err := s.view(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketEvents)
			if first && from > 1 && verify {
				v := b.Get(seqKey(from - 1))
				if k, _ := b.Cursor().Last(); v == nil && (k == nil || seqOf(k) < from-1) {
					return errPastEnd // nothing stored at or after from
				}
				if len(v) < hashSize {
					return corrupt(from-1, "event is missing or shorter than its hash")
				}
				copy(prev[:], v)
			}
			c := b.Cursor()
			for k, v := c.Seek(seqKey(from)); k != nil && len(chunk) < chunkEvents && len(arena) < chunkBytes; k, v = c.Next() {
				if len(k) != 8 {
					return corrupt(from, "malformed key %x in the events bucket", k)
				}
				start := len(arena)
				arena = append(arena, v...)
				chunk = append(chunk, rawEvent{seq: seqOf(k), value: arena[start:len(arena):len(arena)]})
			}
			return nil
		})
		first = false
		if err == errPastEnd {
			return nil
		}
		if ce, ok := err.(*CorruptError); ok && ce.Seq == 0 {
			ce.Seq = from // a bbolt panic somewhere in this chunk
		}
		if err != nil {
			return err
		}
		// The arena may have moved while it grew; re-slice from offsets.
		fixArena(chunk, arena)
		for i := range chunk {
			ev := &chunk[i]
			if ev.seq != from {
				return corrupt(from, "event is missing (the next stored seq is %d)", ev.seq)
			}
			if len(ev.value) < hashSize {
				return corrupt(from, "value is shorter than its hash")
			}
			hash, data := ev.value[:hashSize], ev.value[hashSize:]
			if verify {
				h.Reset()
				h.Write(prev[:])
				h.Write(data)
				h.Sum(prev[:0])
				if !bytes.Equal(prev[:], hash) {
					return corrupt(from, "hash does not chain (stored %x, computed %x)", hash[:6], prev[:6])
				}
			}
			if err := fn(from, hash, data); err != nil {
				return err
			}
			from++
		}
		if len(chunk) == 0 || (len(chunk) < chunkEvents && len(arena) < chunkBytes) {
			return nil
		}
	}
}

// fixArena points every value into the final arena: values appended
// before the arena's last reallocation still point into an old copy,
// which holds the same bytes, but re-slicing keeps one live buffer.
func fixArena(chunk []rawEvent, arena []byte) {
	off := 0
	for i := range chunk {
		n := len(chunk[i].value)
		chunk[i].value = arena[off : off+n : off+n]
		off += n
	}
}

// view is db.View that fails with ErrClosed after Close (which waits for
// it) and turns a bbolt panic (it panics on some damaged pages) into a
// CorruptError, so a damaged file is an error, not a crash.
func (s *Store) view(fn func(*bolt.Tx) error) (err error) {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	defer func() {
		if p := recover(); p != nil {
			err = corrupt(0, "bbolt: %v", p)
		}
	}()
	return s.db.View(fn)
}

// Read calls fn for every event with seq >= from, in order, until fn
// returns an error or the end is reached. It implements core.Journal. It
// verifies the hash chain from the stored hash of seq from-1 and returns a
// *CorruptError at the first event that does not chain, does not decode,
// or is missing. Events appended while Read runs may or may not be seen.
func (s *Store) Read(ctx context.Context, from uint64, fn func(core.Event) error) error {
	return s.read(ctx, from, true, fn)
}

func (s *Store) read(ctx context.Context, from uint64, verify bool, fn func(core.Event) error) error {
	var ev core.Event
	return s.walk(ctx, from, verify, func(seq uint64, _, data []byte) error {
		if err := decodeEvent(data, &ev); err != nil {
			return corrupt(seq, "event does not decode: %v", err)
		}
		if ev.Seq != seq {
			return corrupt(seq, "event is stored under seq %d but says %d", seq, ev.Seq)
		}
		return fn(ev)
	})
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
