package store

import (
	"context"
	"errors"
	"slices"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
)

// Verifier verifies a journal that only grows, a tail at a time: it keeps
// the full replay and the chain hash it has reached, so each Check costs
// the events (and snapshots) added since the last one instead of the whole
// journal. Check also fails when the last event it verified changed or
// vanished (a lost or rewritten tail); a change further back is not seen
// until a full Verify, so a long crash loop checks with a Verifier after
// every restart and with Verify now and then and at the end. Not safe for
// concurrent use.
type Verifier struct {
	st    *core.State
	seq   uint64 // the last verified event
	hash  [hashSize]byte
	snaps map[uint64]bool // snapshots already compared equal
	// Pages runs bbolt's page consistency check on every Check (it reads
	// the whole file); off, the check costs only the tail.
	Pages bool
}

// NewVerifier returns a Verifier that has verified nothing yet.
func NewVerifier() *Verifier {
	return &Verifier{st: core.NewState(), snaps: map[uint64]bool{}, Pages: true}
}

// State is the full replay up to the last verified event. It is the
// Verifier's own: do not change it.
func (v *Verifier) State() *core.State { return v.st }

// Check verifies what s gained since the last Check: the event last
// verified still carries the same hash; every new event is at the next
// seq, chains, decodes and applies (each then goes to fn, if not nil);
// every new snapshot equals the replay at its seq; meta agrees with the
// last event; and, with Pages, every page of the file is sound (checked
// first: a damaged page ends the Check with Report.Damaged). Problems go into
// the Report (Events counts every verified event, old and new); the error
// is for Check itself failing. After a failed Report the Verifier is
// spent: start a new one.
func (v *Verifier) Check(ctx context.Context, s *Store, fn func(*core.Event)) (Report, error) {
	if v.Pages {
		// Pages first: events are read through bbolt, which must not
		// meet a damaged page.
		var rep Report
		if err := s.checkPages(&rep); err != nil || rep.Damaged {
			return rep, err
		}
		rep.Events = v.seq
		return v.check(ctx, s, fn, rep)
	}
	return v.check(ctx, s, fn, Report{Events: v.seq})
}

func (v *Verifier) check(ctx context.Context, s *Store, fn func(*core.Event), rep Report) (Report, error) {
	var snaps []uint64
	var metaLast uint64
	var metaHash [hashSize]byte
	var metaOK bool
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		if k, _ := b.Cursor().Last(); len(k) == 8 {
			rep.LastSeq = seqOf(k)
		}
		if v.seq > 0 {
			if old := b.Get(seqKey(v.seq)); len(old) < hashSize || [hashSize]byte(old[:hashSize]) != v.hash {
				rep.FirstBad = v.seq
				rep.fail("seq %d: event changed or vanished since it was verified", v.seq)
			}
		}
		_ = tx.Bucket(bucketSnapshots).ForEach(func(k, _ []byte) error {
			if len(k) == 8 && !v.snaps[seqOf(k)] {
				snaps = append(snaps, seqOf(k))
			}
			return nil
		})
		metaLast, metaHash, metaOK = parseLast(tx.Bucket(bucketMeta).Get(keyLast))
		return nil
	})
	if de := (*DamagedError)(nil); errors.As(err, &de) {
		rep.Damaged = true
		rep.fail("%s", de.Reason)
		return rep, nil
	}
	if err != nil || rep.FirstBad != 0 {
		return rep, err
	}
	check := func(seq uint64) error {
		if _, ok := slices.BinarySearch(snaps, seq); !ok {
			return nil
		}
		n := len(rep.Snapshots)
		if err := s.compareSnapshot(seq, v.st, &rep); err != nil {
			return err
		}
		if len(rep.Snapshots) > n {
			v.snaps[seq] = true
		}
		return nil
	}
	// A snapshot behind the verified tail (other than at it) was written
	// for a state this Verifier no longer holds: only Verify can judge it.
	for _, seq := range snaps {
		if seq < v.seq {
			rep.BadSnapshots = append(rep.BadSnapshots, seq)
			rep.fail("snapshot %d appeared behind the verified tail (%d); run a full verify", seq, v.seq)
		}
	}
	err = check(v.seq)
	if err == nil && rep.LastSeq > v.seq {
		var ev core.Event
		err = s.walk(ctx, v.seq+1, true, func(raw *rawEvent) error {
			seq := raw.seq
			if err := decodeEvent(raw.data(), &ev); err != nil {
				return corrupt(seq, "event does not decode: %v", err)
			}
			if ev.Seq != seq {
				return corrupt(seq, "event is stored under seq %d but says %d", seq, ev.Seq)
			}
			if err := v.st.Apply(&ev); err != nil {
				return corrupt(seq, "%v", err)
			}
			v.seq, rep.Events = seq, seq
			copy(v.hash[:], raw.hash())
			if fn != nil {
				fn(&ev)
			}
			return check(seq)
		})
	}
	var ce *CorruptError
	var de *DamagedError
	switch {
	case errors.As(err, &de):
		rep.Damaged = true
		rep.fail("%s", de.Reason)
	case errors.As(err, &ce):
		rep.FirstBad = max(ce.Seq, 1)
		rep.fail("seq %d: %s", rep.FirstBad, ce.Reason)
	case err != nil:
		return rep, err
	}
	switch {
	case !metaOK:
		rep.fail("meta/last is malformed")
	case rep.FirstBad == 0 && rep.Events < rep.LastSeq:
		rep.FirstBad = rep.Events + 1
		rep.fail("seq %d: missing (the events end at %d)", rep.FirstBad, rep.LastSeq)
	case metaLast > rep.LastSeq && rep.FirstBad == 0:
		rep.FirstBad = rep.LastSeq + 1
		rep.fail("meta says the last seq is %d but the events end at %d", metaLast, rep.LastSeq)
	case rep.FirstBad == 0 && (metaLast != v.seq || metaHash != v.hash):
		rep.fail("meta (last seq %d) disagrees with the last event (%d)", metaLast, v.seq)
	}
	for _, seq := range snaps {
		if !v.snaps[seq] && !slices.Contains(rep.BadSnapshots, seq) {
			rep.BadSnapshots = append(rep.BadSnapshots, seq)
			rep.fail("snapshot %d covers events that did not verify", seq)
		}
	}
	rep.OK = rep.Reason == ""
	if rep.OK {
		rep.Reason = "ok"
	}
	return rep, nil
}
