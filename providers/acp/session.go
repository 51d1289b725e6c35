package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

const maxGarbage = 50

// replayQuiet is how long the agent must send no session/update after
// answering session/load before the turn's prompt goes out: gemini sends
// the history it replays after its answer, not before, and those updates
// must not land in the new turn.
const replayQuiet = 200 * time.Millisecond

// session is one ACP agent process serving one nexus thread, with one ACP
// session in it. The actor goroutine calls Handle and Stop; the SDK's
// goroutines call the client methods; they share the fields under mu.
type session struct {
	cfg    Config
	thread string
	out    *agentproc.Emitter
	flow   *inflight // session/update lines queued in the SDK
	// updated is signalled (without blocking) on every session/update.
	updated chan struct{}

	mu        sync.Mutex
	proc      *agentproc.Proc
	conn      *sdk.ClientSideConnection
	ctx       context.Context // ends when the process is stopped
	cancelCtx context.CancelFunc
	gone      chan struct{}
	ready     bool
	stopping  bool
	hsErr     chan string
	agentCaps sdk.AgentCapabilities
	sid       sdk.SessionId
	workspace string
	turn      *agentproc.Turn
	perms     map[string]*perm
	permN     int
	textKey   string // the assistant message node being streamed
	msgN      int
	tools     map[string]bool // tool call ids that have a node
	cost      float64         // the session's cumulative cost so far
	costSeen  float64         // cost already reported
	garbage   int
	terms     *terminals
	// cancelSent and denied are about the current turn: nexus sent
	// session/cancel; a permission was answered with a reject option.
	// They say why a turn the agent ended as cancelled ended.
	cancelSent, denied bool
}

// perm is a permission request waiting for the person.
type perm struct {
	options []sdk.PermissionOption
	answer  chan core.Request
	cancel  chan struct{}
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	return &session{cfg: cfg, thread: thread, out: out, perms: map[string]*perm{}, tools: map[string]bool{}, terms: newTerminals(),
		flow: newInflight(), updated: make(chan struct{}, 1)}
}

// Handle implements agentproc.Session.
func (s *session) Handle(e core.Effect) {
	switch e.Kind {
	case core.EffStartTurn:
		s.startTurn(e)
	case core.EffSteer:
		// Not reached: ACP cannot steer, so the kernel restarts instead.
		s.out.Done(e, "failed", "ACP agents cannot take a message mid-turn")
	case core.EffInterrupt:
		s.mu.Lock()
		t := s.turn
		live := t != nil && !t.Ended() && t.E.Attempt == e.Attempt
		s.mu.Unlock()
		if live {
			s.cancelTurn()
		}
		s.out.Done(e, "completed", "")
	case core.EffAnswer:
		s.answer(e)
	}
}

// cancelTurn sends session/cancel and answers every pending permission
// request with cancelled, as the protocol requires.
func (s *session) cancelTurn() {
	s.mu.Lock()
	conn, sid, ctx := s.conn, s.sid, s.ctx
	perms := s.perms
	s.perms, s.cancelSent = map[string]*perm{}, true
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid})
	}
	for _, p := range perms {
		close(p.cancel)
	}
}

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
	s.turn, s.textKey, s.cancelSent, s.denied = turn, "", false, false
	conn, sid, ctx, proc, gone := s.conn, s.sid, s.ctx, s.proc, s.gone
	s.mu.Unlock()
	turn.Obs(core.Observation{Kind: core.ObsNativeRef, Text: string(sid)})
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	prompt := agentproc.Prompt(e.Turn, history)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}})
		s.promptDone(turn, resp, err, proc, gone)
	}()
}

// promptDone ends the turn from session/prompt's answer.
func (s *session) promptDone(t *agentproc.Turn, resp sdk.PromptResponse, err error, p *agentproc.Proc, gone chan struct{}) {
	s.closeText(t)
	s.mu.Lock()
	for k, p := range s.perms {
		close(p.cancel)
		delete(s.perms, k)
	}
	// The cost is cumulative: a lower one (a malformed or reset count)
	// adds nothing rather than a negative amount.
	cost := max(s.cost-s.costSeen, 0)
	s.costSeen = s.cost
	cancelSent, denied := s.cancelSent, s.denied
	s.mu.Unlock()
	if err != nil {
		msg := fmt.Sprintf("%s: session/prompt failed: %v", s.cfg.Name, err)
		select {
		case <-gone:
			msg = p.ExitReason()
		case <-time.After(500 * time.Millisecond):
		}
		t.End(core.AttemptFailed, msg)
		return
	}
	in, out, usage := metaUsage(resp.Meta)
	if u := resp.Usage; u != nil {
		in, out, usage = agentproc.Count(u.InputTokens), agentproc.Count(u.OutputTokens), true
		if u.ThoughtTokens != nil {
			out += agentproc.Count(*u.ThoughtTokens)
		}
	}
	if usage || cost > 0 {
		t.Obs(core.Observation{Kind: core.ObsLLM, Key: fmt.Sprintf("acp:%s:%s", t.E.Attempt, time.Now().Format(time.RFC3339Nano)),
			Title: s.cfg.Name, CostUSD: cost, TokensIn: in, TokensOut: out})
	}
	switch resp.StopReason {
	case sdk.StopReasonCancelled:
		switch {
		case cancelSent:
			t.End(core.AttemptInterrupted, "interrupted")
		case denied:
			// codex-acp's only reject option aborts the turn.
			t.End(core.AttemptInterrupted, s.cfg.Name+" ended the turn when its request was denied")
		default:
			t.End(core.AttemptInterrupted, s.cfg.Name+" cancelled the turn itself")
		}
	case sdk.StopReasonRefusal:
		t.End(core.AttemptFailed, s.cfg.Name+" refused to continue")
	case sdk.StopReasonMaxTokens, sdk.StopReasonMaxTurnRequests:
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf("%s stopped early: %s", s.cfg.Name, resp.StopReason)})
		t.End(core.AttemptCompleted, "")
	default:
		t.End(core.AttemptCompleted, "")
	}
}

// ensure starts the agent and opens the ACP session: resumed (or loaded)
// by its native ref when the journal has one and the agent can, else new.
func (s *session) ensure(e core.Effect, turn *agentproc.Turn) (bool, error) {
	s.mu.Lock()
	if s.proc != nil && s.ready && s.sid != "" {
		select {
		case <-s.gone:
		default:
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
	conn, ctx, caps := s.conn, s.ctx, s.agentCaps
	s.mu.Unlock()
	hctx, cancel := context.WithTimeout(ctx, s.cfg.Settings.Handshake)
	defer cancel()
	if ref := agentproc.NativeRef(e); ref != "" {
		var err error
		switch {
		case caps.SessionCapabilities.Resume != nil:
			_, err = conn.ResumeSession(hctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(ref), Cwd: dir, McpServers: []sdk.McpServer{}})
		case caps.LoadSession:
			// The agent replays the conversation as updates; no turn
			// listens yet, so they are dropped.
			_, err = conn.LoadSession(hctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(ref), Cwd: dir, McpServers: []sdk.McpServer{}})
		default:
			err = errors.New("the agent supports neither session/resume nor session/load")
		}
		if err == nil {
			if caps.SessionCapabilities.Resume == nil {
				s.settle(hctx)
			}
			s.mu.Lock()
			s.sid = sdk.SessionId(ref)
			s.mu.Unlock()
			return true, nil
		}
		turn.Obs(core.Observation{Kind: core.ObsResumeFailed, Text: fmt.Sprintf(
			"could not resume %s session %s (%v); starting a new session with the history nexus recorded", s.cfg.Name, ref, err)})
	}
	res, err := conn.NewSession(hctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		return false, s.callErr("session/new", err)
	}
	s.mu.Lock()
	s.sid = res.SessionId
	s.mu.Unlock()
	return false, nil
}

// settle waits until the agent has sent no session/update for
// replayQuiet, or ctx ends; what arrives meanwhile is replayed history,
// dropped because no turn listens.
func (s *session) settle(ctx context.Context) {
	quiet := time.NewTimer(replayQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-s.updated:
			quiet.Reset(replayQuiet)
		case <-quiet.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// metaUsage is the turn's token usage from the answer's _meta, where
// gemini reports it ({"quota": {"token_count": {"input_tokens",
// "output_tokens"}}}) instead of in usage.
func metaUsage(meta map[string]any) (in, out int, ok bool) {
	q, _ := meta["quota"].(map[string]any)
	tc, _ := q["token_count"].(map[string]any)
	i, iok := tc["input_tokens"].(float64)
	o, ook := tc["output_tokens"].(float64)
	if !iok || !ook {
		return 0, 0, false
	}
	count := func(f float64) int { return int(min(max(f, 0), agentproc.MaxCount)) }
	return count(i), count(o), true
}

// callErr explains a failed call: the process ended, or the agent said no.
func (s *session) callErr(what string, err error) error {
	s.mu.Lock()
	p, gone := s.proc, s.gone
	s.mu.Unlock()
	if p != nil {
		select {
		case <-gone:
			return errors.New(p.ExitReason() + " during " + what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s: %s failed: %v", s.cfg.Name, what, err)
}

// spawn starts the agent and runs initialize within the handshake
// deadline, advertising fs and terminal support.
func (s *session) spawn(dir string) error {
	if len(s.cfg.Command) == 0 {
		return fmt.Errorf("%s: no command configured", s.cfg.Name)
	}
	spec := agentproc.Spec{Name: s.cfg.Name, Path: s.cfg.Command[0], Args: s.cfg.Command[1:], Dir: dir,
		Env: s.cfg.Env, Home: s.cfg.Home, Install: s.cfg.Install}
	p, err := agentproc.Start(spec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(s.out.Context())
	gone, hs := make(chan struct{}), make(chan string, 1)
	s.mu.Lock()
	s.proc, s.ctx, s.cancelCtx, s.gone, s.hsErr, s.ready, s.stopping, s.sid, s.garbage, s.workspace =
		p, ctx, cancel, gone, hs, false, false, "", 0, dir
	s.mu.Unlock()
	// The SDK's reader starts at once, and SetLogger races with it
	// unless the reader sees nothing until the logger is set.
	release := make(chan struct{})
	in := s.filter(p, gone, release)
	conn := sdk.NewClientSideConnection(&client{s: s}, p.Stdin(), in)
	conn.SetLogger(discardLogger)
	close(release)
	// The SDK stops reading when it closes the connection (for one, when
	// more notifications queue up than it holds); the filter must not
	// block on a pipe no one reads, or Stop would wait for it forever.
	go func() {
		select {
		case <-conn.Done():
			in.CloseWithError(errors.New("the ACP connection closed"))
		case <-gone:
		}
	}()
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	type result struct {
		res sdk.InitializeResponse
		err error
	}
	done := make(chan result, 1)
	hctx, hcancel := context.WithTimeout(ctx, s.cfg.Settings.Handshake)
	defer hcancel()
	go func() {
		res, err := conn.Initialize(hctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
			ClientInfo:         &sdk.Implementation{Name: "nexus", Version: "1"},
			ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}})
		done <- result{res, err}
	}()
	fail := func(msg string) error {
		p.Stop(nil, 0, s.cfg.Settings.Term)
		<-gone
		return errors.New(msg)
	}
	select {
	case r := <-done:
		if r.err != nil {
			select {
			case <-gone:
				return errors.New(p.ExitReason() + " before answering initialize")
			case <-time.After(200 * time.Millisecond):
			}
			if hctx.Err() != nil {
				return fail(fmt.Sprintf("%s did not answer initialize within %s; %s", s.cfg.Name, s.cfg.Settings.Handshake, stderrTail(p)))
			}
			return fail(fmt.Sprintf("%s refused initialize: %v", s.cfg.Name, r.err))
		}
		s.mu.Lock()
		s.ready, s.agentCaps = true, r.res.AgentCapabilities
		s.mu.Unlock()
		s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessRunning,
			Text: fmt.Sprintf("%s started (pid %d)", s.cfg.Name, p.Pid())})
		return nil
	case m := <-hs:
		return fail(m)
	case <-gone:
		return errors.New(p.ExitReason() + " before answering initialize")
	}
}

func stderrTail(p *agentproc.Proc) string {
	s := p.Stderr()
	if s == "" {
		return "it wrote nothing on stderr"
	}
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return "its stderr ends: " + s
}

// filter passes the agent's JSON lines to the SDK and handles the rest:
// garbage before the handshake fails it, later garbage is warned about.
// When stdout ends it reports the end of the process.
func (s *session) filter(p *agentproc.Proc, gone, release chan struct{}) *io.PipeReader {
	pr, pw := io.Pipe()
	go func() {
		defer close(gone)
		<-release
		sc := agentproc.Lines(p.Stdout())
		for sc.Scan() {
			b := sc.Bytes()
			if !json.Valid(b) {
				if s.garbageLine(b) {
					p.Stop(nil, 0, s.cfg.Settings.Term)
					break
				}
				continue
			}
			s.mu.Lock()
			s.garbage = 0
			t := s.turn
			s.mu.Unlock()
			if t != nil {
				t.Kick()
			}
			s.flow.admit(b)
			if _, err := pw.Write(append(append([]byte(nil), b...), '\n')); err != nil {
				// No one reads: drain stdout so the agent is never
				// blocked writing, and report its end as usual.
				for sc.Scan() {
				}
				break
			}
		}
		pw.Close()
		s.died(p)
	}()
	return pr
}

func (s *session) garbageLine(line []byte) bool {
	s.mu.Lock()
	s.garbage++
	n, ready, hs, t := s.garbage, s.ready, s.hsErr, s.turn
	s.mu.Unlock()
	snip := agentproc.Snippet(line, 200)
	if !ready {
		select {
		case hs <- fmt.Sprintf("%s wrote something that is not ACP JSON-RPC before the handshake: %q; is %q an ACP agent?",
			s.cfg.Name, snip, s.cfg.Command[0]):
		default:
		}
		return false
	}
	if t != nil && n <= 3 {
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf("%s wrote a line that is not JSON (ignored): %q", s.cfg.Name, snip)})
	}
	if n >= maxGarbage {
		if t != nil {
			t.End(core.AttemptFailed, fmt.Sprintf("%s wrote %d lines in a row that are not JSON; stopping it", s.cfg.Name, n))
		}
		return true
	}
	return false
}

// Stop implements agentproc.Session.
func (s *session) Stop(reason string) {
	s.mu.Lock()
	p, t, gone, cancel := s.proc, s.turn, s.gone, s.cancelCtx
	s.stopping = true
	s.mu.Unlock()
	if p != nil {
		var c func()
		if t != nil && !t.Ended() {
			c = s.cancelTurn
		}
		p.Stop(c, s.cfg.Settings.Grace, s.cfg.Settings.Term)
		<-gone
		cancel()
	}
	s.terms.killAll()
	if t != nil {
		t.End(core.AttemptInterrupted, reason)
	}
	s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, Status: core.SessStopped, Text: reason})
}

// died handles the end of the process.
func (s *session) died(p *agentproc.Proc) {
	<-p.Done()
	p.Close()
	s.mu.Lock()
	if s.proc != p {
		s.mu.Unlock()
		return
	}
	stopping, ready, t, cancel := s.stopping, s.ready, s.turn, s.cancelCtx
	s.proc, s.conn, s.ready = nil, nil, false
	s.mu.Unlock()
	s.terms.killAll()
	cancel()
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
