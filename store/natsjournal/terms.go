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

// Terminals over the hub (doc.go, "Terminals"). Part of the stream
// format. Watching goes on subjects outside nexus.> (nexusw.<p>.term.*),
// which a viewer may publish to; typing and resizing stay under nexus.>,
// which a viewer may not.
const (
	watchPrefix = "nexusw."
	// termKeep is how long the owner keeps a thread's feed going after
	// the last attach or keep-alive; a watcher sends one every termKeep/3.
	termKeep = 30 * time.Second
	// maxTermPiece bounds the bytes of one published chunk (the server's
	// default payload limit is 1 MiB; a Reset replays up to 1 MiB).
	maxTermPiece = 256 << 10
	// termQueue is how many chunks a watcher holds before it drops what
	// comes and asks for a fresh Reset.
	termQueue = 256
)

type termSubjects struct{ attach, keep, out, in, size string }

func termSubjectsOf(project, thread string) termSubjects {
	p := token(project)
	return termSubjects{
		attach: watchPrefix + p + ".term.attach",
		keep:   watchPrefix + p + ".term.keep",
		out:    watchPrefix + p + ".term.out." + threadToken(thread),
		in:     subjectPrefix + p + ".term.in",
		size:   subjectPrefix + p + ".term.size",
	}
}

// termRequest is the body of an attach, keep, input or resize request.
type termRequest struct {
	Thread string `json:"thread"`
	Data   []byte `json:"data,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
}

// termReply answers a request: Error is why it failed, Kind says
// "no_terminal" for core.ErrNoTerminal.
type termReply struct {
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// termOut is one message of a feed: a chunk, or End ("exited") when the
// thread's process exited.
type termOut struct {
	Chunk core.TermChunk `json:"chunk"`
	End   string         `json:"end,omitempty"`
}

// ServeTerminals serves the live terminals of project's threads (t, the
// host's core.Terminals) to remote UIs until ctx ends: an attach starts
// or restarts the thread's feed (a fresh Reset first) on its out
// subject; a feed nobody kept alive for termKeep stops.
func ServeTerminals(ctx context.Context, nc *nats.Conn, project string, t core.Terminals) error {
	s := termSubjectsOf(project, "")
	srv := &termServer{ctx: ctx, nc: nc, project: project, t: t, feeds: map[string]*termFeedOut{}}
	var subs []*nats.Subscription
	defer func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
		srv.stopAll()
	}()
	for subj, h := range map[string]nats.MsgHandler{s.attach: srv.attach, s.keep: srv.keep, s.in: srv.input, s.size: srv.resize} {
		sub, err := nc.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("natsjournal: serve terminals on %s: %w", subj, err)
		}
		subs = append(subs, sub)
	}
	<-ctx.Done()
	return nil
}

type termServer struct {
	ctx     context.Context
	nc      *nats.Conn
	project string
	t       core.Terminals
	mu      sync.Mutex
	feeds   map[string]*termFeedOut
	wg      sync.WaitGroup
}

// termFeedOut is the owner's side of one thread's feed.
type termFeedOut struct {
	cancel context.CancelFunc
	until  time.Time
}

func decodeTermRequest(m *nats.Msg) (termRequest, error) {
	var q termRequest
	if len(m.Data) > maxCmdBytes {
		return q, errors.New("a terminal request over the size limit")
	}
	if err := json.Unmarshal(m.Data, &q); err != nil || q.Thread == "" {
		return q, fmt.Errorf("a terminal request that does not decode or names no thread (%v)", err)
	}
	return q, nil
}

func respondTerm(m *nats.Msg, err error) {
	var r termReply
	if err != nil {
		r.Error = err.Error()
		if errors.Is(err, core.ErrNoTerminal) {
			r.Kind = "no_terminal"
		}
	}
	if b, jerr := json.Marshal(r); jerr == nil {
		_ = m.Respond(b)
	}
}

func (s *termServer) attach(m *nats.Msg) {
	q, err := decodeTermRequest(m)
	if err != nil {
		respondTerm(m, err)
		return
	}
	fctx, cancel := context.WithCancel(s.ctx)
	feed, err := s.t.AttachTerminal(fctx, q.Thread)
	if err != nil {
		cancel()
		respondTerm(m, err)
		return
	}
	s.mu.Lock()
	if old := s.feeds[q.Thread]; old != nil {
		old.cancel() // the new attachment starts with a Reset for everyone
	}
	f := &termFeedOut{cancel: cancel, until: time.Now().Add(termKeep)}
	s.feeds[q.Thread] = f
	s.mu.Unlock()
	respondTerm(m, nil)
	s.wg.Add(1)
	go s.pump(fctx, q.Thread, f, feed)
}

func (s *termServer) keep(m *nats.Msg) {
	q, err := decodeTermRequest(m)
	if err != nil {
		return
	}
	s.mu.Lock()
	if f := s.feeds[q.Thread]; f != nil {
		f.until = time.Now().Add(termKeep)
	}
	s.mu.Unlock()
}

func (s *termServer) input(m *nats.Msg) {
	q, err := decodeTermRequest(m)
	if err == nil {
		err = s.t.TerminalInput(s.ctx, q.Thread, q.Data)
	}
	respondTerm(m, err)
}

func (s *termServer) resize(m *nats.Msg) {
	q, err := decodeTermRequest(m)
	if err == nil {
		err = s.t.ResizeTerminal(s.ctx, q.Thread, q.Cols, q.Rows)
	}
	respondTerm(m, err)
}

// pump publishes a feed's chunks, cut to maxTermPiece, until it ends or
// nobody kept it alive.
func (s *termServer) pump(ctx context.Context, thread string, f *termFeedOut, feed *core.TermFeed) {
	defer s.wg.Done()
	out := termSubjectsOf(s.project, thread).out
	tick := time.NewTicker(termKeep / 3)
	defer tick.Stop()
	defer func() {
		s.mu.Lock()
		if s.feeds[thread] == f {
			delete(s.feeds, thread)
		}
		s.mu.Unlock()
		f.cancel()
	}()
	for {
		select {
		case <-tick.C:
			s.mu.Lock()
			idle := time.Now().After(f.until)
			s.mu.Unlock()
			if idle {
				return
			}
		case c, ok := <-feed.Chunks:
			if !ok {
				if errors.Is(feed.Err(), core.ErrTerminalExited) {
					publishTerm(s.nc, out, termOut{End: "exited"})
				}
				return
			}
			for first := true; first || len(c.Data) > 0; first = false {
				piece := c
				piece.Data = c.Data[:min(len(c.Data), maxTermPiece)]
				c.Data = c.Data[len(piece.Data):]
				if !first {
					piece.Reset, piece.Cols, piece.Rows = false, 0, 0
				}
				publishTerm(s.nc, out, termOut{Chunk: piece})
			}
		}
	}
}

func publishTerm(nc *nats.Conn, subject string, o termOut) {
	if b, err := json.Marshal(o); err == nil {
		_ = nc.Publish(subject, b)
	}
}

func (s *termServer) stopAll() {
	s.mu.Lock()
	for _, f := range s.feeds {
		f.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
