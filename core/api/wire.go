package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"

	"github.com/nexus-tui/nexus/core"
)

// Method and notification names. Part of the socket protocol (doc.go).
const (
	MethodHello     = "hello"
	MethodSubmit    = "submit"
	MethodState     = "state"
	MethodSubscribe = "subscribe"

	MethodTermAttach = "term.attach"
	MethodTermInput  = "term.input"
	MethodTermResize = "term.resize"

	NotifyEvent = "event"
	NotifyTerm  = "term"
	NotifyEnd   = "end"
)

// JSON-RPC 2.0 error codes the server answers with.
const (
	CodeParse          = -32700 // the line is not JSON (or not UTF-8)
	CodeInvalidRequest = -32600 // JSON, but not a request this server takes
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602 // refused input: *core.InputError on the client
	CodeServer         = -32000 // the backend failed; the message says why
)

// Reasons a subscription ends, in the "end" notification.
const (
	EndLagged  = "lagged"  // the reader fell behind: resubscribe from the last seq
	EndStopped = "stopped" // the host is shutting down
	EndExited  = "exited"  // a terminal's process exited (core.ErrTerminalExited)
	EndError   = "error"   // anything else; the message says what
)

// Size limits of one line.
const (
	// MaxRequestBytes bounds one request line the server reads, newline
	// excluded (the default of Limits.MaxLineBytes). JSON can escape one byte of a string as six (\u0001), so a
	// message.send whose text is at core.MaxTextBytes may take six times
	// that on the wire; 1 MiB on top covers the other fields and the
	// envelope. A longer line gets an error and the connection is closed.
	// A term.input at core.MaxTermInput is base64 in the line (4/3 of it),
	// far below this.
	MaxRequestBytes = 6*core.MaxTextBytes + 1<<20
	// MaxResponseBytes bounds one line the client reads. A State carries
	// every transcript, so it is generous; it only stops a runaway peer.
	MaxResponseBytes = 256 << 20
)

// request is one call from a client.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// response answers one request. Exactly one of Result and Error is set.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// notification is a server message that answers no request.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// wireError is a JSON-RPC error object. It is also an error, so the
// dispatcher can return protocol errors the same way as backend errors.
type wireError struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *errorData `json:"data,omitempty"`
}

func (e *wireError) Error() string { return e.Message }

// errorData tells refused input (kind "input") and the errors of
// errorKinds apart from other errors.
type errorData struct {
	Kind string `json:"kind"`
}

// kindHostFull is data.kind of the line a connection over
// Limits.MaxConns gets before it is closed (ErrHostFull on the client).
const kindHostFull = "host_full"

// errorKinds are the core errors that cross the socket as themselves: the
// server sends the kind in data, the Client returns the same sentinel.
var errorKinds = map[string]error{
	"no_terminal":     core.ErrNoTerminal,
	"terminal_exited": core.ErrTerminalExited,
}

// incoming is any line a client reads: a response or a notification.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type subscribeParams struct {
	From    uint64   `json:"from"`
	Threads []string `json:"threads,omitempty"`
	Brief   bool     `json:"brief,omitempty"`
	Watch   bool     `json:"watch,omitempty"`
}

type subscribeResult struct {
	State *core.State `json:"state,omitempty"`
}

type termParams struct {
	Thread string `json:"thread"`
}

type termInputParams struct {
	Thread string `json:"thread"`
	Data   []byte `json:"data"` // base64 on the wire
}

type termResizeParams struct {
	Thread string `json:"thread"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
}

type endParams struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

// HostInfo identifies the host process; it is the result of hello.
type HostInfo struct {
	PID      int    `json:"pid"`
	Version  string `json:"version"`
	StateDir string `json:"stateDir"`
}

var errLineTooLong = errors.New("api: line over the size limit")

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline; the slice is valid until
// the next call. A line longer than max returns errLineTooLong and leaves
// the reader in the middle of it: the caller must stop reading. A partial
// line at EOF is dropped (the peer went away while writing it).
func (lr *lineReader) next() ([]byte, error) {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // do not keep one huge line's buffer for the connection's life
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
		n := len(lr.buf)
		if err == nil {
			n-- // the newline
		}
		if n > lr.max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return lr.buf[:n], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}
