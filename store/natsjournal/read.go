package natsjournal

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

const (
	// readBatch is how many messages one fetch of a Read asks for.
	readBatch = 256
	// consumerIdle is how long the server keeps a Read's consumer once
	// nobody pulls from it. Read deletes its consumer when it returns;
	// this only clears up after a reader that died.
	consumerIdle = 5 * time.Minute
)

// Read calls fn for every event with seq >= from, in order, until fn
// returns an error or the end of the stream (as it was when Read started)
// is reached. It implements core.Journal. It verifies the hash chain from
// the chain hash of the message before the one holding from, and returns
// a *CorruptError naming the stream message that does not chain, does not
// decode or does not carry the seqs that were due. Events before it have
// been passed to fn.
func (j *Journal) Read(ctx context.Context, from uint64, fn func(core.Event) error) error {
	if from == 0 {
		from = 1
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := j.enter(); err != nil {
		return err
	}
	defer j.closeMu.RUnlock()
	cctx, cancel := j.requestCtx(ctx)
	info, err := j.stream.Info(cctx)
	cancel()
	if err != nil {
		return fmt.Errorf("natsjournal: read the state of stream %s: %w", j.names.stream, err)
	}
	end := info.State.LastSeq
	if end == 0 {
		return nil
	}
	start := uint64(1)
	if from > 1 {
		last, err := j.record(ctx, end)
		if err != nil {
			return err
		}
		if from > last.last {
			return nil
		}
		if start, err = j.find(ctx, from, end, last.first); err != nil {
			return err
		}
	}
	var prev [hashSize]byte
	if start > 1 {
		h, err := j.headerAt(ctx, start-1)
		if err != nil {
			return err
		}
		prev = h.chain
	}
	return j.readRange(ctx, start, end, from, prev, fn)
}

// find returns the stream sequence of the message holding event seq, of
// messages 1 to end, the last of which starts at event seq endFirst.
// Messages hold consecutive seqs from 1, at least one each, so message s
// starts at seq s or later: a binary search over messages 1..min(end,
// seq) on the first-seq header takes O(log n) gets.
func (j *Journal) find(ctx context.Context, seq, end, endFirst uint64) (uint64, error) {
	if endFirst <= seq {
		return end, nil
	}
	lo, hi := uint64(1), min(end-1, seq)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		h, err := j.headerAt(ctx, mid)
		if err != nil {
			return 0, err
		}
		if h.first <= seq {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// readRange streams messages start..end through an ephemeral consumer,
// checks each and passes the events from seq from to fn.
func (j *Journal) readRange(ctx context.Context, start, end, from uint64, prev [hashSize]byte, fn func(core.Event) error) error {
	cctx, cancel := j.requestCtx(ctx)
	cons, err := j.stream.CreateConsumer(cctx, jetstream.ConsumerConfig{
		Description:   "nexus journal read",
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: start,
		AckPolicy: jetstream.AckNonePolicy, MemoryStorage: true, InactiveThreshold: consumerIdle,
	})
	cancel()
	if err != nil {
		return fmt.Errorf("natsjournal: read stream %s from message %d: %w", j.names.stream, start, err)
	}
	defer func() {
		dctx, cancel := j.requestCtx(context.WithoutCancel(ctx))
		defer cancel()
		_ = j.stream.DeleteConsumer(dctx, cons.CachedInfo().Name)
	}()
	r := reader{j: j, next: start, from: from, prev: prev, fn: fn}
	for r.next <= end {
		fctx, cancel := j.requestCtx(ctx)
		err := r.fetch(fctx, cons, min(end-r.next+1, readBatch))
		cancel()
		switch {
		case r.fnErr != nil:
			return r.fnErr
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return err
		}
	}
	return nil
}

// reader checks a Read's messages in order.
type reader struct {
	j    *Journal
	next uint64 // stream sequence due next
	due  uint64 // event seq due next (0 before the first message)
	from uint64
	prev [hashSize]byte
	fn   func(core.Event) error
	// fnErr is the error fn returned, which ends the Read as it is.
	fnErr error
}

// fetch takes up to n messages from cons and delivers them.
func (r *reader) fetch(ctx context.Context, cons jetstream.Consumer, n uint64) error {
	batch, err := cons.Fetch(int(n), jetstream.FetchContext(ctx))
	if err != nil {
		return fmt.Errorf("natsjournal: read stream %s at message %d: %w", r.j.names.stream, r.next, err)
	}
	got := 0
	for m := range batch.Messages() {
		got++
		if err := r.deliver(m); err != nil {
			return err
		}
	}
	if err := batch.Error(); err != nil {
		return fmt.Errorf("natsjournal: read stream %s at message %d: %w", r.j.names.stream, r.next, err)
	}
	if got == 0 {
		return fmt.Errorf("natsjournal: stream %s sent nothing from message %d; try again", r.j.names.stream, r.next)
	}
	return nil
}

// deliver checks one message and passes its events on.
func (r *reader) deliver(m jetstream.Msg) error {
	meta, err := m.Metadata()
	if err != nil || meta.Sequence.Stream != r.next {
		return fmt.Errorf("natsjournal: stream %s sent a message out of order where message %d was due; try again",
			r.j.names.stream, r.next)
	}
	body := m.Data()
	h, err := parseHeader(m.Headers())
	if err != nil {
		return r.j.corrupt(r.next, "%v", err)
	}
	if chainNext(r.prev, body) != h.chain {
		return r.j.corrupt(r.next, "its chain hash does not match its body and the hash before it (it was changed, or written outside the journal)")
	}
	rec, err := decodeMessage(m.Headers(), body)
	if err != nil {
		return r.j.corrupt(r.next, "%v", err)
	}
	switch {
	case r.due == 0 && rec.first > r.from:
		return r.j.corrupt(r.next, "it starts at seq %d, after seq %d that was looked for", rec.first, r.from)
	case r.due != 0 && rec.first != r.due:
		return r.j.corrupt(r.next, "it starts at seq %d, seq %d was due", rec.first, r.due)
	}
	for i := range rec.events {
		if rec.events[i].Seq < r.from {
			continue
		}
		if err := r.fn(rec.events[i]); err != nil {
			r.fnErr = err
			return err
		}
	}
	r.prev, r.due, r.next = rec.chain, rec.last+1, r.next+1
	return nil
}
