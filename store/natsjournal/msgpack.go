package natsjournal

import (
	"errors"
	"fmt"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// decodeBody appends the events of a message body to dst: a msgpack
// array of events, each read by the store's own event decoder
// (store.DecodeEvent: the body holds the same bytes the store holds for
// an event, see encodeBody), so their strings are substrings of body.
// The events must carry the seqs first, first+1, ... and the array must
// end the body. On an error dst comes back as it was given.
//
// Bodies come from the server, so from anyone who can publish on the
// subject. The decoder refuses any length the bytes left cannot hold
// before it allocates for it and nests only as deep as core's types, so
// a forged length costs at most memory in proportion to the body: the
// structural pass the reflection decoder needed is not needed.
func decodeBody(dst []core.Event, body string, first uint64) ([]core.Event, error) {
	n, s, err := arrayLen(body)
	if err != nil || n == 0 {
		return dst, fmt.Errorf("body is not a non-empty array of events (%d, %v)", n, err)
	}
	n0 := len(dst)
	for i := range n {
		dst = append(dst, core.Event{})
		ev := &dst[len(dst)-1]
		if s, err = store.DecodeEvent(s, ev); err != nil {
			return dst[:n0], fmt.Errorf("event %d of the body does not decode: %w", i, err)
		}
		if want := first + uint64(i); ev.Seq != want {
			return dst[:n0], fmt.Errorf("event %d of the body has seq %d, the headers make it %d", i, ev.Seq, want)
		}
	}
	if len(s) != 0 {
		return dst[:n0], fmt.Errorf("body has %d bytes after its events", len(s))
	}
	return dst, nil
}

// arrayLen reads the msgpack array header at the start of s and returns
// its length and the bytes after it. An array cannot hold more elements
// than bytes follow its header.
func arrayLen(s string) (int, string, error) {
	if s == "" {
		return 0, s, errors.New("empty")
	}
	c, s := s[0], s[1:]
	var n uint64
	switch {
	case msgpcode.IsFixedArray(c):
		n = uint64(c & msgpcode.FixedArrayMask)
	case c == msgpcode.Array16, c == msgpcode.Array32:
		size := 2
		if c == msgpcode.Array32 {
			size = 4
		}
		if len(s) < size {
			return 0, s, errors.New("array length cut short")
		}
		for i := range size {
			n = n<<8 | uint64(s[i])
		}
		s = s[size:]
	default:
		return 0, s, fmt.Errorf("code %#x is not an array", c)
	}
	if n > uint64(len(s)) {
		return 0, s, fmt.Errorf("array of %d elements in %d bytes", n, len(s))
	}
	return int(n), s, nil
}
