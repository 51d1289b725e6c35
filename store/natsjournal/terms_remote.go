package natsjournal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
)

var _ core.Terminals = (*Remote)(nil)

// termRequest sends a terminal request to the project's owner and
// returns its answer as an error (nil: done).
func (r *Remote) termRequest(ctx context.Context, subject string, q termRequest) error {
	body, err := json.Marshal(q)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, r.j.opts.Timeout)
	defer cancel()
	m, err := r.nc.RequestWithContext(cctx, subject, body)
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: no host serves project %s now", core.ErrNoTerminal, r.project)
	}
	if err != nil {
		return fmt.Errorf("natsjournal: the terminal of %s: %w", q.Thread, err)
	}
	var rep termReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return fmt.Errorf("natsjournal: the owner's terminal answer does not decode: %w", err)
	}
	switch {
	case rep.Kind == "no_terminal":
		return core.ErrNoTerminal
	case rep.Error != "":
		return errors.New(rep.Error)
	}
	return nil
}

// AttachTerminal follows the thread's terminal on its owner, through the
// hub. It implements core.Terminals.
func (r *Remote) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	s := termSubjectsOf(r.project, thread)
	in := make(chan termOut, termQueue)
	var lost sync.Mutex
	dropped := false
	sub, err := r.nc.Subscribe(s.out, func(m *nats.Msg) {
		var o termOut
		if len(m.Data) > 2*maxTermPiece || json.Unmarshal(m.Data, &o) != nil {
			return
		}
		select {
		case in <- o:
		default:
			lost.Lock()
			dropped = true
			lost.Unlock()
		}
	})
	if err != nil {
		return nil, fmt.Errorf("natsjournal: follow the terminal of %s: %w", thread, err)
	}
	if err := r.nc.FlushTimeout(r.j.opts.Timeout); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	if err := r.termRequest(ctx, s.attach, termRequest{Thread: thread}); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	chunks := make(chan core.TermChunk, 16)
	var mu sync.Mutex
	var ferr error
	go func() {
		defer close(chunks)
		defer func() { _ = sub.Unsubscribe() }()
		keep := time.NewTicker(termKeep / 3)
		defer keep.Stop()
		keepBody, _ := json.Marshal(termRequest{Thread: thread})
		reset := false // until the first Reset after a drop, bytes are skipped
		end := func(err error) { mu.Lock(); ferr = err; mu.Unlock() }
		for {
			select {
			case <-ctx.Done():
				end(ctx.Err())
				return
			case <-keep.C:
				_ = r.nc.Publish(s.keep, keepBody)
			case o := <-in:
				lost.Lock()
				d := dropped
				dropped = false
				lost.Unlock()
				if d {
					// Bytes were lost: ask for a fresh Reset and skip
					// what comes before it.
					reset = true
					_ = r.termRequest(ctx, s.attach, termRequest{Thread: thread})
				}
				if o.End != "" {
					end(core.ErrTerminalExited)
					return
				}
				if reset && !o.Chunk.Reset {
					continue
				}
				reset = false
				select {
				case chunks <- o.Chunk:
				case <-ctx.Done():
					end(ctx.Err())
					return
				}
			}
		}
	}()
	return &core.TermFeed{Chunks: chunks, Err: func() error { mu.Lock(); defer mu.Unlock(); return ferr }}, nil
}

// TerminalInput types data into the thread's terminal on its owner. It
// implements core.Terminals; a viewer's credentials are refused.
func (r *Remote) TerminalInput(ctx context.Context, thread string, data []byte) error {
	if r.opts.ReadOnly {
		return &core.InputError{Msg: "these are a viewer's credentials: they watch terminals and type nothing"}
	}
	if len(data) > core.MaxTermInput {
		return &core.InputError{Msg: fmt.Sprintf("terminal input of %d bytes; at most %d at once", len(data), core.MaxTermInput)}
	}
	return r.termRequest(ctx, termSubjectsOf(r.project, thread).in, termRequest{Thread: thread, Data: data})
}

// ResizeTerminal sets the size of the thread's terminal on its owner. It
// implements core.Terminals.
func (r *Remote) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	if r.opts.ReadOnly {
		return nil // a viewer's pane follows the owner's size
	}
	return r.termRequest(ctx, termSubjectsOf(r.project, thread).size, termRequest{Thread: thread, Cols: cols, Rows: rows})
}
