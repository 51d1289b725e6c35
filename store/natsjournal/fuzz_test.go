package natsjournal

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
	"github.com/vmihailenco/msgpack/v5"
)

func headerOf(first, chain string) nats.Header {
	h := nats.Header{}
	h.Set(hdrFormat, formatVersion)
	h.Set(hdrSeq, first)
	h.Set(hdrChain, chain)
	return h
}

// A body is decoded by the store's event decoder: real bodies decode to
// what the reflection decoder reads from them, and forged lengths,
// nesting and framing are refused without allocating beyond a multiple
// of the body.
func TestDecodeBody(t *testing.T) {
	var wide core.Commit // over 15 events: an array16 header
	for seq := uint64(1); seq <= 20; seq++ {
		wide.Events = append(wide.Events, note(seq, "wide").Events...)
	}
	for _, c := range append(gen(10, 0, 300), wide) {
		body, err := encodeBody(c.Events)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBody(nil, string(body), c.Events[0].Seq)
		if err != nil {
			t.Fatalf("a real body was refused: %v", err)
		}
		var ref []core.Event
		if err := msgpack.Unmarshal(body, &ref); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, ref) || !reflect.DeepEqual(got, c.Events) {
			t.Fatalf("seq %d: the body decodes to %v, the reflection decoder reads %v", c.Events[0].Seq, ids(got), ids(ref))
		}
	}
	good, err := encodeBody(gen(10, 0, 30)[0].Events)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"empty":             {},
		"empty array":       {0x90},
		"not an array":      {0x81, 0xa1, 'q', 0x01},
		"huge array":        {0xdd, 0xff, 0xff, 0xff, 0xff},
		"huge map":          {0x91, 0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0},
		"huge string":       {0x91, 0x81, 0xa1, 'i', 0xdb, 0x7f, 0xff, 0xff, 0xff, 'a'},
		"huge skipped":      {0x91, 0x81, 0xa1, 'z', 0xdd, 0xff, 0xff, 0xff, 0xff},
		"nested array":      {0x91, 0x91, 0xdc, 0xff, 0xff},
		"deep nesting":      append(append([]byte{0x91, 0x81, 0xa1, 'z'}, bytes.Repeat([]byte{0x91}, 100000)...), 0xc0),
		"never used byte":   {0xc1},
		"trailing bytes":    append(append([]byte{}, good...), 0),
		"cut short":         good[:len(good)-1],
		"nil event":         {0x91, 0xc0},
		"map with odd half": {0x91, 0x81, 0xa1, 'q'},
	}
	for name, b := range bad {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeBody(nil, string(b), 1)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20+64*uint64(len(b)) {
			t.Errorf("%s: %d bytes allocated for a body of %d", name, n, len(b))
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

// FuzzDecodeCommand: a command that comes through the hub's queue is
// untrusted bytes. Decoding never panics; what decodes has an id and
// survives a round trip unchanged; what does not is refused input.
func FuzzDecodeCommand(f *testing.F) {
	f.Add([]byte(`{"id":"c1","kind":"thread.create","newThread":"t1","provider":"builtin","title":"x"}`))
	f.Add([]byte(`{"id":"c2","kind":"message.send","thread":"t1","text":"hello","mode":"steer"}`))
	f.Add([]byte(`{"id":"","kind":"message.send"}`))
	f.Add([]byte(`{"id":"c3","kind":"request.respond","request":"R1","response":"allow","extra":1}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmd, err := decodeCommand(data)
		if err != nil {
			var ie *core.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("decode failed with %T, not refused input: %v", err, err)
			}
			return
		}
		if cmd.ID == "" {
			t.Fatal("a command without an id decoded")
		}
		again, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		cmd2, err := decodeCommand(again)
		if err != nil {
			t.Fatalf("a decoded command does not decode again: %v", err)
		}
		if b, _ := json.Marshal(cmd2); !bytes.Equal(b, again) {
			t.Fatalf("round trip changed the command:\n%s\n%s", again, b)
		}
	})
}

// FuzzDiffRequest: a diff request is untrusted bytes too. Answering it
// never panics; the owner's diff is asked only for a named thread and a
// run not below 0; every answer is text or an error, its text within
// the hub's limit and valid UTF-8 when the diff was.
func FuzzDiffRequest(f *testing.F) {
	f.Add([]byte(`{"thread":"t1","run":2,"stat":true}`), "+é\n")
	f.Add([]byte(`{"thread":"t1","from":"base","to":"mark/1"}`), "")
	f.Add([]byte(`{"thread":"","run":-1}`), "x")
	f.Add([]byte(`{"thread":"t1","run":1e99}`), "x")
	f.Add([]byte(`null`), "x")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		big := strings.Repeat(text, min(maxDiffReply*2/max(len(text), 1), 1<<20)+1)
		r := answerDiff(context.Background(), data, func(_ context.Context, q DiffRequest) (string, error) {
			if q.Thread == "" || q.Run < 0 {
				t.Fatalf("the owner was asked for %+v", q)
			}
			if text == "" {
				return "", errors.New("no such run")
			}
			return big, nil
		})
		if (r.Text == "") == (r.Error == "") {
			t.Fatalf("an answer with text %d bytes and error %q", len(r.Text), r.Error)
		}
		if len(r.Text) > maxDiffReply || utf8.ValidString(big) && !utf8.ValidString(r.Text) {
			t.Fatalf("an answer of %d bytes (valid UTF-8 %v) from a diff of %d", len(r.Text), utf8.ValidString(r.Text), len(big))
		}
	})
}
