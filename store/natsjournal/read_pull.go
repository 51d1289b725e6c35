package natsjournal

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// rawMsg is a message that came in order and whose headers parse; its
// chain hash and body are checked by the next stage.
type rawMsg struct {
	stream uint64 // its stream sequence
	first  uint64 // seq of its first event, from its header
	body   []byte
	prev   [hashSize]byte // chain hash of the message before it
	chain  [hashSize]byte // its own, from its header
}

// rawChunk is a run of consecutive messages; err, if set, is what
// stopped the pull right after the last of them.
type rawChunk struct {
	msgs []rawMsg
	err  error
}

// puller is the first stage of a Read: it takes the messages next..end
// from the consumer's iterator, checks that each comes in order and
// that its headers parse, and pairs it with the chain hash it must
// follow (prev for the first, then each message's header).
type puller struct {
	j    *Journal
	msgs jetstream.MessagesContext
	next uint64 // stream sequence due next
	end  uint64
	prev [hashSize]byte
}

// run sends the messages on out in chunks, the last with the error that
// stopped it if any, until end, an error, or stop.
func (p *puller) run(ctx context.Context, out chan<- rawChunk, stop <-chan struct{}) {
	c := rawChunk{msgs: make([]rawMsg, 0, chunkMsgs)}
	size := 0
	for p.next <= p.end {
		m, err := p.take(ctx)
		if err != nil {
			c.err = err
			break
		}
		c.msgs = append(c.msgs, m)
		if size += len(m.body); len(c.msgs) == chunkMsgs || size >= chunkBytes {
			if !send(out, c, stop) {
				return
			}
			c, size = rawChunk{msgs: make([]rawMsg, 0, chunkMsgs)}, 0
		}
	}
	if len(c.msgs) > 0 || c.err != nil {
		send(out, c, stop)
	}
}

// take takes the next message and checks its order and headers.
func (p *puller) take(ctx context.Context) (rawMsg, error) {
	m, err := p.msgs.Next(jetstream.NextContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return rawMsg{}, ctx.Err()
		}
		return rawMsg{}, fmt.Errorf("natsjournal: read stream %s at message %d: %w", p.j.names.stream, p.next, err)
	}
	meta, err := m.Metadata()
	if err != nil || meta.Sequence.Stream != p.next {
		return rawMsg{}, fmt.Errorf("natsjournal: stream %s sent a message out of order where message %d was due; try again",
			p.j.names.stream, p.next)
	}
	h, err := parseHeader(m.Headers())
	if err != nil {
		return rawMsg{}, p.j.corrupt(p.next, "%v", err)
	}
	r := rawMsg{stream: p.next, first: h.first, body: m.Data(), prev: p.prev, chain: h.chain}
	p.prev, p.next = h.chain, p.next+1
	return r, nil
}

// send passes c on unless stop closes first.
func send[T any](out chan<- T, c T, stop <-chan struct{}) bool {
	select {
	case out <- c:
		return true
	case <-stop:
		return false
	}
}
