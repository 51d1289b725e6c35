package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/nexus-tui/nexus/internal/failpoint"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
	bolt "go.etcd.io/bbolt"
)

// Snapshot value layout (big-endian). Part of the on-disk format.
//
//	[0:8]   snapMagic
//	[8:12]  snapVersion
//	[12:20] seq the snapshot covers (equals the key)
//	[20:52] chain hash of the event at seq (zero for seq 0)
//	[52:84] BLAKE3-256 of the body
//	[84:92] body length
//	[92:]   body: EncodeState of the projection at seq
const (
	snapMagic      = "nexussnp" // part of the on-disk format
	snapVersion    = 2          // part of the on-disk format; 2 adds "sealed" to the body
	snapVersionMin = 1          // the oldest body version this nexus reads
	snapHeaderSize = 92         // part of the on-disk format
	// SnapshotsKept is how many snapshots SaveSnapshot keeps; older ones
	// are deleted in the same transaction. Part of the on-disk format.
	SnapshotsKept = 2
)

// SaveSnapshot durably stores the projection st at st.Seq, which must be
// an appended seq, and deletes all but the newest SnapshotsKept
// snapshots. It implements core.Journal. st must not change during the
// call (the Runner passes a Clone); the encoding happens before the write
// transaction, so appends wait only for the write itself.
//
// When to snapshot is the caller's policy: the Runner snapshots at least
// every 10,000 events (core.DefaultSnapshotEvery) and on clean exit, which
// bounds the replay after a crash.
func (s *Store) SaveSnapshot(st *core.State) error {
	body, blobs, err := encodeState(st)
	if err != nil {
		return err
	}
	sum := blake3.Sum256(body)
	val := make([]byte, snapHeaderSize, snapHeaderSize+len(body))
	copy(val, snapMagic)
	binary.BigEndian.PutUint32(val[8:], snapVersion)
	binary.BigEndian.PutUint64(val[12:], st.Seq)
	copy(val[52:84], sum[:])
	binary.BigEndian.PutUint64(val[84:], uint64(len(body)))
	val = append(val, body...)

	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	failpoint.Hit("store.snapshot.before")
	defer failpoint.Hit("store.snapshot.after")
	err = guard(func() error {
		return s.db.Update(func(tx *bolt.Tx) error {
			chain, err := hashAt(tx.Bucket(bucketEvents), st.Seq)
			if err != nil {
				return fmt.Errorf("store: cannot snapshot seq %d: %v; snapshot only appended state (a caller bug)", st.Seq, err)
			}
			copy(val[20:52], chain[:])
			if err := putSealed(tx, blobs); err != nil {
				return err
			}
			snaps := tx.Bucket(bucketSnapshots)
			if err := snaps.Put(seqKey(st.Seq), val); err != nil {
				return fmt.Errorf("store: save snapshot: %w", err)
			}
			return pruneSnapshots(snaps, SnapshotsKept)
		})
	})
	if bp, ok := err.(*bboltPanic); ok {
		return damaged(s.path, "%v", bp)
	}
	return err
}

// pruneSnapshots deletes all but the newest keep snapshots.
func pruneSnapshots(snaps *bolt.Bucket, keep int) error {
	var old [][]byte
	c := snaps.Cursor()
	n := 0
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		if n++; n > keep {
			old = append(old, append([]byte(nil), k...))
		}
	}
	for _, k := range old {
		if err := snaps.Delete(k); err != nil {
			return fmt.Errorf("store: delete old snapshot: %w", err)
		}
	}
	return nil
}

// LoadSnapshot returns the newest snapshot that verifies, falling back to
// an older one, or nil if none does. It implements core.Journal. A
// snapshot verifies when its body hashes to the recorded BLAKE3, its
// recorded chain hash equals the stored hash of the event at its seq (so
// it belongs to this journal's history), and its body decodes. The body
// is hashed on a second goroutine while it decodes: a large projection
// takes as long to hash as to copy, and the result is only used if both
// succeed. The garbage collector is paused meanwhile (gcpause.go).
func (s *Store) LoadSnapshot() (*core.State, error) {
	pauseGC()
	defer resumeGC()
	var st *core.State
	err := s.view(func(tx *bolt.Tx) error {
		events := tx.Bucket(bucketEvents)
		c := tx.Bucket(bucketSnapshots).Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			body, err := checkSnapshotHeader(events, k, v)
			if err != nil {
				continue
			}
			hashed := make(chan error, 1)
			go func() { hashed <- checkSnapshotBody(seqOf(k), v) }()
			got, err := DecodeState(body)
			// Wait even on error: the goroutine reads v, which is only
			// valid inside this transaction.
			if herr := <-hashed; herr == nil && err == nil && got.Seq == seqOf(k) {
				s.attachSeals(got)
				st = got
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// attachSeals makes the seals of a decoded state read this store's vault.
func (s *Store) attachSeals(st *core.State) {
	for _, sl := range st.Sealed {
		ref := sl.Ref
		sl.Load = func() (*core.SealedRun, error) { return s.loadSealed(ref) }
	}
}

// checkSnapshot verifies a stored snapshot completely and returns its body
// (valid only inside the transaction).
func checkSnapshot(events *bolt.Bucket, k, v []byte) ([]byte, error) {
	body, err := checkSnapshotHeader(events, k, v)
	if err == nil {
		err = checkSnapshotBody(seqOf(k), v)
	}
	return body, err
}

// checkSnapshotHeader verifies a stored snapshot's header and chain hash
// and returns its body (valid only inside the transaction).
func checkSnapshotHeader(events *bolt.Bucket, k, v []byte) ([]byte, error) {
	if len(k) != 8 {
		return nil, fmt.Errorf("malformed snapshot key %x", k)
	}
	seq := seqOf(k)
	if len(v) < snapHeaderSize || string(v[:8]) != snapMagic {
		return nil, fmt.Errorf("snapshot %d has no valid header", seq)
	}
	if ver := binary.BigEndian.Uint32(v[8:]); ver < snapVersionMin || ver > snapVersion {
		return nil, fmt.Errorf("snapshot %d has version %d, this nexus reads %d to %d", seq, ver, snapVersionMin, snapVersion)
	}
	if hs := binary.BigEndian.Uint64(v[12:]); hs != seq {
		return nil, fmt.Errorf("snapshot stored under seq %d says seq %d", seq, hs)
	}
	body := v[snapHeaderSize:]
	if n := binary.BigEndian.Uint64(v[84:]); n != uint64(len(body)) {
		return nil, fmt.Errorf("snapshot %d body is %d bytes, header says %d", seq, len(body), n)
	}
	chain, err := hashAt(events, seq)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %v", seq, err)
	}
	if !bytes.Equal(chain[:], v[20:52]) {
		return nil, fmt.Errorf("snapshot %d records a chain hash this journal does not have at that seq", seq)
	}
	return body, nil
}

// checkSnapshotBody compares the body's BLAKE3 with the header's; v must
// have passed checkSnapshotHeader.
func checkSnapshotBody(seq uint64, v []byte) error {
	if sum := blake3.Sum256(v[snapHeaderSize:]); !bytes.Equal(sum[:], v[52:84]) {
		return fmt.Errorf("snapshot %d body does not match its hash", seq)
	}
	return nil
}
