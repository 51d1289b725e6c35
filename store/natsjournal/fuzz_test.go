package natsjournal

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/nats-io/nats.go"
)

func headerOf(first, chain string) nats.Header {
	h := nats.Header{}
	h.Set(hdrFormat, formatVersion)
	h.Set(hdrSeq, first)
	h.Set(hdrChain, chain)
	return h
}

// The structural check refuses what would make the reflection decoder
// allocate without bound or recurse without end, and takes real bodies.
func TestCheckMsgpack(t *testing.T) {
	good, err := encodeBody(gen(10, 0, 30)[0].Events)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMsgpack(good); err != nil {
		t.Fatalf("a real body was refused: %v", err)
	}
	bad := map[string][]byte{
		"empty":             {},
		"huge array":        {0xdd, 0xff, 0xff, 0xff, 0xff},
		"huge map":          {0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0},
		"huge string":       {0xdb, 0x7f, 0xff, 0xff, 0xff, 'a'},
		"nested array":      {0x91, 0x91, 0xdc, 0xff, 0xff},
		"deep nesting":      append(bytes.Repeat([]byte{0x91}, 100000), 0xc0),
		"never used byte":   {0xc1},
		"trailing bytes":    append(append([]byte{}, good...), 0),
		"cut short":         good[:len(good)-1],
		"cut ext":           {0xc7, 0x05, 0x01, 0x00},
		"two values":        {0xc0, 0xc0},
		"fixext type only":  {0xd4, 0x01},
		"map with odd half": {0x81, 0xa1, 'k'},
	}
	for name, b := range bad {
		if err := checkMsgpack(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzDecodeMessage feeds arbitrary headers and bodies to the message
// decoder: it must never panic, and what it accepts must re-encode to a
// body that decodes to the same events.
func FuzzDecodeMessage(f *testing.F) {
	for _, c := range gen(11, 0, 60) {
		body, err := encodeBody(c.Events)
		if err != nil {
			f.Fatal(err)
		}
		chain := chainNext([hashSize]byte{}, body)
		f.Add(strconv.FormatUint(c.Events[0].Seq, 10), hex.EncodeToString(chain[:]), body)
	}
	f.Add("1", "00", []byte{0x91, 0xc0})
	f.Add("x", "", []byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, first, chain string, body []byte) {
		r, err := decodeMessage(headerOf(first, chain), body)
		if err != nil {
			return
		}
		again, err := encodeBody(r.events)
		if err != nil {
			t.Fatalf("accepted events do not encode: %v", err)
		}
		r2, err := decodeMessage(headerOf(first, chain), again)
		if err != nil {
			t.Fatalf("re-encoded events do not decode: %v", err)
		}
		if len(r2.events) != len(r.events) || r2.last != r.last {
			t.Fatalf("round trip changed the commit: %d events to %d", len(r.events), len(r2.events))
		}
		if third, _ := encodeBody(r2.events); !bytes.Equal(third, again) {
			t.Fatal("the encoding of accepted events is not stable")
		}
	})
}
