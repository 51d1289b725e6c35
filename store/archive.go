package store

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// Archive format (see doc.go). Part of the on-disk format.
const (
	// ArchiveHeader is the first line of an export.
	ArchiveHeader = "nexus-journal-archive 1\n"
	// maxFrame bounds one archive frame, so a damaged length cannot make
	// Import allocate without limit. Events are far smaller.
	maxFrame = 64 << 20
)

// Export writes the journal as a portable archive: the ArchiveHeader line,
// then one frame per event in seq order, then an end frame. A frame is a
// 4-byte big-endian length followed by that many bytes of msgpack: an
// event frame is the array [seq, chain hash (bin 32), encoded event (bin)],
// the end frame is [event count, last chain hash (bin 32)]. The event
// bytes are exactly the stored ones, so the archive carries the chain and
// Import re-verifies it. Snapshots are not exported; Import replays.
// Export verifies as it reads and fails with a *CorruptError at the first
// bad event, having written a prefix without an end frame. Appends may go
// on meanwhile; the archive ends at whatever seq it reached.
func (s *Store) Export(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(ArchiveHeader); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	var count uint64
	var last [hashSize]byte
	e := &enc{}
	err := s.walk(ctx, 1, true, func(ev *rawEvent) error {
		e.b = append(e.b[:0], 0, 0, 0, 0)
		e.arrayLen(3)
		e.uint(ev.seq)
		e.bin(ev.hash())
		e.bin(ev.data())
		if len(e.b)-4 > maxFrame {
			// Import refuses such a frame: refuse it here, before an
			// archive that can never be read back is written.
			return fmt.Errorf("event %d is %d bytes, over the %d bytes an archive frame holds (Import would refuse the archive); nothing past event %d is exported",
				ev.seq, len(ev.data()), maxFrame, ev.seq-1)
		}
		count = ev.seq
		copy(last[:], ev.hash())
		return writeFrame(bw, e.b)
	})
	if err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	e.b = append(e.b[:0], 0, 0, 0, 0)
	e.arrayLen(2)
	e.uint(count)
	e.bin(string(last[:]))
	if err := writeFrame(bw, e.b); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("store: export: %w", err)
	}
	return nil
}

// writeFrame fills the 4 bytes reserved at the start of b with the length
// of the rest and writes it.
func writeFrame(w io.Writer, b []byte) error {
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	_, err := w.Write(b)
	return err
}

// Import reads an archive written by Export into this journal, which must
// be empty (no events, no snapshots; else ErrNotEmpty). It checks the
// header, that seqs run from 1 without a gap, that every hash chains and
// every event decodes, and that the end frame matches, and it writes
// everything in one transaction: on any failure nothing is written. That
// transaction holds the whole archive in memory, about twice its size.
// It returns the number of events imported.
func (s *Store) Import(ctx context.Context, r io.Reader) (uint64, error) {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return 0, ErrClosed
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.failed != nil {
		return 0, s.failed
	}
	var n uint64
	var hash [hashSize]byte
	err := guard(func() error {
		return s.db.Update(func(tx *bolt.Tx) error {
			if s.last.Load() != 0 || !emptyBucket(tx, bucketEvents) || !emptyBucket(tx, bucketSnapshots) {
				return ErrNotEmpty
			}
			var err error
			n, hash, err = importFrames(ctx, bufio.NewReaderSize(r, 1<<20), tx)
			return err
		})
	})
	if bp, ok := err.(*bboltPanic); ok {
		return 0, damaged(s.path, "%v", bp)
	}
	if err != nil {
		return 0, err
	}
	s.last.Store(n)
	s.lastHash = hash
	return n, nil
}

func emptyBucket(tx *bolt.Tx, name []byte) bool {
	k, _ := tx.Bucket(name).Cursor().First()
	return k == nil
}

func importFrames(ctx context.Context, br *bufio.Reader, tx *bolt.Tx) (uint64, [hashSize]byte, error) {
	var prev [hashSize]byte
	header := make([]byte, len(ArchiveHeader))
	if _, err := io.ReadFull(br, header); err != nil || string(header) != ArchiveHeader {
		return 0, prev, badArchive(0, "the file does not start with %q", ArchiveHeader[:len(ArchiveHeader)-1])
	}
	events := tx.Bucket(bucketEvents)
	events.FillPercent = 1.0
	h := blake3.New()
	var ev core.Event
	var lenBuf [4]byte
	for frame := uint64(1); ; frame++ {
		if frame%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, prev, err
			}
		}
		if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
			return 0, prev, badArchive(frame, "the archive ends without its end frame (truncated?)")
		}
		size := binary.BigEndian.Uint32(lenBuf[:])
		if size > maxFrame {
			return 0, prev, badArchive(frame, "frame length %d exceeds %d", size, maxFrame)
		}
		buf := make([]byte, size)
		if _, err := io.ReadFull(br, buf); err != nil {
			return 0, prev, badArchive(frame, "the archive ends inside a frame (truncated?)")
		}
		rd := &reader{s: string(buf)}
		fields, _ := rd.arrayLen()
		switch {
		case rd.err == nil && fields == 3:
			seq, hash, data := rd.uint(), rd.str(), rd.str()
			if err := rd.done(); err != nil {
				return 0, prev, badArchive(frame, "%v", err)
			}
			if seq != frame {
				return 0, prev, badArchive(frame, "holds seq %d, want %d", seq, frame)
			}
			h.Reset()
			h.Write(prev[:])
			h.WriteString(data)
			h.Sum(prev[:0])
			if hash != string(prev[:]) {
				return 0, prev, badArchive(frame, "the hash of seq %d does not chain", seq)
			}
			if err := decodeEvent(data, &ev); err != nil || ev.Seq != seq {
				return 0, prev, badArchive(frame, "seq %d does not decode to an event with that seq (%v)", seq, err)
			}
			value := make([]byte, 0, hashSize+len(data))
			value = append(append(value, prev[:]...), data...)
			if err := events.Put(seqKey(seq), value); err != nil {
				return 0, prev, fmt.Errorf("store: import: %w", err)
			}
		case rd.err == nil && fields == 2:
			count, last := rd.uint(), rd.str()
			if err := rd.done(); err != nil {
				return 0, prev, badArchive(frame, "%v", err)
			}
			if count != frame-1 || last != string(prev[:]) {
				return 0, prev, badArchive(frame, "the end frame says %d events, the archive holds %d (or the last hash differs)", count, frame-1)
			}
			if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
				return 0, prev, badArchive(frame, "data after the end frame")
			}
			return count, prev, tx.Bucket(bucketMeta).Put(keyLast, encodeLast(count, prev))
		default:
			return 0, prev, badArchive(frame, "not an event or end frame")
		}
	}
}
