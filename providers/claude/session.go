package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// steerWindow is how long a turn waits, after a result while steering
// messages are still unanswered, for the CLI to start on them before the
// turn ends anyway (a CLI that folded them into the turn it just ended
// sends no further result).
const steerWindow = 3 * time.Second

// session is one Claude Code process serving one nexus thread; the
// Lifecycle runs the process, the session speaks stream-json to it. The
// actor goroutine calls Handle and Stop; the reader goroutine handles
// stdout. Both share the fields under mu.
type session struct {
	*agentproc.Lifecycle
	cfg Config
	out *agentproc.Emitter

	mu        sync.Mutex
	model     string
	pending   int // user lines of this turn without a result yet
	interrupt bool
	lastRes   *frame
	// lastUUID is the uuid of the turn's last main-chain message (not a
	// subagent's), reported as the attempt's native turn when it ends:
	// a fork or rollback keeps the conversation through it.
	lastUUID string
	window   *time.Timer
	reqs     map[string]*permReq // request_id -> open can_use_tool
	ctrl     map[string]chan json.RawMessage
	ctrlN    int
	streamed map[string]bool   // message ids whose text came as deltas
	open     map[string]string // parent + index -> text node key being streamed
	curMsg   map[string]string // parent tool use -> message id being streamed
	tools    map[string]string // tool_use id -> tool name
	allow    map[string]bool   // action kinds allowed without asking
	plan     *plans
	// writes are the files the turn's open write tools name (tool_use
	// id -> path as given), reported on the node when the tool succeeds.
	writes map[string]string
}

type permReq struct {
	id     string
	tool   string
	action string
	input  map[string]any
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	s := &session{cfg: cfg, out: out, reqs: map[string]*permReq{}, ctrl: map[string]chan json.RawMessage{},
		streamed: map[string]bool{}, open: map[string]string{}, curMsg: map[string]string{}, tools: map[string]string{},
		writes: map[string]string{}, allow: map[string]bool{}, plan: &plans{}}
	s.Lifecycle = agentproc.NewLifecycle(agentproc.Agent{Name: cfg.Name, Thread: thread, Settings: cfg.Settings,
		Format: "stream-json", Expected: "stream-json", Ask: fmt.Sprintf("is %q really Claude Code?", cfg.Command[0])}, out, s)
	return s
}

// Apply implements agentproc.Protocol.
func (s *session) Apply(e core.Effect) {
	switch e.Kind {
	case core.EffSteer:
		t, p := s.Turn(), s.proc()
		ok := t != nil && !t.Ended() && t.E.Attempt == e.Attempt && p != nil
		if ok {
			s.mu.Lock()
			s.pending++
			s.stopWindow()
			s.mu.Unlock()
		}
		if !ok {
			s.out.Done(e, "missed", "the turn had already ended")
			return
		}
		if err := p.WriteLine(userLine(e.Text)); err != nil {
			s.out.Done(e, "failed", err.Error())
			return
		}
		s.out.Done(e, "completed", "")
	case core.EffInterrupt:
		t, p := s.Turn(), s.proc()
		live := t != nil && !t.Ended() && t.E.Attempt == e.Attempt && p != nil
		if live {
			s.mu.Lock()
			s.interrupt = true
			s.mu.Unlock()
			s.sendControl(map[string]any{"subtype": "interrupt"})
		}
		s.out.Done(e, "completed", "")
	case core.EffAnswer:
		s.answer(e)
	}
}

// proc is the running CLI, or nil.
func (s *session) proc() *agentproc.Proc {
	p, _ := s.Proc()
	return p
}

// Start implements agentproc.Protocol: the run's message as a user line.
func (s *session) Start(turn *agentproc.Turn, history bool) {
	e := turn.E
	s.mu.Lock()
	s.pending, s.interrupt, s.lastRes, s.lastUUID = 1, false, nil, ""
	s.plan, s.writes = &plans{}, map[string]string{}
	if e.Turn != nil {
		for _, k := range e.Turn.Policy.Allow {
			s.allow[k] = true
		}
	}
	s.mu.Unlock()
	if !s.Begin(turn) {
		return
	}
	p := s.proc()
	if p == nil {
		return // the process ended: the turn has failed with the reason
	}
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	if err := p.WriteLine(userLine(agentproc.Prompt(e.Turn, history))); err != nil {
		turn.End(core.AttemptFailed, err.Error())
	}
}

// Connect implements agentproc.Protocol: Claude Code resumes or forks a
// session by starting with --resume, so a new process comes with the
// conversation; a refused one is started again without it.
func (s *session) Connect(e core.Effect, turn *agentproc.Turn) (bool, error) {
	ref, dir := agentproc.NativeRef(e), agentproc.Workspace(e)
	if ref != "" {
		err := s.Spawn(s.cfg.spec(dir, ref))
		if err == nil {
			return true, nil
		}
		if errors.Is(err, agentproc.ErrNotFound) {
			return false, err
		}
		turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
			"could not resume Claude session %s (%v); starting a new session with the thread's history", ref, err)})
	} else if e.Turn != nil && e.Turn.ForkOf != "" {
		err := s.Spawn(s.cfg.spec(dir, e.Turn.ForkOf, "--fork-session", "--resume-session-at", e.Turn.ForkAt))
		if err == nil {
			return true, nil
		}
		if errors.Is(err, agentproc.ErrNotFound) {
			return false, err
		}
		turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
			"could not fork Claude session %s through message %s (%v); starting a new session with the thread's history",
			e.Turn.ForkOf, e.Turn.ForkAt, err)})
	}
	return false, s.Spawn(s.cfg.spec(dir, ""))
}

// Attach implements agentproc.Protocol: control requests are answered on
// the process's stdin.
func (s *session) Attach(p *agentproc.Proc) agentproc.Conn {
	return agentproc.Conn{Handshake: s.initialize, Line: func(b []byte) bool { return s.line(p, b) }}
}

// initialize is the handshake: the initialize control request.
func (s *session) initialize(ctx context.Context) error {
	select {
	case _, ok := <-s.sendControl(map[string]any{"subtype": "initialize"}):
		if !ok {
			return agentproc.ErrExited
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sendControl writes a control request and returns a channel for its
// response (closed if the process ends first).
func (s *session) sendControl(req map[string]any) <-chan json.RawMessage {
	s.mu.Lock()
	s.ctrlN++
	id := fmt.Sprintf("nexus-%d", s.ctrlN)
	ch := make(chan json.RawMessage, 1)
	s.ctrl[id] = ch
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": req})
	if p := s.proc(); p != nil {
		_ = p.WriteLine(b)
	}
	return ch
}

// Cancel implements agentproc.Protocol: the interrupt control request,
// and no steer window, so the turn ends as the stop says.
func (s *session) Cancel() {
	s.mu.Lock()
	s.stopWindow()
	s.mu.Unlock()
	s.sendControl(map[string]any{"subtype": "interrupt"})
}

// Detach implements agentproc.Protocol: the control requests in flight
// and the CLI's open requests end with the process.
func (s *session) Detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopWindow()
	for id, ch := range s.ctrl {
		close(ch)
		delete(s.ctrl, id)
	}
	s.reqs = map[string]*permReq{}
}

func userLine(text string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "user", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
	return b
}

// stopWindow cancels a pending steer window; call with mu held.
func (s *session) stopWindow() {
	if s.window != nil {
		s.window.Stop()
		s.window = nil
	}
}
