package natsjournal

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/zeebo/blake3"
)

// Message headers of a commit. Part of the stream format (see doc.go).
const (
	hdrFormat = "Nexus-Journal" // format version of the message, formatVersion
	hdrSeq    = "Nexus-Seq"     // seq of the commit's first event, decimal
	hdrChain  = "Nexus-Chain"   // chain hash after this message, 64 hex digits
	// formatVersion is the value of hdrFormat. A reader refuses a message
	// with another value.
	formatVersion = "1"
	hashSize      = 32
)

// header is what a message's headers say, read without its body.
type header struct {
	first uint64
	chain [hashSize]byte
}

// record is a decoded commit message.
type record struct {
	header
	last   uint64 // seq of its last event
	body   []byte // the encoded events, which the chain hashes
	events []core.Event
}

// chainNext is the chain hash of a message with body after one whose
// chain hash is prev: BLAKE3-256(prev || body). The hash before the
// stream's first message is 32 zero bytes.
func chainNext(prev [hashSize]byte, body []byte) [hashSize]byte {
	return chainWith(blake3.New(), prev, body)
}

// chainWith is chainNext on a hasher the caller reuses.
func chainWith(h *blake3.Hasher, prev [hashSize]byte, body []byte) [hashSize]byte {
	h.Reset()
	_, _ = h.Write(prev[:])
	_, _ = h.Write(body)
	var out [hashSize]byte
	h.Sum(out[:0])
	return out
}

// encodeBody encodes a commit's events: a msgpack array of core.Event,
// each exactly as the bbolt store encodes an event (the reflection
// encoder with compact integers, whose bytes the store's codec matches),
// so both journals hold the same bytes and decodeBody reads them with the
// store's decoder.
func encodeBody(evs []core.Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.EncodeArrayLen(len(evs)); err != nil {
		return nil, err
	}
	for i := range evs {
		if err := enc.Encode(&evs[i]); err != nil {
			return nil, fmt.Errorf("natsjournal: encode event %d: %w", evs[i].Seq, err)
		}
	}
	return buf.Bytes(), nil
}

// parseHeader reads the journal headers of a message.
func parseHeader(h nats.Header) (header, error) {
	var out header
	if v := h.Get(hdrFormat); v != formatVersion {
		return out, fmt.Errorf("header %s is %q, this nexus reads %q", hdrFormat, v, formatVersion)
	}
	first, err := strconv.ParseUint(h.Get(hdrSeq), 10, 64)
	if err != nil || first == 0 {
		return out, fmt.Errorf("header %s is %q, not a seq", hdrSeq, h.Get(hdrSeq))
	}
	out.first = first
	c := h.Get(hdrChain)
	if len(c) != 2*hashSize {
		return out, fmt.Errorf("header %s is %.80q, not a %d-byte hex hash", hdrChain, c, hashSize)
	}
	if _, err := hex.Decode(out.chain[:], []byte(c)); err != nil {
		return out, fmt.Errorf("header %s is %.80q, not a %d-byte hex hash", hdrChain, c, hashSize)
	}
	return out, nil
}

// decodeMessage decodes a commit message: its headers, then its body,
// whose events must carry the seqs first, first+1, ... (decodeBody). It
// never panics on bad bytes.
func decodeMessage(h nats.Header, body []byte) (*record, error) {
	hd, err := parseHeader(h)
	if err != nil {
		return nil, err
	}
	evs, err := decodeBody(nil, string(body), hd.first)
	if err != nil {
		return nil, err
	}
	return &record{header: hd, body: body, events: evs, last: hd.first + uint64(len(evs)) - 1}, nil
}

// outMsg is a commit on its way to the stream.
type outMsg struct {
	subject string
	msgID   string // the commit's command id, "" for none
	first   uint64
	last    uint64
	body    []byte
	chain   [hashSize]byte // set once the tail it follows is known
}

// natsMsg builds the message with the journal headers and, when the
// commit has a command id, the receipt header.
func (m *outMsg) natsMsg() *nats.Msg {
	nm := nats.NewMsg(m.subject)
	nm.Data = m.body
	nm.Header.Set(hdrFormat, formatVersion)
	nm.Header.Set(hdrSeq, strconv.FormatUint(m.first, 10))
	nm.Header.Set(hdrChain, hex.EncodeToString(m.chain[:]))
	if m.msgID != "" {
		nm.Header.Set(hdrMsgID, m.msgID)
	}
	return nm
}
