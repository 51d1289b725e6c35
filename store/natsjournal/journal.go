package natsjournal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nexus-tui/nexus/core"
)

// Defaults of Options.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultDuplicates = 10 * time.Minute
	// DefaultMaxBatch is the server's default limit of messages in one
	// atomic batch (nats-server JetStreamLimits.MaxBatchSize).
	DefaultMaxBatch = 1000
)

// Options configure Open. The zero value is what nexus runs with.
type Options struct {
	// Timeout bounds each request to the server: a publish and its
	// acknowledgement, a message get, a stream lookup. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Duplicates is the stream's duplicate window: a second commit with
	// the same command id inside it is dropped by the server. Zero means
	// DefaultDuplicates. It applies when Open creates or updates the stream.
	Duplicates time.Duration
	// Replicas is how many servers keep the stream and the snapshot
	// bucket (1 on a single server, 3 on a cluster). Zero means 1.
	Replicas int
	// Sequential publishes the commits of one Append one after the other,
	// each with its own compare-and-swap, even where the server supports
	// atomic batches. Servers older than nats-server 2.12 always get that.
	// Dangerous: a failure part-way leaves a durable prefix of the commits
	// (see doc.go, "Atomic appends"). For tests of that path.
	Sequential bool
	// Writer names the host appending, in a Nexus-Writer header on every
	// message it writes (Journal.Writer reads it back).
	Writer string
	// ReadOnly opens an existing journal without creating or changing its
	// stream or bucket, as a viewer's credentials require; its Append and
	// SaveSnapshot fail (the server refuses them).
	ReadOnly bool
	// MaxBatch is the most commits one atomic batch carries; an Append of
	// more is split into several batches, each atomic. Zero means
	// DefaultMaxBatch; it must not exceed the server's limit.
	MaxBatch int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Duplicates <= 0 {
		o.Duplicates = DefaultDuplicates
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	return o
}

// Journal is the journal of one project on a JetStream stream. It
// implements core.Journal. All methods are safe for concurrent use;
// appends are serialised.
type Journal struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	objs   jetstream.ObjectStore
	names  names
	opts   Options
	atomic bool // the stream takes atomic batches and Options allow them

	// mu is held by Append (for its whole publish) and by whatever
	// reloads the tail. It guards stale.
	mu sync.Mutex
	// stale: the outcome of a publish is unknown, so the tail must be
	// read from the server before the next Append.
	stale bool
	// tail is the last commit this journal knows durable; written under
	// mu, read without it.
	tail atomic.Pointer[tail]

	// closeMu orders calls against Close: calls hold it shared.
	closeMu sync.RWMutex
	closed  bool
}

// tail is the stream's last commit as this journal last saw it.
type tail struct {
	stream uint64         // its stream sequence (0: the stream is empty)
	first  uint64         // seq of its first event
	seq    uint64         // seq of its last event, the journal's Last
	chain  [hashSize]byte // the chain hash after it
}

// Open opens the journal of project on the JetStream server nc is
// connected to, creating its stream and snapshot bucket if needed (or
// updating them to the settings in doc.go), and reads the stream's tail.
// The caller owns nc and closes it after Close.
func Open(ctx context.Context, nc *nats.Conn, project string, opts Options) (*Journal, error) {
	if nc == nil {
		return nil, errors.New("natsjournal: no NATS connection; connect first (nats.Connect) and pass it")
	}
	nm, err := namesFor(project)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: JetStream client: %w", err)
	}
	j := &Journal{nc: nc, js: js, names: nm, opts: opts}
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if opts.ReadOnly {
		err = j.lookUp(cctx, project)
	} else {
		err = j.create(cctx, project)
	}
	if err != nil {
		return nil, err
	}
	j.atomic = j.stream.CachedInfo().Config.AllowAtomicPublish && !opts.Sequential
	j.tail.Store(&tail{})
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.resync(ctx); err != nil {
		return nil, err
	}
	return j, nil
}

// create creates or updates the stream and the bucket.
func (j *Journal) create(ctx context.Context, project string) error {
	var err error
	j.stream, err = j.js.CreateOrUpdateStream(ctx, j.streamConfig(project))
	if err != nil {
		return fmt.Errorf("natsjournal: create or update stream %s: %w; is JetStream enabled on the server, and are these a host's credentials?", j.names.stream, err)
	}
	j.objs, err = j.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: j.names.bucket, Description: "nexus snapshots of project " + project,
		Storage: jetstream.FileStorage, Replicas: j.opts.Replicas,
	})
	if err != nil {
		return fmt.Errorf("natsjournal: create or update snapshot bucket %s: %w", j.names.bucket, err)
	}
	return nil
}

// lookUp finds the stream and the bucket a host made.
func (j *Journal) lookUp(ctx context.Context, project string) error {
	var err error
	if j.stream, err = j.js.Stream(ctx, j.names.stream); err != nil {
		return fmt.Errorf("natsjournal: project %s has no journal on this hub (stream %s: %v); a host of the project makes it", project, j.names.stream, err)
	}
	if j.objs, err = j.js.ObjectStore(ctx, j.names.bucket); err != nil {
		return fmt.Errorf("natsjournal: snapshot bucket %s: %w", j.names.bucket, err)
	}
	return nil
}

// streamConfig is the stream of doc.go, "Stream".
func (j *Journal) streamConfig(project string) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        j.names.stream,
		Description: journalDesc + project,
		Subjects:    []string{j.names.subject + ">"},
		Retention:   jetstream.LimitsPolicy,
		// A journal is never trimmed: no limit, and should an account
		// limit ever be reached the server refuses new commits rather
		// than dropping old ones.
		MaxMsgs: -1, MaxBytes: -1, MaxAge: 0, MaxMsgsPerSubject: -1, MaxMsgSize: -1,
		Discard:            jetstream.DiscardNew,
		Storage:            jetstream.FileStorage,
		Replicas:           j.opts.Replicas,
		Duplicates:         j.opts.Duplicates,
		DenyDelete:         true,
		DenyPurge:          true,
		AllowAtomicPublish: true,
	}
}

// Last returns the seq of the last event this journal knows durable (0
// when empty). It implements core.Journal. Another writer's appends show
// after this journal's next Append is fenced by them, or after Open.
func (j *Journal) Last() uint64 { return j.tail.Load().seq }

// Close marks the journal closed once the calls in progress return. It
// does not close the connection, which the caller owns. Calls after the
// first return nil.
func (j *Journal) Close() error {
	j.closeMu.Lock()
	defer j.closeMu.Unlock()
	j.closed = true
	return nil
}

// enter starts a call: it fails with ErrClosed after Close, else the
// caller must call j.closeMu.RUnlock when done.
func (j *Journal) enter() error {
	j.closeMu.RLock()
	if j.closed {
		j.closeMu.RUnlock()
		return ErrClosed
	}
	return nil
}

// requestCtx bounds one request by Options.Timeout.
func (j *Journal) requestCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, j.opts.Timeout)
}

// resync reads the stream's tail from the server: the last message,
// checked against the one before it. Callers hold mu.
func (j *Journal) resync(ctx context.Context) error {
	cctx, cancel := j.requestCtx(ctx)
	defer cancel()
	info, err := j.stream.Info(cctx)
	if err != nil {
		return fmt.Errorf("natsjournal: read the state of stream %s: %w", j.names.stream, err)
	}
	st := info.State
	if st.Msgs == 0 && st.LastSeq == 0 {
		j.tail.Store(&tail{})
		j.stale = false
		return nil
	}
	if st.FirstSeq != 1 || st.Msgs != st.LastSeq {
		return j.corrupt(st.FirstSeq, "the stream holds %d messages numbered %d to %d; a journal keeps every message from 1",
			st.Msgs, st.FirstSeq, st.LastSeq)
	}
	last, err := j.record(ctx, st.LastSeq)
	if err != nil {
		return err
	}
	var prev [hashSize]byte
	if st.LastSeq > 1 {
		p, err := j.record(ctx, st.LastSeq-1)
		if err != nil {
			return err
		}
		if last.first != p.last+1 {
			return j.corrupt(st.LastSeq, "it starts at seq %d but the message before ends at %d", last.first, p.last)
		}
		prev = p.chain
	} else if last.first != 1 {
		return j.corrupt(1, "the first message starts at seq %d, not 1", last.first)
	}
	if chainNext(prev, last.body) != last.chain {
		return j.corrupt(st.LastSeq, "its chain hash does not match its body and the hash before it")
	}
	j.tail.Store(&tail{stream: st.LastSeq, first: last.first, seq: last.last, chain: last.chain})
	j.stale = false
	return nil
}

// get fetches one stream message by its sequence.
func (j *Journal) get(ctx context.Context, seq uint64) (*jetstream.RawStreamMsg, error) {
	cctx, cancel := j.requestCtx(ctx)
	defer cancel()
	m, err := j.stream.GetMsg(cctx, seq)
	if err != nil {
		return nil, fmt.Errorf("natsjournal: get message %d of stream %s: %w", seq, j.names.stream, err)
	}
	return m, nil
}

// record fetches and decodes one stream message.
func (j *Journal) record(ctx context.Context, seq uint64) (*record, error) {
	m, err := j.get(ctx, seq)
	if err != nil {
		return nil, err
	}
	r, err := decodeMessage(m.Header, m.Data)
	if err != nil {
		return nil, j.corrupt(seq, "%v", err)
	}
	return r, nil
}

// headerAt fetches one stream message and reads only its headers.
func (j *Journal) headerAt(ctx context.Context, seq uint64) (header, error) {
	m, err := j.get(ctx, seq)
	if err != nil {
		return header{}, err
	}
	h, err := parseHeader(m.Header)
	if err != nil {
		return header{}, j.corrupt(seq, "%v", err)
	}
	return h, nil
}

var _ core.Journal = (*Journal)(nil)

// Leader returns the name of the hub that leads the journal's stream on
// a cluster (every write goes through it), or "" on a single server.
func (j *Journal) Leader(ctx context.Context) (string, error) {
	cctx, cancel := j.requestCtx(ctx)
	defer cancel()
	info, err := j.stream.Info(cctx)
	if err != nil {
		return "", fmt.Errorf("natsjournal: stream %s: %w", j.names.stream, err)
	}
	if info.Cluster == nil {
		return "", nil
	}
	return info.Cluster.Leader, nil
}
