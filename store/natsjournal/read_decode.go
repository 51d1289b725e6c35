package natsjournal

import (
	"unsafe"

	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
)

// eventChunk is a chunk after checking and decoding; err applies after
// its events.
type eventChunk struct {
	events []core.Event
	err    error
}

// decoder is the second stage of a Read. For each message, in order, it
// checks the chain hash (BLAKE3 of the chain before it and its body)
// against its header, decodes the body, checks that it starts at the
// seq that is due (the first message at from or before it), and drops
// the events before from.
type decoder struct {
	j    *Journal
	from uint64
	due  uint64 // seq due next; 0 before the first message
	hash *blake3.Hasher
}

// run checks and decodes the chunks of in, reusing the event slices the
// caller hands back on free, until in closes, an error, or stop.
func (d *decoder) run(in <-chan rawChunk, out chan<- eventChunk, free <-chan []core.Event, stop <-chan struct{}) {
	d.hash = blake3.New()
	for c := range in {
		var evs []core.Event
		select {
		case evs = <-free:
		default:
			evs = make([]core.Event, 0, 2*chunkMsgs)
		}
		e := eventChunk{events: evs[:0], err: c.err}
		for i := range c.msgs {
			var err error
			if e.events, err = d.decode(e.events, &c.msgs[i]); err != nil {
				e.err = err // the first fault wins over the pull's
				break
			}
		}
		if !send(out, e, stop) || e.err != nil {
			return
		}
	}
}

// decode checks m and appends its events from seq from on to evs; on an
// error evs comes back as it was given.
func (d *decoder) decode(evs []core.Event, m *rawMsg) ([]core.Event, error) {
	if chainWith(d.hash, m.prev, m.body) != m.chain {
		return evs, d.j.corrupt(m.stream, "its chain hash does not match its body and the hash before it (it was changed, or written outside the journal)")
	}
	n0 := len(evs)
	evs, err := decodeBody(evs, bodyString(m.body), m.first)
	switch {
	case err != nil:
		return evs, d.j.corrupt(m.stream, "%v", err)
	case d.due == 0 && m.first > d.from:
		return evs[:n0], d.j.corrupt(m.stream, "it starts at seq %d, after seq %d that was looked for", m.first, d.from)
	case d.due != 0 && m.first != d.due:
		return evs[:n0], d.j.corrupt(m.stream, "it starts at seq %d, seq %d was due", m.first, d.due)
	}
	d.due = m.first + uint64(len(evs)-n0)
	if m.first < d.from { // the message holding from
		skip := int(min(d.from-m.first, uint64(len(evs)-n0)))
		evs = append(evs[:n0], evs[n0+skip:]...)
	}
	return evs, nil
}

// bodyString is the body of a message a Read's consumer delivered, as a
// string without a copy, so the decoded events' strings are substrings
// of it. That is sound because the client allocates each message's
// buffer for that message alone and nothing writes to it after; it saves
// copying every body again, and the garbage. An event kept after the
// Read keeps its message's buffer (headers and body) alive, as it would
// keep a copy of the body.
func bodyString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
