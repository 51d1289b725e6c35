package natsjournal

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
)

// Snapshot objects. Part of the stream format (see doc.go).
const (
	snapMagic   = "nexusnsn"
	snapVersion = 1
	snapHeader  = 52 // magic, version, seq, chain hash
	snapPrefix  = "snapshot-"
	// SnapshotsKept is how many snapshots SaveSnapshot keeps; it deletes
	// older ones after writing a new one.
	SnapshotsKept = 2
)

// errBadSnapshot marks a snapshot LoadSnapshot passes over.
var errBadSnapshot = errors.New("snapshot unusable")

// snapName is the object name of the snapshot at seq; names sort by seq.
func snapName(seq uint64) string { return fmt.Sprintf("%s%020d", snapPrefix, seq) }

// SaveSnapshot durably stores the projection st at st.Seq, which must be
// an appended seq, then deletes all but the newest SnapshotsKept. It
// implements core.Journal. st must not change during the call (the
// Runner passes a Clone). A sealed run's history is loaded and stored in
// the snapshot itself (see doc.go, "Snapshots").
func (j *Journal) SaveSnapshot(st *core.State) error {
	if st == nil {
		return errors.New("natsjournal: cannot snapshot a nil state (a caller bug; pass the projection)")
	}
	if err := j.enter(); err != nil {
		return err
	}
	defer j.closeMu.RUnlock()
	if last := j.Last(); st.Seq > last {
		return fmt.Errorf("natsjournal: cannot snapshot seq %d: the journal ends at seq %d; snapshot only appended state (a caller bug)", st.Seq, last)
	}
	ctx := context.Background()
	chain, err := j.chainAt(ctx, st.Seq)
	if err != nil {
		return err
	}
	body, err := encodeState(st)
	if err != nil {
		return err
	}
	val := make([]byte, snapHeader, snapHeader+len(body))
	copy(val, snapMagic)
	binary.BigEndian.PutUint32(val[8:], snapVersion)
	binary.BigEndian.PutUint64(val[12:], st.Seq)
	copy(val[20:], chain[:])
	val = append(val, body...)
	cctx, cancel := j.requestCtx(ctx)
	defer cancel()
	if _, err := j.objs.Put(cctx, jetstream.ObjectMeta{Name: snapName(st.Seq)}, bytes.NewReader(val)); err != nil {
		return fmt.Errorf("natsjournal: save the snapshot at seq %d to bucket %s: %w", st.Seq, j.names.bucket, err)
	}
	return j.prune(cctx)
}

// encodeState encodes a projection: the store's deterministic encoding
// with every run's history in it (store.EncodeStateWhole), so a snapshot
// and a replay to its seq are the same bytes.
func encodeState(st *core.State) ([]byte, error) {
	b, err := store.EncodeStateWhole(st)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: encode the snapshot at seq %d: %w", st.Seq, err)
	}
	return b, nil
}

// snapshots lists the seqs of the stored snapshots, newest first.
func (j *Journal) snapshots(ctx context.Context) ([]uint64, error) {
	infos, err := j.objs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("natsjournal: list the snapshots in bucket %s: %w", j.names.bucket, err)
	}
	var seqs []uint64
	for _, in := range infos {
		if rest, ok := strings.CutPrefix(in.Name, snapPrefix); ok {
			if seq, err := strconv.ParseUint(rest, 10, 64); err == nil {
				seqs = append(seqs, seq)
			}
		}
	}
	slices.Sort(seqs)
	slices.Reverse(seqs)
	return seqs, nil
}

// prune deletes all but the newest SnapshotsKept snapshots.
func (j *Journal) prune(ctx context.Context) error {
	seqs, err := j.snapshots(ctx)
	if err != nil {
		return err
	}
	for _, seq := range seqs[min(len(seqs), SnapshotsKept):] {
		if err := j.objs.Delete(ctx, snapName(seq)); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return fmt.Errorf("natsjournal: delete the old snapshot at seq %d: %w", seq, err)
		}
	}
	return nil
}

// LoadSnapshot returns the newest snapshot that verifies, falling back to
// an older one, or nil if none does. It implements core.Journal. A
// snapshot verifies when its object's digest matches (the object store
// checks), its seq is at most Last, the chain hash it recorded is the one
// of the message holding its seq (so it belongs to this history), and it
// decodes. It returns an error only when the server cannot be read.
func (j *Journal) LoadSnapshot() (*core.State, error) {
	if err := j.enter(); err != nil {
		return nil, err
	}
	defer j.closeMu.RUnlock()
	ctx := context.Background()
	cctx, cancel := j.requestCtx(ctx)
	seqs, err := j.snapshots(cctx)
	cancel()
	if err != nil {
		return nil, err
	}
	last := j.Last()
	for _, seq := range seqs {
		if seq > last {
			continue
		}
		st, err := j.loadSnapshot(ctx, seq)
		if err == nil {
			return st, nil
		}
		if !errors.Is(err, errBadSnapshot) {
			return nil, err
		}
	}
	return nil, nil
}

// loadSnapshot reads and checks the snapshot at seq. An unusable one is
// an error matching errBadSnapshot.
func (j *Journal) loadSnapshot(ctx context.Context, seq uint64) (*core.State, error) {
	cctx, cancel := j.requestCtx(ctx)
	val, err := j.objs.GetBytes(cctx, snapName(seq))
	cancel()
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound), errors.Is(err, jetstream.ErrDigestMismatch):
		return nil, fmt.Errorf("%w: %v", errBadSnapshot, err)
	case err != nil:
		return nil, fmt.Errorf("natsjournal: read the snapshot at seq %d from bucket %s: %w", seq, j.names.bucket, err)
	}
	if len(val) < snapHeader || string(val[:8]) != snapMagic ||
		binary.BigEndian.Uint32(val[8:]) != snapVersion || binary.BigEndian.Uint64(val[12:]) != seq {
		return nil, fmt.Errorf("%w: the snapshot at seq %d has no valid header", errBadSnapshot, seq)
	}
	chain, err := j.chainAt(ctx, seq)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(chain[:], val[20:snapHeader]) {
		return nil, fmt.Errorf("%w: the snapshot at seq %d records a chain hash this journal does not have there", errBadSnapshot, seq)
	}
	st, err := store.DecodeState(val[snapHeader:])
	if err != nil || st.Seq != seq {
		return nil, fmt.Errorf("%w: the snapshot at seq %d does not decode: %v", errBadSnapshot, seq, err)
	}
	return st, nil
}

// chainAt returns the chain hash after the message holding event seq
// (zero for seq 0).
func (j *Journal) chainAt(ctx context.Context, seq uint64) ([hashSize]byte, error) {
	t := j.tail.Load()
	switch {
	case seq == 0:
		return [hashSize]byte{}, nil
	case t.first <= seq && seq <= t.seq:
		return t.chain, nil
	case seq > t.seq:
		return [hashSize]byte{}, fmt.Errorf("natsjournal: seq %d is past the journal's end (%d)", seq, t.seq)
	}
	s, err := j.find(ctx, seq, t.stream, t.first)
	if err != nil {
		return [hashSize]byte{}, err
	}
	h, err := j.headerAt(ctx, s)
	return h.chain, err
}
