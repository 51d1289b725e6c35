package natsjournal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// publishRaw writes cs to j's stream past the journal, each commit one
// message chained from the one before; forge changes the message of
// stream sequence bad before it is sent (it gets the message, its chain
// set, and the chain before it). It returns the events of the messages
// before bad.
func publishRaw(t *testing.T, j *Journal, cs []core.Commit, bad uint64, forge func(m *outMsg, prev [hashSize]byte)) []core.Event {
	t.Helper()
	js := rawJS(t, j.nc)
	var prev [hashSize]byte
	var before []core.Event
	for i, c := range cs {
		m := &outMsg{subject: j.names.subject + "t1", first: c.Events[0].Seq, last: c.Events[len(c.Events)-1].Seq}
		m.body, _ = encodeBody(c.Events)
		m.chain = chainNext(prev, m.body)
		if seq := uint64(i + 1); seq < bad {
			before = append(before, c.Events...)
		} else if seq == bad {
			forge(m, prev)
		}
		if _, err := js.PublishMsg(context.Background(), m.natsMsg()); err != nil {
			t.Fatalf("publish message %d: %v", i+1, err)
		}
		prev = m.chain
	}
	return before
}

// A bad message in the middle of a Read, with messages pulled ahead past
// it and several chunks before it, stops the Read at it with a
// *CorruptError naming it, after every event before it was passed on,
// whichever stage of the Read finds it.
func TestReadStopsAtBadMessageInTheMiddle(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	forgeries := map[string]func(m *outMsg, prev [hashSize]byte){
		// the first stage, which checks order and headers, finds this
		"seq header zero": func(m *outMsg, _ [hashSize]byte) { m.first = 0 },
		// the second finds these, by the chain hash
		"body changed": func(m *outMsg, _ [hashSize]byte) {
			m.body = append([]byte(nil), m.body...)
			m.body[len(m.body)-2] ^= 0x01
		},
		"chain header wrong": func(m *outMsg, _ [hashSize]byte) { m.chain[0] ^= 0x01 },
		// and these, which chain, by decoding them
		"body not events": func(m *outMsg, prev [hashSize]byte) {
			m.body = []byte{0x91, 0xc0}
			m.chain = chainNext(prev, m.body)
		},
		"seqs skipped": func(m *outMsg, prev [hashSize]byte) {
			ev := note(m.first+1, "forged")
			m.first, m.last = m.first+1, m.first+1
			m.body, _ = encodeBody(ev.Events)
			m.chain = chainNext(prev, m.body)
		},
	}
	const bad = 3*chunkMsgs + 17
	for name, forge := range forgeries {
		t.Run(name, func(t *testing.T) {
			j := openProject(t, nc, "middle "+name, Options{})
			cs := gen(6, 0, 3000)
			if uint64(len(cs)) < bad+chunkMsgs {
				t.Fatalf("only %d commits, want more than %d", len(cs), bad+chunkMsgs)
			}
			want := publishRaw(t, j, cs, bad, forge)
			var got []core.Event
			err := j.Read(context.Background(), 1, func(ev core.Event) error { got = append(got, ev); return nil })
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.StreamSeq != bad {
				t.Fatalf("Read returned %v, want a *CorruptError at message %d", err, bad)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("Read passed on %d events before the bad message, want %d", len(got), len(want))
			}
			from := want[len(want)-chunkMsgs].Seq // a few chunks before it
			got = got[:0]
			err = j.Read(context.Background(), from, func(ev core.Event) error { got = append(got, ev); return nil })
			if !errors.As(err, &ce) || ce.StreamSeq != bad || len(got) != chunkMsgs || got[0].Seq != from {
				t.Fatalf("Read from seq %d returned %v after %d events, want a *CorruptError at message %d after %d",
					from, err, len(got), bad, chunkMsgs)
			}
		})
	}
}

// An error of fn, or a cancelled context, stops a Read that has chunks
// pulled ahead; fn is not called again, and the error comes back as it
// is.
func TestReadStopsMidway(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	j := openJ(t, nc, Options{})
	mustAppend(t, j, gen(7, 0, 2000)...)
	errStop := errors.New("stop")
	for _, stopAt := range []uint64{1, chunkMsgs + 3, 1000} {
		n := uint64(0)
		err := j.Read(context.Background(), 1, func(ev core.Event) error {
			if n++; ev.Seq != n {
				t.Fatalf("event %d has seq %d", n, ev.Seq)
			}
			if n == stopAt {
				return errStop
			}
			if n > stopAt {
				t.Fatalf("fn called after it failed")
			}
			return nil
		})
		if err != errStop || n != stopAt {
			t.Fatalf("Read returned %v after %d events, want errStop after %d", err, n, stopAt)
		}

		ctx, cancel := context.WithCancel(context.Background())
		n = 0
		err = j.Read(ctx, 1, func(ev core.Event) error {
			if n++; n == stopAt {
				cancel()
			}
			return nil
		})
		cancel()
		if !errors.Is(err, context.Canceled) || n < stopAt {
			t.Fatalf("Read returned %v after %d events, want context.Canceled after %d or more", err, n, stopAt)
		}
	}
}

// Commits of large events make a pull stop at its byte limit before its
// message count: the Read still gets every event, in order.
func TestReadLargeCommits(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	j := openJ(t, nc, Options{})
	big := strings.Repeat("x", int(nc.MaxPayload())*2/3)
	var cs []core.Commit
	for seq := uint64(1); uint64(len(cs))*uint64(len(big)) < 2*readAheadBytes; seq++ {
		c := note(seq, fmt.Sprintf("cmd-%d", seq))
		c.Events[0].Payload.Note = big
		cs = append(cs, c)
	}
	for i := 0; i < len(cs); i += 8 {
		mustAppend(t, j, cs[i:min(i+8, len(cs))]...)
	}
	got := readAll(t, j, 1)
	if len(got) != len(cs) {
		t.Fatalf("read %d events, want %d", len(got), len(cs))
	}
	for i, ev := range got {
		if ev.Seq != uint64(i+1) || ev.Payload.Note != big {
			t.Fatalf("event %d is seq %d with a note of %d bytes", i, ev.Seq, len(ev.Payload.Note))
		}
	}
}
