package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// session is one Claude Code process serving one nexus thread. The actor
// goroutine calls Handle and Stop; the reader goroutine decodes stdout.
// Both share the fields under mu.
type session struct {
	cfg    Config
	thread string
	out    *agentproc.Emitter

	mu        sync.Mutex
	proc      *agentproc.Proc
	gone      chan struct{} // closed when the reader saw the process end
	stopping  bool
	ready     bool // the initialize handshake succeeded
	hsErr     chan string
	sessionID string // the native ref, from system/init
	model     string
	turn      *agentproc.Turn
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
	garbage  int
}

type permReq struct {
	id     string
	tool   string
	action string
	input  map[string]any
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	return &session{cfg: cfg, thread: thread, out: out, reqs: map[string]*permReq{}, ctrl: map[string]chan json.RawMessage{},
		streamed: map[string]bool{}, open: map[string]string{}, curMsg: map[string]string{}, tools: map[string]string{}, allow: map[string]bool{}, plan: &plans{}}
}

// Handle implements agentproc.Session.
func (s *session) Handle(e core.Effect) {
	switch e.Kind {
	case core.EffStartTurn:
		s.startTurn(e)
	case core.EffSteer:
		s.mu.Lock()
		t := s.turn
		ok := t != nil && !t.Ended() && t.E.Attempt == e.Attempt && s.proc != nil
		if ok {
			s.pending++
			s.stopWindow()
		}
		s.mu.Unlock()
		if !ok {
			s.out.Done(e, "missed", "the turn had already ended")
			return
		}
		if err := s.proc.WriteLine(userLine(e.Text)); err != nil {
			s.out.Done(e, "failed", err.Error())
			return
		}
		s.out.Done(e, "completed", "")
	case core.EffInterrupt:
		s.mu.Lock()
		t, p := s.turn, s.proc
		live := t != nil && !t.Ended() && t.E.Attempt == e.Attempt && p != nil
		if live {
			s.interrupt = true
		}
		s.mu.Unlock()
		if live {
			s.sendControl(map[string]any{"subtype": "interrupt"})
		}
		s.out.Done(e, "completed", "")
	case core.EffAnswer:
		s.answer(e)
	}
}

// startTurn starts the process if needed (resuming the thread's Claude
// session by its id), then sends the run's message as a user line.
func (s *session) startTurn(e core.Effect) {
	s.mu.Lock()
	if s.turn != nil && !s.turn.Ended() {
		// A new attempt replaces one the kernel gave up on.
		s.turn.End(core.AttemptFailed, "superseded")
	}
	s.mu.Unlock()
	turn := agentproc.NewTurn(e, s.out, s.cfg.Name, s.cfg.Settings.Silence)
	history, err := s.ensure(e, turn)
	if err != nil {
		msg := err.Error()
		turn.End(core.AttemptFailed, msg)
		s.out.Ended(e.Thread, e.Run, msg, true)
		return
	}
	s.mu.Lock()
	s.turn, s.pending, s.interrupt, s.lastRes, s.lastUUID = turn, 1, false, nil, ""
	s.plan = &plans{}
	if e.Turn != nil {
		for _, k := range e.Turn.Policy.Allow {
			s.allow[k] = true
		}
	}
	p := s.proc
	s.mu.Unlock()
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	if err := p.WriteLine(userLine(agentproc.Prompt(e.Turn, history))); err != nil {
		turn.End(core.AttemptFailed, err.Error())
	}
}

// ensure starts Claude Code unless it runs, and reports whether the
// session already holds the thread's history (live, or resumed).
func (s *session) ensure(e core.Effect, turn *agentproc.Turn) (bool, error) {
	s.mu.Lock()
	if s.proc != nil && s.ready {
		select {
		case <-s.gone:
		default:
			s.mu.Unlock()
			return true, nil
		}
	}
	s.mu.Unlock()
	ref := agentproc.NativeRef(e)
	dir := ""
	if e.Turn != nil {
		dir = e.Turn.Workspace
	}
	if ref != "" {
		err := s.spawn(dir, ref)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, agentproc.ErrNotFound) {
			return false, err
		}
		turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
			"could not resume Claude session %s (%v); starting a new session with the thread's history", ref, err)})
	} else if e.Turn != nil && e.Turn.ForkOf != "" {
		err := s.spawn(dir, e.Turn.ForkOf, "--fork-session", "--resume-session-at", e.Turn.ForkAt)
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
	return false, s.spawn(dir, "")
}

// spawn starts the CLI and runs the initialize handshake, bounded by the
// handshake deadline. Garbage before the handshake, an early exit or
// silence each fail it with a message naming the cause.
func (s *session) spawn(dir, resume string, more ...string) error {
	spec := agentproc.Spec{Name: s.cfg.Name, Path: s.cfg.Command[0], Args: s.cfg.Args(resume, more...), Dir: dir,
		Env: s.cfg.Env, Home: s.cfg.Home, Install: Install}
	p, err := agentproc.Start(spec)
	if err != nil {
		return err
	}
	gone := make(chan struct{})
	hs := make(chan string, 1)
	s.mu.Lock()
	s.proc, s.gone, s.ready, s.stopping, s.hsErr, s.garbage = p, gone, false, false, hs, 0
	s.sessionID = resume
	s.mu.Unlock()
	go s.read(p, gone)
	res := s.sendControl(map[string]any{"subtype": "initialize"})
	timer := time.NewTimer(s.cfg.Settings.Handshake)
	defer timer.Stop()
	fail := func(msg string) error {
		p.Stop(nil, 0, s.cfg.Settings.Term)
		<-gone
		return errors.New(msg)
	}
	select {
	case _, ok := <-res:
		if !ok {
			<-gone
			return errors.New(p.ExitReason() + " before answering initialize")
		}
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
		s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessRunning,
			Text: fmt.Sprintf("%s started (pid %d)", s.cfg.Name, p.Pid())})
		return nil
	case msg := <-hs:
		return fail(msg)
	case <-gone:
		return errors.New(p.ExitReason() + " before answering initialize")
	case <-timer.C:
		return fail(fmt.Sprintf("%s did not answer initialize within %s; %s", s.cfg.Name, s.cfg.Settings.Handshake,
			orStderr(p.Stderr())))
	}
}

func orStderr(s string) string {
	if s == "" {
		return "it wrote nothing on stderr"
	}
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return "its stderr ends: " + strings.ReplaceAll(s, "\n", " | ")
}

// sendControl writes a control request and returns a channel for its
// response (nil frame if the process ends first).
func (s *session) sendControl(req map[string]any) <-chan json.RawMessage {
	s.mu.Lock()
	s.ctrlN++
	id := fmt.Sprintf("nexus-%d", s.ctrlN)
	ch := make(chan json.RawMessage, 1)
	s.ctrl[id] = ch
	p := s.proc
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": req})
	if p != nil {
		_ = p.WriteLine(b)
	}
	return ch
}

// Stop implements agentproc.Session.
func (s *session) Stop(reason string) {
	s.mu.Lock()
	p, t := s.proc, s.turn
	s.stopping = true
	s.stopWindow()
	s.mu.Unlock()
	if p != nil {
		var cancel func()
		if t != nil && !t.Ended() {
			cancel = func() { s.sendControl(map[string]any{"subtype": "interrupt"}) }
		}
		p.Stop(cancel, s.cfg.Settings.Grace, s.cfg.Settings.Term)
		<-s.gone
	}
	if t != nil {
		t.End(core.AttemptInterrupted, reason)
	}
	s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessStopped, Text: reason})
}

// died handles the end of the process the reader saw; a stop asked for is
// reported by Stop.
func (s *session) died(p *agentproc.Proc) {
	<-p.Done()
	p.Close()
	s.mu.Lock()
	if s.proc != p {
		s.mu.Unlock()
		return
	}
	stopping, ready, t := s.stopping, s.ready, s.turn
	s.proc, s.ready = nil, false
	s.stopWindow()
	for id, ch := range s.ctrl {
		close(ch)
		delete(s.ctrl, id)
	}
	s.reqs = map[string]*permReq{}
	s.mu.Unlock()
	if stopping || !ready {
		return // Stop or the handshake reports it
	}
	reason := p.ExitReason()
	if t != nil && !t.Ended() {
		t.End(core.AttemptFailed, reason)
	}
	run := ""
	if t != nil {
		run = t.E.Run
	}
	s.out.Ended(s.thread, run, reason, true)
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
