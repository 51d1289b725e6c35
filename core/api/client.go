package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// DefaultTimeout is how long Dial waits for the host to answer when it is
// given no timeout: one second (docs/ARCHITECTURE.md, "Host and
// clients").
const DefaultTimeout = time.Second

// Client is a core.Backend served by a host over its socket. It is safe
// for concurrent use: requests share one connection, one at a time (a
// caller waits its turn, or until its context ends); each subscription has
// a connection of its own.
type Client struct {
	path    string
	timeout time.Duration
	uid     int  // the uid the host must run as: this process's effective uid
	dialled bool // Dial succeeded: a later failed connect means the host went away

	// restart, when set, starts a new host when nothing listens on the
	// socket any more (SetRestart); restartMu guards it and runs one at
	// a time.
	restart   func(context.Context) error
	restartMu sync.Mutex

	// sem admits one request at a time. Its holder owns nextID and is the
	// only user of conn and lr.
	sem    chan struct{}
	nextID uint64

	mu     sync.Mutex // guards the fields below
	info   HostInfo   // what the host said in hello: at Dial, again on each new connection
	conn   net.Conn   // nil before the first request and after a failure; dialled again lazily
	lr     *lineReader
	closed bool
	subs   map[stopper]struct{} // open subscriptions and terminal feeds
}

var (
	_ core.Backend   = (*Client)(nil)
	_ core.Terminals = (*Client)(nil)
)

// Dial connects to the host at path and checks that it answers hello
// within timeout (DefaultTimeout when timeout <= 0). Close the Client when
// done.
//
// A host that runs as another user is refused before anything is sent
// to it, with a *UIDError; so is every later connection the Client
// opens (doc.go, "Who may connect").
func Dial(ctx context.Context, path string, timeout time.Duration) (*Client, error) {
	return dialAs(ctx, path, timeout, os.Geteuid())
}

// dialAs is Dial for a client that wants a host of uid; tests pass
// another uid than theirs to see a foreign host refused.
func dialAs(ctx context.Context, path string, timeout time.Duration, uid int) (*Client, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := &Client{path: path, timeout: timeout, uid: uid, sem: make(chan struct{}, 1), subs: map[stopper]struct{}{}}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var info HostInfo
	if err := c.call(hctx, MethodHello, nil, &info); err != nil {
		c.Close()
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("api: the host at %s did not answer within %v: %w", path, timeout, err)
		}
		if errors.Is(err, ErrHostGone) {
			return nil, fmt.Errorf("%w at %s: %w", ErrRefused, path, err)
		}
		return nil, err
	}
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
	c.dialled = true
	return c, nil
}

// Info is what the host said in hello: when the Client was dialled, and
// again whenever it connected anew (a new host after a restart has
// another pid).
func (c *Client) Info() HostInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// SetRestart makes the Client start a new host with f when the one it
// talked to is gone and nothing listens on the socket, then connect to
// it: a UI that outlives its background host gets the next one. Call it
// before using the Client from several goroutines.
func (c *Client) SetRestart(f func(context.Context) error) { c.restart = f }

// Close ends the request connection and every subscription of the Client
// (their Err becomes ErrClosed). Calls after Close return ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.lr = nil, nil
	}
	for s := range c.subs {
		s.stop(ErrClosed)
	}
	return nil
}

// Submit implements core.Backend. Refused input is a *core.InputError with
// the host's message.
func (c *Client) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	var r core.Receipt
	if err := c.call(ctx, MethodSubmit, cmd, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// State implements core.Backend. The State is reindexed, ready to query.
func (c *Client) State(ctx context.Context) (*core.State, error) {
	var st core.State
	if err := c.call(ctx, MethodState, nil, &st); err != nil {
		return nil, err
	}
	st.Reindex()
	return &st, nil
}

// call runs one request on the shared connection and decodes its result.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("api: %s: %w", method, ctx.Err())
	}
	defer func() { <-c.sem }()
	for attempt := 0; ; attempt++ {
		retry, err := c.callOnce(ctx, method, params, result)
		// A connection kept from before may lead to a host that has
		// gone since (a background host that stopped, or was killed and
		// restarted): try once more on a fresh one. Every request may be
		// sent twice: submits carry their command id, which the host
		// deduplicates.
		if !retry || attempt > 0 {
			return err
		}
	}
}

// callOnce is one try of call; retry reports that it failed on a kept
// connection whose host went away.
func (c *Client) callOnce(ctx context.Context, method string, params, result any) (retry bool, err error) {
	c.nextID++
	id := strconv.FormatUint(c.nextID, 10)
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return false, err
	}
	nc, lr, reused, err := c.connection(ctx)
	if err != nil {
		return false, err
	}
	in, poisoned, err := roundTrip(ctx, nc, lr, line, id, method)
	if err != nil || poisoned {
		// The connection is out of step (or its deadline was cut short
		// by ctx): the next request dials a fresh one.
		c.drop(nc)
	}
	if err != nil {
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return false, ErrClosed // Close cut the call short; the host is fine
		}
		return reused && errors.Is(err, ErrHostGone) && ctx.Err() == nil, err
	}
	if in.Error != nil {
		return false, remoteError(in.Error)
	}
	if err := json.Unmarshal(in.Result, result); err != nil {
		return false, fmt.Errorf("api: the host sent a bad %s result: %w", method, err)
	}
	return false, nil
}

func encodeRequest(id, method string, params any) ([]byte, error) {
	req := request{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, &core.InputError{Msg: fmt.Sprintf("cannot encode %s params: %v", method, err)}
		}
		req.Params = p
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("api: encode %s request: %w", method, err)
	}
	if len(line) > MaxRequestBytes {
		return nil, &core.InputError{Msg: fmt.Sprintf("the %s request is %d bytes encoded, over the limit of %d bytes", method, len(line), MaxRequestBytes)}
	}
	return line, nil
}

// connection returns the shared connection, dialling it if needed;
// reused reports that it was kept from an earlier request.
func (c *Client) connection(ctx context.Context) (nc net.Conn, lr *lineReader, reused bool, err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, nil, false, ErrClosed
	}
	if c.conn != nil {
		nc, lr := c.conn, c.lr
		c.mu.Unlock()
		return nc, lr, true, nil
	}
	c.mu.Unlock()
	nc, err = c.dial(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		nc.Close()
		return nil, nil, false, ErrClosed
	}
	c.conn, c.lr = nc, newLineReader(nc, MaxResponseBytes)
	return c.conn, c.lr, false, nil
}

func (c *Client) drop(nc net.Conn) {
	c.mu.Lock()
	if c.conn == nc {
		c.conn, c.lr = nil, nil
	}
	c.mu.Unlock()
	nc.Close()
}

// dial opens a new connection to the host within c.timeout.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "unix", c.path)
	if err != nil && c.dialled && ctx.Err() == nil &&
		(errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist)) {
		// The host is gone: start the next one and dial it. Several
		// callers may get here at once; the host start itself settles
		// who hosts.
		c.restartMu.Lock()
		restart := c.restart
		if restart != nil {
			_ = restart(ctx)
		}
		c.restartMu.Unlock()
		if restart != nil {
			rctx, cancel := context.WithTimeout(ctx, c.timeout)
			nc, err = d.DialContext(rctx, "unix", c.path)
			cancel()
		}
	}
	switch {
	case err == nil:
		if err := checkHost(nc, c.path, c.uid); err != nil {
			nc.Close()
			return nil, err
		}
		if c.dialled {
			c.refreshInfo(ctx, nc)
		}
		return nc, nil
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("%w at %s: %v", ErrNoHost, c.path, err)
	case ctx.Err() != nil:
		err = fmt.Errorf("api: connect to the host at %s: %w", c.path, ctx.Err())
	default:
		err = fmt.Errorf("api: connect to the host at %s: %w", c.path, err)
	}
	if c.dialled {
		return nil, fmt.Errorf("%w: %w", ErrHostGone, err)
	}
	return nil, err
}

// refreshInfo asks a new connection's host who it is, before the
// connection is used for anything else, and keeps the answer.
func (c *Client) refreshInfo(ctx context.Context, nc net.Conn) {
	hctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	line, err := encodeRequest("0", MethodHello, nil)
	if err != nil {
		return
	}
	in, _, err := roundTrip(hctx, nc, newLineReader(nc, MaxResponseBytes), line, "0", MethodHello)
	_ = nc.SetDeadline(time.Time{})
	if err != nil || in.Error != nil {
		return
	}
	var info HostInfo
	if json.Unmarshal(in.Result, &info) == nil && info.PID > 0 {
		c.mu.Lock()
		c.info = info
		c.mu.Unlock()
	}
}

// roundTrip writes one request line and reads lines until its response.
// ctx bounds it through the connection's deadline; poisoned reports that
// ctx fired meanwhile, so the deadline may be cut short for the next user.
func roundTrip(ctx context.Context, nc net.Conn, lr *lineReader, line []byte, id, method string) (in incoming, poisoned bool, err error) {
	deadline, _ := ctx.Deadline() // zero when none: no deadline
	nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	// A host that refuses a connection (Limits.MaxConns) says why and
	// closes it, maybe before this write: read its answer even when the
	// write failed. A host that closed without a word gives EOF at once.
	_, werr := nc.Write(append(line, '\n'))
	noID := false
	for {
		var raw []byte
		if raw, err = lr.next(); err != nil {
			if werr != nil {
				err = werr
			}
			break
		}
		in = incoming{}
		if jerr := json.Unmarshal(raw, &in); jerr != nil {
			return in, true, fmt.Errorf("api: the host sent a line that is not JSON-RPC: %w", jerr)
		}
		noID = len(in.ID) == 0 || string(in.ID) == "null"
		if in.Method == "" && (string(in.ID) == id || (noID && in.Error != nil)) {
			break
		}
	}
	poisoned = !stop()
	if !poisoned {
		nc.SetDeadline(time.Time{})
	}
	// An error answered with a null id is about a line the host could not
	// read as ours; the host may close after it, so start afresh.
	poisoned = poisoned || noID
	switch {
	case err == nil:
		return in, poisoned, nil
	case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
		cerr := ctx.Err()
		if cerr == nil {
			cerr = context.DeadlineExceeded
		}
		return in, true, fmt.Errorf("api: %s: %w", method, cerr)
	default:
		return in, true, fmt.Errorf("%w: %s: %v", ErrHostGone, method, cause(err))
	}
}

// cause strips the addresses off a socket error. The socket was bound under
// a temporary name (see Listen), which the kernel goes on reporting and
// which would only confuse a reader.
func cause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// remoteError turns an error the host answered with into a Go error.
func remoteError(e *wireError) error {
	if e.Code == CodeInvalidParams {
		return &core.InputError{Msg: e.Message}
	}
	if e.Data != nil && e.Data.Kind == kindHostFull {
		return fmt.Errorf("%w: %s", ErrHostFull, e.Message)
	}
	if e.Data != nil && errorKinds[e.Data.Kind] != nil {
		return errorKinds[e.Data.Kind]
	}
	return &Error{Code: e.Code, Message: e.Message}
}
