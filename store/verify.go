package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// Report is the outcome of Verify.
type Report struct {
	// OK is true when every check passed.
	OK bool `json:"ok"`
	// Events counts the events that verified, contiguously from seq 1.
	Events uint64 `json:"events"`
	// LastSeq is the highest seq stored in the events bucket.
	LastSeq uint64 `json:"lastSeq"`
	// FirstBad is the first seq that is missing, does not chain or does
	// not decode; 0 when every stored event verified.
	FirstBad uint64 `json:"firstBad"`
	// Reason is one line saying what failed first, "ok" when nothing did.
	Reason string `json:"reason"`
	// Snapshots are the seqs of snapshots that verified and equal the
	// full replay at their seq; BadSnapshots those that did not.
	Snapshots    []uint64 `json:"snapshots,omitempty"`
	BadSnapshots []uint64 `json:"badSnapshots,omitempty"`
	// Damaged says a page of the file is not what bbolt wrote (Reason
	// names it); the events were then not walked through bbolt, and
	// Events is 0. Repair rebuilds such a file.
	Damaged bool `json:"damaged,omitempty"`
}

func (r *Report) fail(format string, args ...any) {
	if r.Reason == "" {
		r.Reason = fmt.Sprintf(format, args...)
	}
}

// Verify walks the whole journal: every page of the file is sound (a walk
// of the B+tree that trusts nothing it has not checked, see checkPages);
// seqs gapless from 1, every hash chains, every event decodes and
// applies; meta agrees with the last event; every snapshot verifies and
// equals the full replay at its seq, byte for byte. Problems go into the
// Report; the error is for Verify itself failing (I/O, ctx, closed).
func (s *Store) Verify(ctx context.Context) (Report, error) {
	return NewVerifier().Check(ctx, s, nil)
}

// compareSnapshot checks the stored snapshot at seq against the replayed
// projection st at the same seq.
func (s *Store) compareSnapshot(seq uint64, st *core.State, rep *Report) error {
	want, blobs, err := encodeState(st)
	if err != nil {
		return err
	}
	return s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketSnapshots).Get(seqKey(seq))
		body, err := checkSnapshot(tx.Bucket(bucketEvents), seqKey(seq), v)
		switch {
		case err != nil:
			rep.fail("%v", err)
		case !bytes.Equal(body, want):
			rep.fail("snapshot %d differs from the full replay at that seq", seq)
		case badSealed(tx, blobs) != "":
			rep.fail("snapshot %d: sealed run %s in the vault differs from the full replay", seq, badSealed(tx, blobs))
		default:
			rep.Snapshots = append(rep.Snapshots, seq)
			return nil
		}
		rep.BadSnapshots = append(rep.BadSnapshots, seq)
		return nil
	})
}

// badSealed returns the first ref whose vault blob is missing or differs
// from the replayed one, or "".
func badSealed(tx *bolt.Tx, blobs map[string][]byte) string {
	vault := tx.Bucket(bucketVault)
	for _, ref := range slices.Sorted(maps.Keys(blobs)) {
		key, _ := hex.DecodeString(ref)
		if vault == nil || !bytes.Equal(vault.Get(key), blobs[ref]) {
			return ref
		}
	}
	return ""
}

// checkPages walks every page of the file (walkPages) and records the
// first problem, setting Damaged. The walk checks what bbolt's tx.Check
// does (page types and ids, element bounds, key order within a page and
// against its parent, pages referenced twice, the freelist, pages
// neither free nor in use) and costs about as much; tx.Check itself is
// not run, because it panics, on a goroutine of its own where no
// recover reaches, on the very damage it is meant to find.
func (s *Store) checkPages(rep *Report) error {
	problem, err := s.walkPages(true)
	if err == nil && problem != "" {
		rep.Damaged = true
		rep.fail("%s", problem)
	}
	return err
}
