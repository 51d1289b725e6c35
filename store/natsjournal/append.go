package natsjournal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
	"github.com/zeebo/blake3"
)

// Headers nats-server reads. The atomic batch headers (nats-server 2.12+,
// a stream with AllowAtomicPublish) have no constant in nats.go yet.
const (
	hdrMsgID        = jetstream.MsgIDHeader           // the receipt: a command id
	hdrExpectedLast = jetstream.ExpectedLastSeqHeader // the compare-and-swap
	hdrBatchID      = "Nats-Batch-Id"
	hdrBatchSeq     = "Nats-Batch-Sequence"
	hdrBatchCommit  = "Nats-Batch-Commit"
	// headerRoom bounds what the headers add to a body, for the
	// max_payload check before anything is sent.
	headerRoom = 512
	// maxMsgID is the longest command id used as a message id as it is;
	// a longer one, or one with bytes a header cannot carry, is hashed.
	maxMsgID = 128
)

// Append writes commits durably, one stream message per commit with
// events: it returns nil only after the server acknowledged them (see
// doc.go for when that means fsynced). It implements core.Journal.
// Events must carry the journal's next seqs in order (else
// core.ErrSeqMismatch, nothing written). See doc.go, "Appending", for the
// errors it tells apart and what each leaves in the stream.
//
// Once the first message is sent Append waits for the outcome even if
// ctx ends (up to Options.Timeout), because the commits may already be
// durable and the caller has to know.
func (j *Journal) Append(ctx context.Context, commits []core.Commit) error {
	msgs, err := j.prepare(commits)
	if err != nil || len(msgs) == 0 {
		return err
	}
	if err := j.enter(); err != nil {
		return err
	}
	defer j.closeMu.RUnlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stale {
		if err := j.resync(ctx); err != nil {
			return fmt.Errorf("natsjournal: cannot append before the tail of stream %s is known again: %w", j.names.stream, err)
		}
	}
	t := j.tail.Load()
	if msgs[0].first != t.seq+1 {
		return fmt.Errorf("natsjournal: %w: got seq %d, the journal's next is %d", core.ErrSeqMismatch, msgs[0].first, t.seq+1)
	}
	prev := t.chain
	for _, m := range msgs {
		m.chain = chainNext(prev, m.body)
		prev = m.chain
	}
	size := 1
	if j.atomic {
		size = j.opts.MaxBatch
	}
	for start := 0; start < len(msgs); start += size {
		chunk := msgs[start:min(start+size, len(msgs))]
		ack, err := j.publishChunk(ctx, chunk)
		if err == nil {
			err = j.accept(ack, chunk)
		}
		if err != nil {
			return j.failed(ctx, err, msgs, start)
		}
	}
	return nil
}

// prepare checks the seqs of commits and encodes one message per commit
// that has events.
func (j *Journal) prepare(commits []core.Commit) ([]*outMsg, error) {
	var msgs []*outMsg
	var next uint64
	ids := map[string]bool{}
	limit := j.nc.MaxPayload()
	for ci := range commits {
		c := &commits[ci]
		if len(c.Events) == 0 {
			continue
		}
		for i := range c.Events {
			if s := c.Events[i].Seq; len(msgs)+i > 0 && s != next {
				return nil, fmt.Errorf("natsjournal: %w: the batch jumps from seq %d to %d (a caller bug)", core.ErrSeqMismatch, next-1, s)
			}
			next = c.Events[i].Seq + 1
		}
		body, err := encodeBody(c.Events)
		if err != nil {
			return nil, err
		}
		m := &outMsg{subject: j.names.subject + threadToken(commitThread(c.Events)),
			first: c.Events[0].Seq, last: next - 1, body: body}
		if int64(len(body)+headerRoom) > limit {
			return nil, fmt.Errorf("natsjournal: the commit at seq %d is %d bytes, more than the server's max_payload of %d bytes: raise max_payload on the server", m.first, len(body), limit)
		}
		// The server refuses a batch that names one message id twice;
		// the projection's receipts dedupe commands anyway, so only the
		// first commit of a command carries its id.
		if id := msgID(c.Command); id != "" && !ids[id] {
			m.msgID, ids[id] = id, true
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// commitThread is the thread every event of a commit that names one
// names, or "" (the project-wide subject) when they name none or several.
func commitThread(evs []core.Event) string {
	th := ""
	for i := range evs {
		switch t := evs[i].Thread; {
		case t == "" || t == th:
		case th == "":
			th = t
		default:
			return ""
		}
	}
	return th
}

// msgID is the message id of a command id: the id itself when a header
// can carry it, else the hex of its BLAKE3.
func msgID(cmd string) string {
	if cmd == "" {
		return ""
	}
	ok := len(cmd) <= maxMsgID
	for i := 0; ok && i < len(cmd); i++ {
		ok = cmd[i] > ' ' && cmd[i] < 0x7f
	}
	if ok {
		return cmd
	}
	sum := blake3.Sum256([]byte(cmd))
	return "b3-" + hex.EncodeToString(sum[:16])
}

// publishChunk publishes msgs after the tail: one message with the
// compare-and-swap header, or an atomic batch whose first message carries
// it (the server checks the whole batch under one lock).
func (j *Journal) publishChunk(ctx context.Context, chunk []*outMsg) (*pubAck, error) {
	expected := strconv.FormatUint(j.tail.Load().stream, 10)
	if len(chunk) == 1 {
		nm := chunk[0].natsMsg()
		j.stamp(nm)
		nm.Header.Set(hdrExpectedLast, expected)
		return j.request(ctx, nm)
	}
	var rnd [16]byte
	_, _ = rand.Read(rnd[:])
	id := hex.EncodeToString(rnd[:])
	for i, m := range chunk {
		nm := m.natsMsg()
		j.stamp(nm)
		nm.Header.Set(hdrBatchID, id)
		nm.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
		if i == 0 {
			nm.Header.Set(hdrExpectedLast, expected)
		}
		if i < len(chunk)-1 {
			// Staged by the server; nothing is stored until the commit.
			if err := j.nc.PublishMsg(nm); err != nil {
				return nil, &sendError{err}
			}
			continue
		}
		nm.Header.Set(hdrBatchCommit, "1")
		ack, err := j.request(ctx, nm)
		if err == nil && ack.Batch != id {
			err = &unknownOutcome{fmt.Errorf("the acknowledgement names batch %q, not %q", ack.Batch, id)}
		}
		return ack, err
	}
	return nil, nil
}

// accept checks a chunk's acknowledgement and moves the tail past it.
func (j *Journal) accept(ack *pubAck, chunk []*outMsg) error {
	t := j.tail.Load()
	if ack.Duplicate {
		return fmt.Errorf("%w: command %q is stream message %d already; nothing from seq %d was written",
			ErrDuplicate, chunk[0].msgID, ack.Seq, chunk[0].first)
	}
	if want := t.stream + uint64(len(chunk)); ack.Stream != j.names.stream || ack.Seq != want {
		return &unknownOutcome{fmt.Errorf("the server acknowledged message %d of stream %q, message %d of %q was due",
			ack.Seq, ack.Stream, want, j.names.stream)}
	}
	last := chunk[len(chunk)-1]
	j.tail.Store(&tail{stream: ack.Seq, first: last.first, seq: last.last, chain: last.chain})
	return nil
}

// failed turns a failed publish of msgs[done:] into the error Append
// returns, reloading the tail where the stream may have moved.
func (j *Journal) failed(ctx context.Context, err error, msgs []*outMsg, done int) error {
	var se *serverError
	var unknown *unknownOutcome
	from := msgs[done].first
	wrote := ""
	if done > 0 {
		wrote = fmt.Sprintf(" (the commits through seq %d were written before it)", msgs[done-1].last)
	}
	switch {
	case errors.As(err, &se) && se.ErrCode == errCodeWrongLastSeq:
		j.stale = true
		_ = j.resync(ctx) // if it fails the tail stays stale and the next Append retries
		return fmt.Errorf("%w (%w): stream %s moved past message %d; nothing from seq %d was written%s; reload the journal and decide again",
			ErrFenced, core.ErrSeqMismatch, j.names.stream, j.tail.Load().stream, from, wrote)
	case errors.As(err, &se) && se.ErrCode == errCodeBatchDuplicate:
		// The server checks message ids before the compare-and-swap in
		// a batch: the tail may have moved as well.
		j.stale = true
		_ = j.resync(ctx)
		return fmt.Errorf("%w: a command of the batch from seq %d is in the stream already; nothing of the batch was written%s",
			ErrDuplicate, from, wrote)
	case errors.As(err, &unknown):
		j.stale = true
		if j.resync(ctx) == nil {
			t := j.tail.Load()
			for k := len(msgs) - 1; k >= done; k-- {
				if t.seq == msgs[k].last && t.chain == msgs[k].chain {
					if k == len(msgs)-1 {
						return nil // stored after all: the chain names exactly these commits
					}
					wrote = fmt.Sprintf(" (the commits through seq %d were written)", msgs[k].last)
					from = msgs[k+1].first
					break
				}
			}
		}
		return fmt.Errorf("%w: append to stream %s: %v; from seq %d%s: reload the journal before deciding again",
			ErrMaybeStored, j.names.stream, unknown, from, wrote)
	case errors.Is(err, ErrDuplicate):
		return fmt.Errorf("%w%s", err, wrote)
	}
	return fmt.Errorf("natsjournal: append to stream %s: %w; nothing from seq %d was written%s", j.names.stream, err, from, wrote)
}

// request sends nm and waits for the server's acknowledgement, even past
// the end of ctx.
func (j *Journal) request(ctx context.Context, nm *nats.Msg) (*pubAck, error) {
	rctx, cancel := j.requestCtx(context.WithoutCancel(ctx))
	defer cancel()
	resp, err := j.nc.RequestMsgWithContext(rctx, nm)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, &sendError{fmt.Errorf("no stream takes subject %s (is JetStream enabled?): %w", nm.Subject, err)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v", j.opts.Timeout)
	}
	if err != nil {
		return nil, &unknownOutcome{err}
	}
	return parseAck(resp.Data)
}

// hdrWriter names the host that wrote a message (Options.Writer): who
// wrote what, after a take-over. Not checked by readers.
const hdrWriter = "Nexus-Writer"

// stamp sets the writer header when the journal has a writer name.
func (j *Journal) stamp(nm *nats.Msg) {
	if j.opts.Writer != "" {
		nm.Header.Set(hdrWriter, j.opts.Writer)
	}
}

// Writer returns the Nexus-Writer header of the stream's message at
// stream sequence seq ("" when it has none), and whether the message
// exists: how a test or an operator sees which host wrote each commit.
func (j *Journal) Writer(ctx context.Context, seq uint64) (string, bool, error) {
	cctx, cancel := j.requestCtx(ctx)
	defer cancel()
	m, err := j.stream.GetMsg(cctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return m.Header.Get(hdrWriter), true, nil
}
