package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nexus-tui/nexus/core"
)

// dispatchTerm serves term.attach, term.input and term.resize when the
// backend has terminals.
func (s *Server) dispatchTerm(ctx context.Context, method string, params json.RawMessage) (any, *stream, error) {
	terms, ok := s.backend.(core.Terminals)
	if !ok {
		return nil, nil, &wireError{Code: CodeMethodNotFound,
			Message: method + ": this host serves no terminals (its backend does not implement core.Terminals)"}
	}
	if isAbsent(params) {
		return nil, nil, &core.InputError{Msg: method + " needs params: an object with the thread"}
	}
	switch method {
	case MethodTermAttach:
		var p termParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, nil, err
		}
		fctx, cancel := context.WithCancel(ctx)
		f, err := terms.AttachTerminal(fctx, p.Thread)
		if err == nil && f == nil {
			err = errors.New("the backend returned no terminal feed")
		}
		if err != nil {
			cancel()
			return nil, nil, err
		}
		return struct{}{}, newStream(NotifyTerm, f.Chunks, f.Err, cancel), nil
	case MethodTermInput:
		var p termInputParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, nil, err
		}
		return struct{}{}, nil, terms.TerminalInput(ctx, p.Thread, p.Data)
	default: // MethodTermResize
		var p termResizeParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, nil, err
		}
		return struct{}{}, nil, terms.ResizeTerminal(ctx, p.Thread, p.Cols, p.Rows)
	}
}

// AttachTerminal implements core.Terminals on a connection of its own.
// Chunks is closed when the terminal's process exits (Err is
// core.ErrTerminalExited), ctx ends (ctx.Err()), the Client is closed
// (ErrClosed), the reader leaves the buffer full for 5 s (core.ErrLagged:
// attach again, the first chunk is a Reset), or the host goes away (an
// error wrapping ErrHostGone).
func (c *Client) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	var res struct{}
	nc, lr, err := c.open(ctx, MethodTermAttach, termParams{Thread: thread}, &res)
	if err != nil {
		return nil, err
	}
	f, err := startFeed[core.TermChunk](ctx, c, nc, lr, NotifyTerm, termBuffer)
	if err != nil {
		return nil, err
	}
	return &core.TermFeed{Chunks: f.out, Err: f.Err}, nil
}

// TerminalInput implements core.Terminals.
func (c *Client) TerminalInput(ctx context.Context, thread string, data []byte) error {
	var res struct{}
	return c.call(ctx, MethodTermInput, termInputParams{Thread: thread, Data: data}, &res)
}

// ResizeTerminal implements core.Terminals.
func (c *Client) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	var res struct{}
	return c.call(ctx, MethodTermResize, termResizeParams{Thread: thread, Cols: cols, Rows: rows}, &res)
}
