package natsjournal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

// Verifier checks a project's journal on the hub a tail at a time, as
// store.Verifier does a state dir's: each Check reads the events after
// the last one checked (Read checks their order, seqs and chain hashes),
// applies them to its replay (a gap fails the apply), and compares every
// snapshot in the bucket it has not compared yet with the replay at the
// snapshot's seq, byte for byte. A snapshot saved behind the tail it has
// already checked (snapshots are saved after their events, not with
// them) is compared with a fresh replay up to its seq.
type Verifier struct {
	st    *core.State
	snaps map[uint64]bool // snapshots compared equal
}

// NewVerifier returns a Verifier that has checked nothing yet.
func NewVerifier() *Verifier { return &Verifier{st: core.NewState(), snaps: map[uint64]bool{}} }

// State is the replay up to the last checked event. It is the
// Verifier's own: do not change it.
func (v *Verifier) State() *core.State { return v.st }

// Check checks what j gained since the last Check, passing each new
// event to fn (if not nil). It returns the first fault; after one the
// Verifier is spent.
func (v *Verifier) Check(ctx context.Context, j *Journal, fn func(*core.Event)) error {
	seqs, err := j.snapshots(ctx)
	if err != nil {
		return err
	}
	slices.Sort(seqs)
	var due []uint64
	for _, s := range seqs {
		if !v.snaps[s] {
			due = append(due, s)
		}
	}
	err = j.Read(ctx, v.st.Seq+1, func(ev core.Event) error {
		if err := v.st.Apply(&ev); err != nil {
			return err
		}
		if fn != nil {
			fn(&ev)
		}
		if _, ok := slices.BinarySearch(due, ev.Seq); ok {
			return v.compare(ctx, j, ev.Seq, v.st)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range due {
		switch {
		case v.snaps[s]:
		case s > v.st.Seq:
			return fmt.Errorf("natsjournal: snapshot %d is past the journal's end (%d)", s, v.st.Seq)
		default:
			st := core.NewState()
			err := j.Read(ctx, 1, func(ev core.Event) error {
				if ev.Seq > s {
					return errStopVerify
				}
				return st.Apply(&ev)
			})
			if err != nil && !errors.Is(err, errStopVerify) {
				return err
			}
			if err := v.compare(ctx, j, s, st); err != nil {
				return err
			}
		}
	}
	return nil
}

var errStopVerify = errors.New("natsjournal: verified up to the snapshot")

// compare checks the snapshot at seq (if it is still kept) against st,
// the replay at seq.
func (v *Verifier) compare(ctx context.Context, j *Journal, seq uint64, st *core.State) error {
	cctx, cancel := j.requestCtx(ctx)
	val, err := j.objs.GetBytes(cctx, snapName(seq))
	cancel()
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil // pruned since it was listed: newer ones are kept
	}
	if err != nil {
		return fmt.Errorf("natsjournal: read the snapshot at seq %d: %w", seq, err)
	}
	if _, err := j.loadSnapshot(ctx, seq); err != nil {
		return fmt.Errorf("natsjournal: the snapshot at seq %d does not verify: %w", seq, err)
	}
	want, err := encodeState(st)
	if err != nil {
		return err
	}
	if len(val) < snapHeader || !bytes.Equal(val[snapHeader:], want) {
		return fmt.Errorf("natsjournal: the snapshot at seq %d differs from the replay at that seq", seq)
	}
	v.snaps[seq] = true
	return nil
}
