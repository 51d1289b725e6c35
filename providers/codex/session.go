package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// session is one app-server process serving one nexus thread: one Codex
// thread in it. The Lifecycle runs the process, the session speaks
// JSON-RPC to it. The actor goroutine calls Handle and Stop; the reader
// goroutine handles stdout; they share the fields under mu.
type session struct {
	*agentproc.Lifecycle
	cfg Config
	out *agentproc.Emitter

	mu       sync.Mutex
	rpc      *rpc   // the calls to the running process; nil when none
	threadID string // the Codex thread: the native ref
	turnID   string
	failure  string              // the last error notification of the turn
	reqs     map[string]*request // JSON-RPC id -> open server request
	texts    map[string]bool     // agentMessage items that streamed deltas
	// patches are the files of the turn's open fileChange items (item
	// id -> paths), for their approvals; at most maxPatches.
	patches map[string][]string
	usageN  int
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	s := &session{cfg: cfg, out: out, reqs: map[string]*request{}, texts: map[string]bool{}, patches: map[string][]string{}}
	s.Lifecycle = agentproc.NewLifecycle(agentproc.Agent{Name: cfg.Name, Thread: thread, Settings: cfg.Settings,
		Format: "JSON", Expected: "app-server JSON",
		Ask: fmt.Sprintf("is %q really `codex app-server`?", strings.Join(cfg.Command, " "))}, out, s)
	return s
}

// Apply implements agentproc.Protocol.
func (s *session) Apply(e core.Effect) {
	switch e.Kind {
	case core.EffSteer:
		s.steer(e)
	case core.EffInterrupt:
		t := s.Turn()
		s.mu.Lock()
		r, th, tu := s.rpc, s.threadID, s.turnID
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
	t := s.Turn()
	s.mu.Lock()
	r, th, tu := s.rpc, s.threadID, s.turnID
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

// Start implements agentproc.Protocol: turn/start on the Codex thread.
func (s *session) Start(turn *agentproc.Turn, history bool) {
	e := turn.E
	s.mu.Lock()
	s.failure, s.turnID = "", ""
	s.patches = map[string][]string{}
	s.mu.Unlock()
	if !s.Begin(turn) {
		return
	}
	s.mu.Lock()
	r, th := s.rpc, s.threadID
	s.mu.Unlock()
	if r == nil {
		return // the process ended: the turn has failed with the reason
	}
	turn.Obs(core.Observation{Kind: core.ObsNativeRef, Text: th})
	res, ok := <-r.call("turn/start", map[string]any{"threadId": th, "input": textInput(agentproc.Prompt(e.Turn, history)),
		"approvalPolicy": approvalPolicy(policyOf(e.Turn)), "sandboxPolicy": sandboxPolicy()})
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

// Connect implements agentproc.Protocol: it starts the app-server and
// opens the thread, resumed by its native ref when the journal has one
// (history true), else a new one.
//
// A live process does not get here: the Lifecycle keeps the thread open
// on it, and a rollback stopped the session before its pending revert.
func (s *session) Connect(e core.Effect, turn *agentproc.Turn) (bool, error) {
	dir := agentproc.Workspace(e)
	if err := s.Spawn(s.cfg.spec(dir)); err != nil {
		return false, err
	}
	s.mu.Lock()
	r := s.rpc
	s.mu.Unlock()
	if r == nil {
		return false, s.exitErr("after initialize")
	}
	if ref := agentproc.NativeRef(e); ref != "" {
		res, ok := <-r.call("thread/resume", withPolicy(map[string]any{"threadId": ref}, e.Turn))
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
	params := withPolicy(map[string]any{"threadId": t.ForkOf, "lastTurnId": t.ForkAt}, t)
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
	params := withPolicy(map[string]any{}, e.Turn)
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
	p, gone := s.Proc()
	if p == nil {
		return fmt.Errorf("%s ended %s", s.cfg.Name, when)
	}
	<-gone
	return errors.New(p.ExitReason() + " " + when)
}

// Attach implements agentproc.Protocol: a new rpc on the process, and no
// Codex thread until one is opened on it.
func (s *session) Attach(p *agentproc.Proc) agentproc.Conn {
	r := newRPC(p)
	s.mu.Lock()
	s.rpc, s.threadID = r, ""
	s.mu.Unlock()
	return agentproc.Conn{Handshake: func(ctx context.Context) error { return initialize(ctx, r) },
		Line: func(b []byte) bool { return s.line(r, b) }, End: r.closeAll}
}

// initialize is the handshake: initialize, then the initialized
// notification.
func initialize(ctx context.Context, r *rpc) error {
	select {
	case m, ok := <-r.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "nexus", "title": "nexus", "version": "1"},
		"capabilities": map[string]any{}}):
		if !ok {
			return agentproc.ErrExited
		}
		if m.Error != nil {
			return m.Error
		}
		_ = r.notify("initialized", nil)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cancel implements agentproc.Protocol: turn/interrupt.
func (s *session) Cancel() {
	s.mu.Lock()
	r, th, tu := s.rpc, s.threadID, s.turnID
	s.mu.Unlock()
	if r != nil {
		r.call("turn/interrupt", map[string]any{"threadId": th, "turnId": tu})
	}
}

// Detach implements agentproc.Protocol: the server's open requests end
// with the process (its rpc's pending calls ended with its stdout).
func (s *session) Detach() {
	s.mu.Lock()
	s.rpc = nil
	s.reqs = map[string]*request{}
	s.patches = map[string][]string{}
	s.mu.Unlock()
}
