package natsjournal

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

const (
	// readAhead is how many messages a Read's consumer keeps asked for
	// ahead of the checks (it asks for more when half are taken), and
	// readAheadBytes how many bytes one pull may bring at most.
	readAhead      = 4096
	readAheadBytes = 16 << 20
	// chunkMsgs and chunkBytes bound a chunk, the messages one stage of
	// a Read hands to the next at once.
	chunkMsgs  = 128
	chunkBytes = 1 << 20
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
// checks each and passes the events from seq from to fn. Like the bbolt
// store's Read it runs in three stages, each on its own goroutine and a
// chunk ahead of the next: the puller takes the messages (the consumer
// keeps up to readAhead of them asked for ahead of it) and checks their
// order and headers; the decoder checks their chain hashes and seqs and
// decodes them; fn runs on the caller's goroutine. A stage that finds a
// fault passes on what came before it, then the error, and stops, so
// every event before the first bad message reaches fn and none after it.
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
	// Each pull asks for at most readAheadBytes, or two of the largest
	// messages the server takes, so large commits cannot fill memory. A
	// pull lasts Options.Timeout (at least the client's minimum, a
	// second); the server sends heartbeats at half that, and the
	// iterator fails when two are missed.
	ahead := jetstream.PullMaxMessagesWithBytesLimit(readAhead, max(readAheadBytes, 2*int(j.nc.MaxPayload())))
	msgs, err := cons.Messages(ahead, jetstream.StopAfter(int(end-start+1)),
		jetstream.PullExpiry(max(j.opts.Timeout, time.Second)))
	if err != nil {
		return fmt.Errorf("natsjournal: read stream %s from message %d: %w", j.names.stream, start, err)
	}
	defer msgs.Stop()

	pctx, cancelPull := context.WithCancel(ctx)
	raws := make(chan rawChunk, 1)
	decoded := make(chan eventChunk, 1)
	free := make(chan []core.Event, 2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(raws)
		p := puller{j: j, msgs: msgs, next: start, end: end, prev: prev}
		p.run(pctx, raws, stop)
	}()
	go func() {
		defer wg.Done()
		defer close(decoded)
		d := decoder{j: j, from: from}
		d.run(raws, decoded, free, stop)
	}()
	defer func() {
		cancelPull()
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
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case free <- c.events:
		default:
		}
	}
	return nil
}
