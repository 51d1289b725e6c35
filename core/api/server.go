package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Timeouts of the server; variables for tests.
var (
	// writeTimeout drops a client that has not taken a line for this long
	// (a stuck or suspended reader); a subscriber resubscribes from the
	// last seq it saw.
	writeTimeout = 10 * time.Second
	// shutdownGrace is how long Serve lets connections say goodbye (the
	// "end" notification) before it closes them.
	shutdownGrace = time.Second
)

// Server serves a core.Backend on a listener. See doc.go for the protocol.
type Server struct {
	backend core.Backend
	info    HostInfo
	admin   Admin // nil: host.status and host.stop are not served
	// uid is the only uid served (peer.go): the process's effective
	// uid; tests change it to see themselves refused.
	uid int

	lim Limits // set before Serve; every field non-zero

	mu       sync.Mutex
	conns    map[net.Conn]struct{} // open connections, closed on shutdown
	refusing bool                  // CloseIfIdle: accepted connections are closed at once
	full     bool                  // the last connection was refused for MaxConns
	log      func(line string)     // SetLog; nil: lines are dropped
	wg       sync.WaitGroup        // connection goroutines
	// changed is closed, and replaced, whenever a client connection
	// opens or closes (ConnsChanged); nil until first asked for.
	changed chan struct{}
}

// NewServer returns a server for b that answers hello with info, within
// the default Limits.
func NewServer(b core.Backend, info HostInfo) *Server {
	return &Server{backend: b, info: info, uid: os.Geteuid(), lim: Limits{}.orDefaults(), conns: map[net.Conn]struct{}{}}
}

// SetLog makes the server tell f, one line per call, about connections
// it refuses: from another user, and over its limits. Without it those
// lines are dropped. It may be called at any time.
func (s *Server) SetLog(f func(line string)) {
	s.mu.Lock()
	s.log = f
	s.mu.Unlock()
}

func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	f := s.log
	s.mu.Unlock()
	if f != nil {
		f(fmt.Sprintf(format, args...))
	}
}

// Serve accepts connections on ln until ctx is cancelled, then closes ln
// and every connection, waits for all its goroutines and returns nil. It
// returns an error only when ln fails by itself. Call it once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	err := s.accept(ctx, ln)
	cancel()
	ln.Close()
	s.shutdown()
	return err
}

func (s *Server) accept(ctx context.Context, ln net.Listener) error {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if ctx.Err() != nil {
			if nc != nil {
				nc.Close()
			}
			return nil
		}
		if errors.Is(err, net.ErrClosed) {
			return fmt.Errorf("api: listener closed while serving: %w", err)
		}
		if err != nil {
			// Out of file descriptors and the like: wait and retry, as
			// net/http does, rather than take the host down.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			continue
		}
		backoff = 0
		if !s.admit(nc) {
			continue
		}
		s.wg.Go(func() { s.serveConn(ctx, nc) })
	}
}

// shutdown waits for the connection goroutines, closing the connections
// that are still busy after shutdownGrace (a client not reading).
func (s *Server) shutdown() {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(shutdownGrace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	s.mu.Lock()
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	<-done
}

// item is one line read from a connection, or, when refusal is set, the
// error response that ends the connection (a line over MaxLineBytes, or
// one not ended within LineTimeout).
type item struct {
	line    []byte
	refusal []byte
}

// conn is the writing side of one connection. Only the connection's
// handler goroutine writes, which is what serializes writes.
type conn struct {
	nc net.Conn
	w  *bufio.Writer
}

// write sends one line. flush=false leaves it buffered for the next write.
func (c *conn) write(line []byte, flush bool) error {
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := c.w.Write(line); err != nil {
		return err
	}
	if err := c.w.WriteByte('\n'); err != nil || !flush {
		return err
	}
	return c.w.Flush()
}

// serveConn runs one connection: a reader goroutine hands lines to this
// goroutine, which handles them one at a time. The reader keeps reading
// during a call, so a client that disconnects cancels its call.
func (s *Server) serveConn(ctx context.Context, nc net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	items := make(chan item)
	var reader sync.WaitGroup
	reader.Go(func() { readLines(ctx, cancel, nc, items, s.lim) })
	defer func() {
		cancel()
		nc.Close()
		reader.Wait()
		s.mu.Lock()
		delete(s.conns, nc)
		s.connsChanged()
		s.mu.Unlock()
	}()
	c := &conn{nc: nc, w: bufio.NewWriterSize(nc, 64<<10)}
	for {
		select {
		case <-ctx.Done():
			return
		case it, ok := <-items:
			if !ok || !s.handle(ctx, c, it, items) {
				return
			}
		}
	}
}

// readLines feeds items until the connection ends. A read error means the
// client is gone, so it cancels the connection's calls; a line over the
// limit, or one begun and not ended in time, is handed on as a refusal,
// so the handler can answer it before closing.
//
// Between lines a connection may be idle for as long as it likes (a UI
// subscribed for hours); once the first byte of a line is in, the line
// must end within lim.LineTimeout. What a connection can hold is one
// line of lim.MaxLineBytes at most, plus the read buffer.
func readLines(ctx context.Context, cancel context.CancelFunc, nc net.Conn, items chan<- item, lim Limits) {
	defer close(items)
	lr := newLineReader(nc, lim.MaxLineBytes)
	for {
		nc.SetReadDeadline(time.Time{})
		if _, err := lr.r.Peek(1); err != nil {
			cancel()
			return
		}
		nc.SetReadDeadline(time.Now().Add(lim.LineTimeout))
		line, err := lr.next()
		var it item
		switch {
		case err == nil:
			it.line = bytes.Clone(line)
		case errors.Is(err, errLineTooLong):
			it.refusal = refusalLine(fmt.Sprintf("request line is over %d bytes; closing the connection", lim.MaxLineBytes))
		case errors.Is(err, os.ErrDeadlineExceeded):
			it.refusal = refusalLine(fmt.Sprintf("a request line was begun and not ended within %v; closing the connection", lim.LineTimeout))
		default:
			cancel()
			return
		}
		select {
		case items <- it:
		case <-ctx.Done():
			return
		}
		if it.refusal != nil {
			return
		}
	}
}

// handle answers one item and reports whether the connection goes on.
func (s *Server) handle(ctx context.Context, c *conn, it item, items <-chan item) bool {
	if it.refusal != nil {
		c.write(it.refusal, true)
		return false
	}
	out, st := s.call(ctx, it.line)
	if out == nil {
		return true // blank line
	}
	if ctx.Err() != nil {
		if st != nil {
			st.cancel()
		}
		return false // client gone or host stopping: nobody wants the answer
	}
	if err := c.write(out, true); err != nil || st == nil {
		if st != nil {
			st.cancel()
		}
		return err == nil
	}
	defer st.cancel()
	st.pump(ctx, c, items)
	return false
}

// refusalLine is the answer to a line the server will not read to its
// end; the connection is closed after it.
func refusalLine(msg string) []byte {
	return encodeResponse(nil, nil, &wireError{Code: CodeInvalidRequest, Message: msg})
}

// stream is what a dedicated connection carries after the result of its
// request (subscribe, term.attach): pump forwards it until it ends, and
// cancel releases it.
type stream struct {
	pump   func(ctx context.Context, c *conn, items <-chan item)
	cancel context.CancelFunc
}

// newStream forwards ch as notifications named method; errf says why ch
// was closed.
func newStream[T any](method string, ch <-chan T, errf func() error, cancel context.CancelFunc) *stream {
	return newFilteredStream(method, ch, errf, cancel, nil)
}

// newFilteredStream is newStream whose values go through filter first
// (nil: as they are); a value it refuses is not sent.
func newFilteredStream[T any](method string, ch <-chan T, errf func() error, cancel context.CancelFunc, filter func(T) (T, bool)) *stream {
	return &stream{cancel: cancel, pump: func(ctx context.Context, c *conn, items <-chan item) {
		pump(ctx, c, method, ch, errf, items, filter)
	}}
}

// pump forwards a stream's values as notifications until it ends, the
// client goes away or the host stops. The connection carries nothing else
// from now on.
func pump[T any](ctx context.Context, c *conn, method string, ch <-chan T, errf func() error, items <-chan item, filter func(T) (T, bool)) {
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				c.write(endLine(ctx, errf()), true)
				return
			}
			if filter != nil {
				if v, ok = filter(v); !ok {
					if len(ch) == 0 {
						c.flush()
					}
					continue
				}
			}
			line, err := json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: &v})
			if err != nil {
				c.write(endLine(ctx, fmt.Errorf("cannot encode a %s notification: %w", method, err)), true)
				return
			}
			// Flush when nothing more is waiting, so a burst takes one
			// write and a lone value goes out at once.
			if err := c.write(line, len(ch) == 0); err != nil {
				return
			}
		case it, ok := <-items:
			if !ok {
				return
			}
			if it.refusal != nil {
				c.write(it.refusal, true)
				return
			}
			if len(bytes.TrimSpace(it.line)) == 0 {
				continue
			}
			out := encodeResponse(requestID(it.line), nil, &wireError{Code: CodeInvalidRequest,
				Message: "this connection carries a stream (subscribe or term.attach); send requests on another connection"})
			if err := c.write(out, true); err != nil {
				return
			}
		case <-ctx.Done():
			// Best effort: Serve closes the connection after shutdownGrace
			// if the client does not take this line.
			c.write(endLine(ctx, nil), true)
			return
		}
	}
}

// endLine is the "end" notification for a stream that ended with err.
func endLine(ctx context.Context, err error) []byte {
	p := endParams{Reason: EndError, Error: "the stream ended"}
	switch {
	case ctx.Err() != nil || errors.Is(err, core.ErrStopped):
		p.Reason, p.Error = EndStopped, "the host is stopping"
	case errors.Is(err, core.ErrLagged):
		p.Reason, p.Error = EndLagged, err.Error()
	case errors.Is(err, core.ErrTerminalExited):
		p.Reason, p.Error = EndExited, err.Error()
	case err != nil:
		p.Error = err.Error()
	}
	line, _ := json.Marshal(notification{JSONRPC: "2.0", Method: NotifyEnd, Params: p})
	return line
}

// call parses one request line and runs it. It returns the response line
// (nil for a blank line) and, for an accepted subscribe or term.attach,
// the stream to pump after the response is written. It never panics on any input;
// FuzzServerLine holds it to that.
func (s *Server) call(ctx context.Context, line []byte) ([]byte, *stream) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil
	}
	req, werr := parseRequest(line)
	if werr != nil {
		return encodeResponse(req.ID, nil, werr), nil
	}
	result, st, err := s.dispatch(ctx, req.Method, req.Params)
	if err != nil {
		return encodeResponse(req.ID, nil, toWireError(err)), nil
	}
	out := encodeResponse(req.ID, result, nil)
	if out == nil {
		if st != nil {
			st.cancel()
		}
		return encodeResponse(req.ID, nil, &wireError{Code: CodeServer,
			Message: "the host cannot encode the result as JSON (a NaN or infinite number?)"}), nil
	}
	return out, st
}

func (s *Server) dispatch(ctx context.Context, method string, params json.RawMessage) (any, *stream, error) {
	switch method {
	case MethodHello:
		return s.info, nil, nil
	case MethodSubmit:
		if isAbsent(params) {
			return nil, nil, &core.InputError{Msg: "submit needs params: a command object"}
		}
		var cmd core.Command
		if err := decodeParams(method, params, &cmd); err != nil {
			return nil, nil, err
		}
		r, err := s.backend.Submit(ctx, cmd)
		if err == nil && r == nil {
			err = errors.New("the backend returned no receipt")
		}
		return r, nil, err
	case MethodState:
		var q StateQuery
		if !isAbsent(params) {
			if err := decodeParams(method, params, &q); err != nil {
				return nil, nil, err
			}
		}
		st, err := s.backend.State(ctx)
		if err == nil && st == nil {
			err = errors.New("the backend returned no state")
		}
		return queryState(st, q), nil, err
	case MethodSubscribe:
		var p subscribeParams
		if !isAbsent(params) {
			if err := decodeParams(method, params, &p); err != nil {
				return nil, nil, err
			}
		}
		sctx, cancel := context.WithCancel(ctx)
		sub, err := s.backend.Subscribe(sctx, p.From)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		if p.Watch {
			q := StateQuery{Threads: p.Threads, Brief: p.Brief, Watch: true}
			return subscribeResult{State: watchState(sub.State, q)},
				newFilteredStream(NotifyEvent, sub.Events, sub.Err, cancel, watchFilter(p.Threads)), nil
		}
		return subscribeResult{State: queryState(sub.State, StateQuery{Threads: p.Threads, Brief: p.Brief})}, newStream(NotifyEvent, sub.Events, sub.Err, cancel), nil
	case MethodTermAttach, MethodTermInput, MethodTermResize:
		return s.dispatchTerm(ctx, method, params)
	case MethodHostStatus, MethodHostStop, MethodHostVerify, MethodHostExport:
		res, err := s.dispatchAdmin(ctx, method, params)
		return res, nil, err
	default:
		return nil, nil, &wireError{Code: CodeMethodNotFound, Message: fmt.Sprintf(
			"unknown method %.64q: use hello, submit, state, subscribe, term.attach, term.input, term.resize, host.status, host.stop, host.verify or host.export", method)}
	}
}

func isAbsent(params json.RawMessage) bool {
	return len(params) == 0 || string(params) == "null"
}

// decodeParams decodes strictly: an unknown field is refused rather than
// dropped, so a client newer than the host hears about it.
func decodeParams(method string, params json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &core.InputError{Msg: fmt.Sprintf("invalid %s params: %v", method, err)}
	}
	return nil
}

// toWireError maps an error to its JSON-RPC error object.
func toWireError(err error) *wireError {
	var we *wireError
	if errors.As(err, &we) {
		return we
	}
	var ie *core.InputError
	if errors.As(err, &ie) {
		return &wireError{Code: CodeInvalidParams, Message: ie.Msg, Data: &errorData{Kind: "input"}}
	}
	for kind, sentinel := range errorKinds {
		if errors.Is(err, sentinel) {
			return &wireError{Code: CodeServer, Message: err.Error(), Data: &errorData{Kind: kind}}
		}
	}
	return &wireError{Code: CodeServer, Message: err.Error()}
}

// encodeResponse returns a response line, or nil when result does not
// encode. A nil id is written as null.
func encodeResponse(id json.RawMessage, result any, werr *wireError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	line, err := marshalVerbatim(response{JSONRPC: "2.0", ID: id, Result: result, Error: werr})
	if err != nil {
		return nil
	}
	return line
}

// marshalVerbatim encodes v as one JSON line without HTML escaping, so a
// request id such as "a&b" comes back byte for byte as the client sent
// it, not as "a\u0026b".
func marshalVerbatim(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wireState returns st with every sealed run history thawed, so the JSON a
// client decodes holds all of it (a Seal does not cross the socket).
func wireState(st *core.State) *core.State {
	if st == nil || len(st.Sealed) == 0 {
		return st
	}
	c := st.Clone()
	// A history that cannot be read travels empty; the host's Runner
	// stops on it before it decides anything from it (State.SealErr).
	_ = c.ThawAll()
	return c
}
