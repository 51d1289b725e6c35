package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// session is one app-server process serving one nexus thread: one Codex
// thread in it. The actor goroutine calls Handle and Stop; the reader
// goroutine decodes stdout; they share the fields under mu.
type session struct {
	cfg    Config
	thread string
	out    *agentproc.Emitter

	mu       sync.Mutex
	proc     *agentproc.Proc
	rpc      *rpc
	gone     chan struct{}
	ready    bool
	stopping bool
	hsErr    chan string
	threadID string // the Codex thread: the native ref
	turnID   string
	turn     *agentproc.Turn
	failure  string              // the last error notification of the turn
	reqs     map[string]*request // JSON-RPC id -> open server request
	texts    map[string]bool     // agentMessage items that streamed deltas
	usageN   int
	garbage  int
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	return &session{cfg: cfg, thread: thread, out: out, reqs: map[string]*request{}, texts: map[string]bool{}}
}

// Handle implements agentproc.Session.
func (s *session) Handle(e core.Effect) {
	switch e.Kind {
	case core.EffStartTurn:
		s.startTurn(e)
	case core.EffSteer:
		s.steer(e)
	case core.EffInterrupt:
		s.mu.Lock()
		t, r, th, tu := s.turn, s.rpc, s.threadID, s.turnID
		s.mu.Unlock()
		if t == nil || t.Ended() || t.E.Attempt != e.Attempt || r == nil {
			s.out.Done(e, "completed", "")
			return
		}
		res := <-r.call("turn/interrupt", map[string]any{"threadId": th, "turnId": tu})
		if res.Error != nil && res.Error.Code == errMethodNotFound {
			// This Codex cannot interrupt: stopping the process ends the turn.
			t.Obs(core.Observation{Kind: core.ObsWarning, Text: "this codex has no turn/interrupt; stopping the process instead"})
			s.Stop("interrupted: this codex cannot interrupt a turn, so it was stopped")
		}
		s.out.Done(e, "completed", "")
	case core.EffAnswer:
		s.answer(e)
	}
}

func (s *session) steer(e core.Effect) {
	s.mu.Lock()
	t, r, th, tu := s.turn, s.rpc, s.threadID, s.turnID
	s.mu.Unlock()
	if t == nil || t.Ended() || t.E.Attempt != e.Attempt || r == nil {
		s.out.Done(e, "missed", "the turn had already ended")
		return
	}
	res := <-r.call("turn/steer", map[string]any{"threadId": th, "expectedTurnId": tu, "input": textInput(e.Text)})
	switch {
	case res.Error != nil && res.Error.Code == errMethodNotFound:
		// The kernel downgrades the thread (no more steering) and restarts
		// the run with the message instead.
		s.out.Done(e, core.EffUnsupported, "this codex has no turn/steer")
	case res.Error != nil:
		s.out.Done(e, "failed", "turn/steer: "+res.Error.Error())
	default:
		s.out.Done(e, "completed", "")
	}
}

func textInput(text string) []any {
	return []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}
}

// startTurn starts the app-server if needed, starts or resumes the Codex
// thread, then starts the turn.
func (s *session) startTurn(e core.Effect) {
	s.mu.Lock()
	if s.turn != nil && !s.turn.Ended() {
		s.turn.End(core.AttemptFailed, "superseded")
	}
	s.mu.Unlock()
	turn := agentproc.NewTurn(e, s.out, s.cfg.Name, s.cfg.Settings.Silence)
	history, err := s.ensure(e, turn)
	if err != nil {
		turn.End(core.AttemptFailed, err.Error())
		s.out.Ended(e.Thread, e.Run, err.Error(), true)
		return
	}
	s.mu.Lock()
	s.turn, s.failure, s.turnID = turn, "", ""
	r, th := s.rpc, s.threadID
	s.mu.Unlock()
	turn.Obs(core.Observation{Kind: core.ObsNativeRef, Text: th})
	res, ok := <-r.call("turn/start", map[string]any{"threadId": th, "input": textInput(agentproc.Prompt(e.Turn, history))})
	if !ok {
		return // the process ended; died reports it
	}
	if res.Error != nil {
		turn.End(core.AttemptFailed, "codex refused turn/start: "+res.Error.Error())
		return
	}
	var out struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(res.Result, &out)
	s.mu.Lock()
	if s.turnID == "" {
		s.turnID = out.Turn.ID
	}
	s.mu.Unlock()
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	if out.Turn.ID != "" {
		turn.Obs(core.Observation{Kind: core.ObsNativeTurn, Text: out.Turn.ID})
	}
}

// ensure starts the app-server and opens the thread: resumed by its
// native ref when the journal has one (history true), else a new one.
func (s *session) ensure(e core.Effect, turn *agentproc.Turn) (bool, error) {
	s.mu.Lock()
	if s.proc != nil && s.ready && s.threadID != "" {
		select {
		case <-s.gone:
		default:
			// A rollback stopped the session before its pending revert,
			// so a live one has nothing to revert.
			s.mu.Unlock()
			return true, nil
		}
	}
	s.mu.Unlock()
	dir := ""
	if e.Turn != nil {
		dir = e.Turn.Workspace
	}
	if err := s.spawn(dir); err != nil {
		return false, err
	}
	s.mu.Lock()
	r := s.rpc
	s.mu.Unlock()
	if ref := agentproc.NativeRef(e); ref != "" {
		res, ok := <-r.call("thread/resume", map[string]any{"threadId": ref})
		if !ok {
			return false, s.exitErr("during thread/resume")
		}
		if res.Error == nil {
			s.setThread(res.Result)
			if e.Turn == nil || e.Turn.RevertBefore == "" {
				return true, nil
			}
			if ok, err := s.revert(r, ref, e.Turn.RevertBefore, turn); err != nil || ok {
				return ok, err
			}
		} else {
			turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
				"could not resume Codex thread %s (%v); starting a new thread with the history nexus recorded", ref, res.Error)})
		}
	} else if e.Turn != nil && e.Turn.ForkOf != "" {
		if ok, err := s.fork(r, e.Turn, dir, turn); err != nil || ok {
			return ok, err
		}
	}
	return s.startThread(r, e, dir)
}

// fork opens a fork's thread as a Codex fork of the source's thread
// through the fork point's turn: thread/fork {threadId, lastTurnId}. ok
// false: Codex refused, which the thread is told, and ensure starts a new
// thread with the history instead.
func (s *session) fork(r *rpc, t *core.Turn, dir string, turn *agentproc.Turn) (bool, error) {
	params := map[string]any{"threadId": t.ForkOf, "lastTurnId": t.ForkAt}
	if dir != "" {
		params["cwd"] = dir
	}
	res, ok := <-r.call("thread/fork", params)
	if !ok {
		return false, s.exitErr("during thread/fork")
	}
	if res.Error == nil {
		s.setThread(res.Result)
		return true, nil
	}
	turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
		"Codex could not fork thread %s through turn %s (%v); starting a new thread with the history up to the fork",
		t.ForkOf, t.ForkAt, res.Error)})
	return false, nil
}

// startThread opens a new Codex thread (history false: the turn brings
// the whole conversation).
func (s *session) startThread(r *rpc, e core.Effect, dir string) (bool, error) {
	params := map[string]any{}
	if dir != "" {
		params["cwd"] = dir
	}
	if s.cfg.Model != "" {
		params["model"] = s.cfg.Model
	}
	res, ok := <-r.call("thread/start", params)
	if !ok {
		return false, s.exitErr("during thread/start")
	}
	if res.Error != nil {
		return false, fmt.Errorf("%s refused thread/start: %v", s.cfg.Name, res.Error)
	}
	s.setThread(res.Result)
	return false, nil
}

// revert drops a rolled-back run's turns from the resumed thread:
// thread/revert {threadId, beforeTurnId}. ok false: Codex refused (an
// older version without the method, a turn it no longer has), which the
// thread is told, and ensure starts a new thread with the history instead.
func (s *session) revert(r *rpc, ref, before string, turn *agentproc.Turn) (bool, error) {
	res, ok := <-r.call("thread/revert", map[string]any{"threadId": ref, "beforeTurnId": before})
	if !ok {
		return false, s.exitErr("during thread/revert")
	}
	if res.Error == nil {
		return true, nil
	}
	turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
		"Codex could not revert thread %s to before turn %s (%v); starting a new thread with the history up to the rollback",
		ref, before, res.Error)})
	return false, nil
}

func (s *session) setThread(result json.RawMessage) {
	var out struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	_ = json.Unmarshal(result, &out)
	s.mu.Lock()
	s.threadID = out.Thread.ID
	s.mu.Unlock()
}

func (s *session) exitErr(when string) error {
	s.mu.Lock()
	p, gone := s.proc, s.gone
	s.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s ended %s", s.cfg.Name, when)
	}
	<-gone
	return errors.New(p.ExitReason() + " " + when)
}

// spawn starts the app-server and runs initialize within the handshake
// deadline.
func (s *session) spawn(dir string) error {
	spec := agentproc.Spec{Name: s.cfg.Name, Path: s.cfg.Command[0], Args: s.cfg.Command[1:], Dir: dir,
		Env: s.cfg.Env, Home: s.cfg.Home, Install: Install}
	p, err := agentproc.Start(spec)
	if err != nil {
		return err
	}
	gone, hs, r := make(chan struct{}), make(chan string, 1), newRPC(p)
	s.mu.Lock()
	s.proc, s.rpc, s.gone, s.hsErr, s.ready, s.stopping, s.threadID, s.garbage = p, r, gone, hs, false, false, "", 0
	s.mu.Unlock()
	go s.read(p, r, gone)
	res := r.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "nexus", "title": "nexus", "version": "1"},
		"capabilities": map[string]any{}})
	timer := time.NewTimer(s.cfg.Settings.Handshake)
	defer timer.Stop()
	fail := func(msg string) error {
		p.Stop(nil, 0, s.cfg.Settings.Term)
		<-gone
		return errors.New(msg)
	}
	select {
	case m, ok := <-res:
		if !ok {
			<-gone
			return errors.New(p.ExitReason() + " before answering initialize")
		}
		if m.Error != nil {
			return fail(fmt.Sprintf("%s refused initialize: %v", s.cfg.Name, m.Error))
		}
		_ = r.notify("initialized", nil)
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
		s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessRunning,
			Text: fmt.Sprintf("%s started (pid %d)", s.cfg.Name, p.Pid())})
		return nil
	case m := <-hs:
		return fail(m)
	case <-gone:
		return errors.New(p.ExitReason() + " before answering initialize")
	case <-timer.C:
		return fail(fmt.Sprintf("%s did not answer initialize within %s; %s", s.cfg.Name, s.cfg.Settings.Handshake, tail(p.Stderr())))
	}
}

func tail(s string) string {
	if s == "" {
		return "it wrote nothing on stderr"
	}
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return "its stderr ends: " + s
}

// Stop implements agentproc.Session.
func (s *session) Stop(reason string) {
	s.mu.Lock()
	p, t, r, th, tu, gone := s.proc, s.turn, s.rpc, s.threadID, s.turnID, s.gone
	s.stopping = true
	s.mu.Unlock()
	if p != nil {
		var cancel func()
		if t != nil && !t.Ended() && r != nil {
			cancel = func() { r.call("turn/interrupt", map[string]any{"threadId": th, "turnId": tu}) }
		}
		p.Stop(cancel, s.cfg.Settings.Grace, s.cfg.Settings.Term)
		<-gone
	}
	if t != nil {
		t.End(core.AttemptInterrupted, reason)
	}
	s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessStopped, Text: reason})
}

// died handles the end of the process the reader saw.
func (s *session) died(p *agentproc.Proc, r *rpc) {
	<-p.Done()
	p.Close()
	r.closeAll()
	s.mu.Lock()
	if s.proc != p {
		s.mu.Unlock()
		return
	}
	stopping, ready, t := s.stopping, s.ready, s.turn
	s.proc, s.rpc, s.ready = nil, nil, false
	s.reqs = map[string]*request{}
	s.mu.Unlock()
	if stopping || !ready {
		return
	}
	reason := p.ExitReason()
	run := ""
	if t != nil {
		run = t.E.Run
		t.End(core.AttemptFailed, reason)
	}
	s.out.Ended(s.thread, run, reason, true)
}
