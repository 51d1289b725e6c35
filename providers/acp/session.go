package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// replayQuiet is how long the agent must send no session/update after
// answering session/load before the turn's prompt goes out: gemini sends
// the history it replays after its answer, not before, and those updates
// must not land in the new turn.
const replayQuiet = 200 * time.Millisecond

// session is one ACP agent process serving one nexus thread, with one ACP
// session in it. The Lifecycle runs the process, the session is its ACP
// client. The actor goroutine calls Handle and Stop; the SDK's goroutines
// call the client methods; they share the fields under mu.
type session struct {
	*agentproc.Lifecycle
	cfg  Config
	out  *agentproc.Emitter
	flow *inflight // session/update lines queued in the SDK
	// nodes orders the tool node observations that carry paths (see
	// toolNode); it is taken before mu, never while holding it.
	nodes sync.Mutex
	// updated is signalled (without blocking) on every session/update.
	updated chan struct{}

	mu        sync.Mutex
	conn      *sdk.ClientSideConnection // nil when no process runs
	ctx       context.Context           // ends when the process does
	cancelCtx context.CancelFunc
	agentCaps sdk.AgentCapabilities
	sid       sdk.SessionId
	workspace string
	perms     map[string]*perm
	permN     int
	textKey   string // the assistant message node being streamed
	msgN      int
	tools     map[string]*toolCall // by id: the calls that have a node
	cost      float64              // the session's cumulative cost so far
	costSeen  float64              // cost already reported
	priced    bool                 // the agent reported a cost in USD
	terms     *terminals
	// cancelSent and denied are about the current turn: nexus sent
	// session/cancel; a permission was answered with a reject option.
	// They say why a turn the agent ended as cancelled ended.
	cancelSent, denied bool
	// granted are the paths the person allowed this turn to write
	// (from an allowed permission's tool locations); grantedAny counts
	// allowed write permissions that named no location, each good for
	// one fs/write_text_file.
	granted    map[string]bool
	grantedAny int
}

// perm is a permission request waiting for the person.
type perm struct {
	options []sdk.PermissionOption
	answer  chan core.Request
	cancel  chan struct{}
}

func newSession(cfg Config, thread string, out *agentproc.Emitter) *session {
	s := &session{cfg: cfg, out: out, perms: map[string]*perm{}, tools: map[string]*toolCall{}, terms: newTerminals(),
		flow: newInflight(), updated: make(chan struct{}, 1)}
	ask := ""
	if len(cfg.Command) > 0 {
		ask = fmt.Sprintf("is %q an ACP agent?", cfg.Command[0])
	}
	s.Lifecycle = agentproc.NewLifecycle(agentproc.Agent{Name: cfg.Name, Thread: thread, Settings: cfg.Settings,
		Format: "JSON", Expected: "ACP JSON-RPC", Ask: ask}, out, s)
	return s
}

// Apply implements agentproc.Protocol.
func (s *session) Apply(e core.Effect) {
	switch e.Kind {
	case core.EffSteer:
		// Not reached: ACP cannot steer, so the kernel restarts instead.
		s.out.Done(e, "failed", "ACP agents cannot take a message mid-turn")
	case core.EffInterrupt:
		t := s.Turn()
		if t != nil && !t.Ended() && t.E.Attempt == e.Attempt {
			s.Cancel()
		}
		s.out.Done(e, "completed", "")
	case core.EffAnswer:
		s.answer(e)
	}
}

// Cancel implements agentproc.Protocol: session/cancel, after which every
// pending permission request is answered cancelled, as the protocol
// requires.
func (s *session) Cancel() {
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

// Start implements agentproc.Protocol: session/prompt, on a goroutine of
// its own since it answers only when the turn ends.
func (s *session) Start(turn *agentproc.Turn, history bool) {
	e := turn.E
	s.mu.Lock()
	s.textKey, s.cancelSent, s.denied = "", false, false
	s.granted, s.grantedAny = map[string]bool{}, 0
	for _, c := range s.tools {
		// The kernel closed the last turn's calls: a write of this turn
		// is not theirs.
		c.open, c.claims, c.wrote = false, nil, nil
	}
	s.mu.Unlock()
	if !s.Begin(turn) {
		return
	}
	proc, gone := s.Proc()
	s.mu.Lock()
	conn, sid, ctx := s.conn, s.sid, s.ctx
	s.mu.Unlock()
	if proc == nil || conn == nil {
		return // the process ended: the turn has failed with the reason
	}
	turn.Obs(core.Observation{Kind: core.ObsNativeRef, Text: string(sid)})
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	prompt := agentproc.Prompt(e.Turn, history)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}})
		s.promptDone(turn, resp, err, proc, gone)
	}()
}

// promptDone ends the turn from session/prompt's answer.
func (s *session) promptDone(t *agentproc.Turn, resp sdk.PromptResponse, err error, p *agentproc.Proc, gone <-chan struct{}) {
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
	priced := s.priced
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
			Model: s.cfg.Name, CostUSD: cost, TokensIn: in, TokensOut: out, NoCost: !priced})
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

// Connect implements agentproc.Protocol: it starts the agent and opens
// the ACP session, resumed (or loaded) by its native ref when the journal
// has one and the agent can, else new.
func (s *session) Connect(e core.Effect, turn *agentproc.Turn) (bool, error) {
	dir := agentproc.Workspace(e)
	if err := s.spawn(dir); err != nil {
		return false, err
	}
	s.mu.Lock()
	conn, ctx, caps := s.conn, s.ctx, s.agentCaps
	s.mu.Unlock()
	if conn == nil {
		return false, s.callErr("session/new", agentproc.ErrExited)
	}
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
	p, gone := s.Proc()
	if p != nil {
		select {
		case <-gone:
			return errors.New(p.ExitReason() + " during " + what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s: %s failed: %v", s.cfg.Name, what, err)
}

// spawn starts the agent in dir, the workspace its files and terminals
// are confined to.
func (s *session) spawn(dir string) error {
	s.mu.Lock()
	s.workspace = dir
	s.mu.Unlock()
	return s.Spawn(s.cfg.spec(dir))
}

// Attach implements agentproc.Protocol: an SDK connection on the
// process, fed by the lines the Lifecycle reads. The SDK's reader starts
// at once and races with SetLogger unless it reads nothing before the
// logger is set; it reads only what Line feeds it, and the Lifecycle
// reads stdout only once Attach has returned.
func (s *session) Attach(p *agentproc.Proc) agentproc.Conn {
	ctx, cancel := context.WithCancel(s.out.Context())
	in, feed := io.Pipe()
	conn := sdk.NewClientSideConnection(&client{s: s}, p.Stdin(), in)
	conn.SetLogger(discardLogger)
	// The SDK stops reading when it closes the connection (for one, when
	// more notifications queue up than it holds); the feed must not
	// block on a pipe no one reads, or Stop would wait for it forever.
	ended := make(chan struct{})
	go func() {
		select {
		case <-conn.Done():
			in.CloseWithError(errors.New("the ACP connection closed"))
		case <-ended:
		}
	}()
	s.mu.Lock()
	s.conn, s.ctx, s.cancelCtx, s.sid = conn, ctx, cancel, ""
	s.mu.Unlock()
	closed := false
	line := func(b []byte) bool {
		if closed {
			// No one reads: stdout is drained so the agent is never
			// blocked writing, and its end reported as usual.
			return true
		}
		update, valid := isUpdate(b)
		if !valid {
			return false
		}
		if update {
			s.flow.admit()
		}
		if _, err := feed.Write(append(append([]byte(nil), b...), '\n')); err != nil {
			closed = true
		}
		return true
	}
	return agentproc.Conn{Handshake: func(ctx context.Context) error { return s.initialize(ctx, conn) }, Line: line,
		End: func() {
			feed.Close()
			close(ended)
		}}
}

// initialize is the handshake: initialize, advertising fs and terminal
// support.
func (s *session) initialize(ctx context.Context, conn *sdk.ClientSideConnection) error {
	res, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:         &sdk.Implementation{Name: "nexus", Version: "1"},
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.agentCaps = res.AgentCapabilities
	s.mu.Unlock()
	return nil
}

// Detach implements agentproc.Protocol: the connection, the session's
// context and every terminal end with the process.
func (s *session) Detach() {
	s.mu.Lock()
	cancel := s.cancelCtx
	s.conn = nil
	s.mu.Unlock()
	s.terms.killAll()
	cancel()
}
