package natsjournal

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
)

// modes are the two ways Append publishes a batch of commits.
var modes = []struct {
	name string
	opts Options
}{{"Atomic", Options{}}, {"Sequential", Options{Sequential: true}}}

// A command id is the message id: a second commit of the same command
// inside the duplicate window is dropped by the server, whether it comes
// through the journal or straight onto the subject, and the journal says
// so instead of pretending it was written.
func TestReceiptDedupes(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			h := startHub(t, t.TempDir())
			nc := connect(t, h.url)
			j := openJ(t, nc, mode.opts)
			mustAppend(t, j, note(1, "cmd-1"))

			// Straight onto the subject with the same id: not stored.
			m := nats.NewMsg(j.names.subject + "t1")
			m.Header.Set(hdrMsgID, "cmd-1")
			m.Data = []byte("a second copy")
			ack, err := rawJS(t, nc).PublishMsg(context.Background(), m)
			if err != nil || !ack.Duplicate || ack.Sequence != 1 {
				t.Fatalf("a raw publish of command cmd-1 again: ack %+v, %v; want a duplicate of message 1", ack, err)
			}

			// Through the journal: refused, nothing written.
			err = j.Append(context.Background(), []core.Commit{note(2, "cmd-1")})
			if !errors.Is(err, ErrDuplicate) {
				t.Fatalf("appending command cmd-1 again returned %v, want ErrDuplicate", err)
			}
			if j.Last() != 1 || streamMsgs(t, j) != 1 {
				t.Fatalf("after the duplicate: Last() = %d, %d messages; want 1 and 1", j.Last(), streamMsgs(t, j))
			}

			// In a batch: atomic writes none of it, sequential the prefix.
			err = j.Append(context.Background(), []core.Commit{note(2, "cmd-2"), note(3, "cmd-1")})
			if !errors.Is(err, ErrDuplicate) {
				t.Fatalf("a batch repeating cmd-1 returned %v, want ErrDuplicate", err)
			}
			want := uint64(1)
			if j.opts.Sequential {
				want = 2
			}
			if j.Last() != want || streamMsgs(t, j) != want {
				t.Fatalf("after a batch repeating cmd-1: Last() = %d, %d messages; want %d", j.Last(), streamMsgs(t, j), want)
			}
			mustAppend(t, j, note(want+1, "cmd-3"))
			if got := readAll(t, j, 1); len(got) != int(want+1) || got[0].Payload.Note != "cmd-1" {
				t.Fatalf("the journal holds %v", ids(got))
			}
		})
	}
}

// Two journals on one stream: the one that did not see the other's
// append is fenced by the compare-and-swap, writes nothing, and learns
// the tail, so it can go on after its caller reloads.
func TestStaleWriterIsFenced(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			h := startHub(t, t.TempDir())
			a := openJ(t, connect(t, h.url), mode.opts)
			b := openJ(t, connect(t, h.url), mode.opts)

			mustAppend(t, a, gen(1, 0, 5)...)
			before := readAll(t, a, 1)
			err := b.Append(context.Background(), gen(2, 0, 4))
			if !errors.Is(err, ErrFenced) || !errors.Is(err, core.ErrSeqMismatch) {
				t.Fatalf("the stale writer's append returned %v, want ErrFenced and core.ErrSeqMismatch", err)
			}
			if got := readAll(t, a, 1); !slices.Equal(ids(got), ids(before)) {
				t.Fatalf("the fenced append changed the journal:\n got %v\nwant %v", ids(got), ids(before))
			}
			if b.Last() != 5 {
				t.Fatalf("the fenced writer says Last() = %d, want the stream's 5", b.Last())
			}

			// b reloaded; now a is the stale one.
			mustAppend(t, b, gen(3, 5, 3)...)
			err = a.Append(context.Background(), []core.Commit{note(6, "late")})
			if !errors.Is(err, ErrFenced) {
				t.Fatalf("a's append after b's returned %v, want ErrFenced", err)
			}
			if got := readAll(t, b, 6); len(got) != 3 || got[0].ID != gen(3, 5, 3)[0].Events[0].ID {
				t.Fatalf("seqs 6-8 are %v, want b's", ids(got))
			}
			if a.Last() != 8 || b.Last() != 8 {
				t.Fatalf("Last() is %d and %d, want 8 for both", a.Last(), b.Last())
			}
		})
	}
}

// A message written onto the subject past the journal, or one whose body
// was changed, breaks the chain: Read stops at it with a *CorruptError
// naming its stream sequence, after passing on every event before it,
// and a journal opened on the stream refuses it.
func TestReadCatchesForgedMessage(t *testing.T) {
	h := startHub(t, t.TempDir())
	nc := connect(t, h.url)
	forgeries := map[string]func(m *outMsg) *nats.Msg{
		"body changed": func(m *outMsg) *nats.Msg {
			nm := m.natsMsg()
			nm.Data = append([]byte(nil), m.body...)
			nm.Data[len(nm.Data)-2] ^= 0x01 // a character of the note
			return nm
		},
		"no journal headers": func(m *outMsg) *nats.Msg {
			nm := nats.NewMsg(m.subject)
			nm.Data = m.body
			return nm
		},
		"chained but skipping a seq": func(m *outMsg) *nats.Msg {
			m.first, m.last = m.first+1, m.last+1
			ev := note(m.first, "forged")
			m.body, _ = encodeBody(ev.Events)
			m.chain = chainNext(m.chain, m.body) // m.chain holds the previous hash here
			return m.natsMsg()
		},
	}
	for name, forge := range forgeries {
		t.Run(name, func(t *testing.T) {
			j := openProject(t, nc, "forge "+name, Options{})
			mustAppend(t, j, gen(4, 0, 9)...)
			want := readAll(t, j, 1)
			tl := j.tail.Load()
			ev := note(tl.seq+1, "forged")
			m := &outMsg{subject: j.names.subject + "t1", first: tl.seq + 1, last: tl.seq + 1}
			m.body, _ = encodeBody(ev.Events)
			m.chain = tl.chain
			if name != "chained but skipping a seq" {
				m.chain = chainNext(tl.chain, m.body)
			}
			if _, err := rawJS(t, nc).PublishMsg(context.Background(), forge(m)); err != nil {
				t.Fatalf("publish the forgery: %v", err)
			}
			forged := tl.stream + 1

			var got []core.Event
			err := j.Read(context.Background(), 1, func(ev core.Event) error { got = append(got, ev); return nil })
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.StreamSeq != forged || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read returned %v, want a *CorruptError at message %d", err, forged)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("Read passed on %v before the forgery, want %v", ids(got), ids(want))
			}
			err = j.Read(context.Background(), j.Last(), func(core.Event) error { return nil })
			if !errors.As(err, &ce) || ce.StreamSeq != forged {
				t.Fatalf("Read from the last seq returned %v, want a *CorruptError at message %d", err, forged)
			}
			_, err = Open(context.Background(), nc, "forge "+name, Options{})
			if !errors.As(err, &ce) || ce.StreamSeq != forged {
				t.Fatalf("Open on the forged stream returned %v, want a *CorruptError at message %d", err, forged)
			}
		})
	}
}
