package agentproc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// MaxGarbage is how many lines in a row that are not of its protocol an
// agent may write, once past the handshake, before its turn ends and its
// process is stopped.
const MaxGarbage = 50

// warnGarbage is how many such lines in a row are warned about.
const warnGarbage = 3

// exitWait is how long a failed handshake waits for the process to end,
// so that the error says why it ended rather than what the protocol
// library made of it.
const exitWait = 200 * time.Millisecond

// ErrExited is what a Conn's Handshake returns when the process ended
// before it answered: the Lifecycle then waits for the end to be reported
// and fails the start with the exit status and stderr.
var ErrExited = errors.New("the agent process ended")

// Protocol is what an adapter supplies to its Lifecycle: how to speak to
// its agent. Detach runs on the reader goroutine, the other methods on
// the session's actor goroutine.
type Protocol interface {
	// Connect readies a new process for start_turn e: it calls Spawn
	// (again after a refused resume, when resuming is a command-line
	// flag), then resumes, forks or opens the conversation, and reports
	// whether the agent holds the thread's history. A refused resume is
	// posted on t (core.ObsResumeFailed) and a new conversation opened.
	// The Lifecycle calls it unless the process is live and a Connect
	// already succeeded on it: then the agent holds the history.
	Connect(e core.Effect, t *Turn) (history bool, err error)
	// Start runs turn t (t.E is its start_turn effect) once Connect has
	// readied the agent: it resets the protocol's per-turn state, makes
	// t the current turn with Begin (and returns if Begin says the
	// process has ended), and sends the turn to the agent.
	Start(t *Turn, history bool)
	// Apply runs the thread's other effects: steer, interrupt, answer.
	Apply(e core.Effect)
	// Attach binds the protocol to a process Spawn has just started,
	// before its stdout is read, and returns the binding: the handshake
	// and how to read stdout.
	Attach(p *Proc) Conn
	// Cancel asks the agent to end its running turn (interrupt,
	// turn/interrupt, session/cancel): the first stage of Stop.
	Cancel()
	// Detach drops what the protocol tied to the current process (open
	// requests, pending calls, a connection) once it has ended.
	Detach()
}

// Conn is a protocol bound to one process (see Protocol.Attach).
type Conn struct {
	// Handshake runs the protocol's initialize, on a goroutine of its
	// own. ctx ends at the handshake deadline (or when the host stops);
	// a refusal is an error, and ErrExited says the process ended first.
	Handshake func(ctx context.Context) error
	// Line handles one line of stdout, on the reader goroutine; false
	// when the line is not of the protocol (garbage, see Lifecycle).
	Line func(line []byte) bool
	// End, when set, runs on the reader goroutine once stdout has ended,
	// before the process is reaped: a protocol library fed from Line
	// sees the end of its input.
	End func()
}

// Agent is what a Lifecycle knows of the agent it runs, besides its
// protocol.
type Agent struct {
	// Name is the profile name, in every message a person sees.
	Name string
	// Thread is the nexus thread the session serves.
	Thread string
	// Settings are the deadlines.
	Settings Settings
	// Format names what every line of the agent's stdout should be, in
	// the warnings about one that is not ("stream-json", "JSON").
	Format string
	// Expected names it, and Ask ends with a question about the
	// command, in the start error for such a line before the handshake:
	// `codex wrote something that is not app-server JSON before the
	// handshake: "Welcome"; is "codex app-server" really `codex
	// app-server`?`.
	Expected, Ask string
}

// Lifecycle is one agent process's life in a session: it starts the
// process and runs its handshake, reads its stdout (garbage-line
// accounting included), reports its end, and stops it. It implements
// Session: an adapter's session embeds one and supplies the Protocol;
// see the package manual.
type Lifecycle struct {
	agent Agent
	out   *Emitter
	proto Protocol

	mu   sync.Mutex
	proc *Proc
	// gone is closed once the reader has seen the process end and
	// reported it. Invariant: a new process is spawned only after the
	// previous one's gone is closed, or while it is live but no Connect
	// succeeded on it, never while its end is being reported.
	gone     chan struct{}
	ready    bool        // the handshake succeeded
	held     bool        // Connect succeeded: the process holds the conversation
	stopping bool        // Stop was called: the end is Stop's to report
	hsErr    chan string // garbage before the handshake fails it
	garbage  int         // lines in a row that were not of the protocol
	last     *Proc       // the last process that ended
	turn     *Turn
}

// NewLifecycle returns the lifecycle of a session that reports on out.
func NewLifecycle(a Agent, out *Emitter, proto Protocol) *Lifecycle {
	return &Lifecycle{agent: a, out: out, proto: proto}
}

// Turn returns the current turn (nil before the first).
func (l *Lifecycle) Turn() *Turn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turn
}

// Proc returns the running process, nil when there is none, and the
// channel closed once its end has been reported.
func (l *Lifecycle) Proc() (*Proc, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.proc, l.gone
}

// Handle implements Session: a start_turn effect is the lifecycle's (see
// open), then the protocol's Start; any other effect is the protocol's
// Apply.
func (l *Lifecycle) Handle(e core.Effect) {
	if e.Kind != core.EffStartTurn {
		l.proto.Apply(e)
		return
	}
	if t, history := l.open(e); t != nil {
		l.proto.Start(t, history)
	}
}

// open readies the agent for the start_turn effect e and returns the
// attempt's Turn, which is not yet the current one (see Begin), and
// whether the agent holds the thread's history. A turn still running is
// ended failed first ("superseded"): the kernel gave up on it. When the
// agent cannot be readied, open ends the attempt failed and reports the
// session FAILED, both with the reason, and returns nil.
func (l *Lifecycle) open(e core.Effect) (t *Turn, history bool) {
	if old := l.Turn(); old != nil {
		old.End(core.AttemptFailed, "superseded")
	}
	t = NewTurn(e, l.out, l.agent.Name, l.agent.Settings.Silence)
	if l.holds() {
		return t, true
	}
	history, err := l.proto.Connect(e, t)
	if err != nil {
		t.End(core.AttemptFailed, err.Error())
		l.out.Ended(e.Thread, e.Run, err.Error(), true)
		return nil, false
	}
	l.mu.Lock()
	l.held = true
	l.mu.Unlock()
	return t, history
}

// Begin makes t the current turn: the one warnings, the watchdog's kicks
// and the process's end go to. The protocol's Start calls it once it has
// reset its own state for the turn, before it sends the turn to the
// agent. When the process has ended since it was readied, Begin ends t
// failed with the reason and returns false: the end was reported on the
// turn before. Once Begin returns true, an end of the process is this
// turn's, so a Start that then finds no process (or connection) just
// returns.
func (l *Lifecycle) Begin(t *Turn) bool {
	l.mu.Lock()
	if last := l.last; l.proc == nil && last != nil {
		l.mu.Unlock()
		t.End(core.AttemptFailed, last.ExitReason())
		return false
	}
	l.turn = t
	l.mu.Unlock()
	return true
}

// holds reports whether the process runs, answered the handshake and
// holds the conversation.
func (l *Lifecycle) holds() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.proc == nil || !l.ready || !l.held {
		return false
	}
	select {
	case <-l.gone:
		return false
	default:
		return true
	}
}

// Spawn starts the agent, attaches the protocol, starts reading its
// stdout and runs the handshake within Settings.Handshake. Garbage before
// the handshake, an early exit, a refusal and silence each fail it with a
// message naming the cause; a process that failed is stopped and its end
// reported before Spawn returns. On success the session is reported
// RUNNING ("claude started (pid N)").
func (l *Lifecycle) Spawn(spec Spec) error {
	p, err := Start(spec)
	if err != nil {
		return err
	}
	gone, hs := make(chan struct{}), make(chan string, 1)
	l.mu.Lock()
	l.proc, l.gone, l.hsErr, l.ready, l.held, l.stopping, l.garbage = p, gone, hs, false, false, false, 0
	l.mu.Unlock()
	conn := l.proto.Attach(p)
	go l.read(p, conn, gone)
	if err := l.handshake(p, conn, gone, hs); err != nil {
		return err
	}
	l.mu.Lock()
	alive := l.proc == p
	l.ready = alive
	l.mu.Unlock()
	if !alive {
		// It ended as it answered, before it was ready: its end is this
		// start's to report.
		<-gone
		return errors.New(p.ExitReason() + " right after answering initialize")
	}
	l.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: l.agent.Thread, SessionState: core.SessRunning,
		Text: fmt.Sprintf("%s started (pid %d)", l.agent.Name, p.Pid())})
	return nil
}

// handshake waits for the protocol's handshake, the process's end or
// garbage on its stdout, whichever comes first.
func (l *Lifecycle) handshake(p *Proc, conn Conn, gone <-chan struct{}, hs <-chan string) error {
	set := l.agent.Settings
	ctx, cancel := context.WithTimeout(l.out.Context(), set.Handshake)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- conn.Handshake(ctx) }()
	fail := func(msg string) error {
		p.Stop(nil, 0, set.Term)
		<-gone
		return errors.New(msg)
	}
	exited := func() error { return errors.New(p.ExitReason() + " before answering initialize") }
	select {
	case err := <-res:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrExited):
			<-gone
			return exited()
		case ctx.Err() != nil:
			return fail(fmt.Sprintf("%s did not answer initialize within %s; %s", l.agent.Name, set.Handshake,
				stderrTail(p.Stderr())))
		}
		select {
		case <-gone:
			return exited()
		case <-time.After(exitWait):
		}
		return fail(fmt.Sprintf("%s refused initialize: %v", l.agent.Name, err))
	case msg := <-hs:
		return fail(msg)
	case <-gone:
		return exited()
	}
}

// stderrTail quotes the end of what an agent wrote on stderr, on one
// line, for the error of a handshake that timed out.
func stderrTail(s string) string {
	if s == "" {
		return "it wrote nothing on stderr"
	}
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return "its stderr ends: " + strings.ReplaceAll(s, "\n", " | ")
}

// read reads the process's stdout until it ends, then reports the end.
func (l *Lifecycle) read(p *Proc, conn Conn, gone chan struct{}) {
	defer close(gone)
	sc := Lines(p.Stdout())
	for sc.Scan() {
		if l.line(conn, sc.Bytes()) {
			p.Stop(nil, 0, l.agent.Settings.Term)
			break
		}
	}
	if err := sc.Err(); err != nil {
		l.warn(fmt.Sprintf("%s: reading its output failed (%v); stopping it", l.agent.Name, err))
		p.Stop(nil, 0, l.agent.Settings.Term)
	}
	if conn.End != nil {
		conn.End()
	}
	l.died(p)
}

// line hands one line to the protocol and applies the garbage-line
// policy; it reports whether the process should be given up on. A line
// of the protocol is a sign of life for the turn's watchdog, whatever it
// maps to.
func (l *Lifecycle) line(conn Conn, b []byte) bool {
	if conn.Line(b) {
		l.mu.Lock()
		l.garbage = 0
		t := l.turn
		l.mu.Unlock()
		if t != nil {
			t.Kick()
		}
		return false
	}
	l.mu.Lock()
	l.garbage++
	n, ready, hs, t := l.garbage, l.ready, l.hsErr, l.turn
	l.mu.Unlock()
	a := l.agent
	snip := Snippet(b, 200)
	if !ready {
		select {
		case hs <- fmt.Sprintf("%s wrote something that is not %s before the handshake: %q; %s", a.Name, a.Expected, snip, a.Ask):
		default:
		}
		return false
	}
	if n <= warnGarbage {
		l.warn(fmt.Sprintf("%s wrote a line that is not %s (ignored): %q", a.Name, a.Format, snip))
	}
	if n >= MaxGarbage {
		if t != nil {
			t.End(core.AttemptFailed, fmt.Sprintf("%s wrote %d lines in a row that are not %s; stopping it (last: %q)",
				a.Name, n, a.Format, snip))
		}
		return true
	}
	return false
}

func (l *Lifecycle) warn(text string) {
	if t := l.Turn(); t != nil {
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: text})
	}
}

// died reports the end of a process the reader saw. The end of a process
// Stop ended is Stop's to report, and that of one that never answered
// the handshake is Spawn's error.
func (l *Lifecycle) died(p *Proc) {
	<-p.Done()
	p.Close()
	l.mu.Lock()
	if l.proc != p {
		l.mu.Unlock()
		return
	}
	report, t := l.ready && !l.stopping, l.turn
	l.proc, l.ready, l.last = nil, false, p
	l.mu.Unlock()
	l.proto.Detach()
	if !report {
		return
	}
	reason := p.ExitReason()
	run := ""
	if t != nil {
		run = t.E.Run
		t.End(core.AttemptFailed, reason)
	}
	l.out.Ended(l.agent.Thread, run, reason, true)
}

// Stop implements Session: the protocol's Cancel (when a turn runs), the
// end of stdin, SIGTERM and SIGKILL on the Settings' deadlines; then the
// turn ends interrupted and the session is reported STOPPED, both with
// the reason. It returns once the process is reaped and its end handled;
// the next turn starts a new one.
func (l *Lifecycle) Stop(reason string) {
	l.mu.Lock()
	p, t, gone := l.proc, l.turn, l.gone
	l.stopping = true
	l.mu.Unlock()
	if p != nil {
		var cancel func()
		if t != nil && !t.Ended() {
			cancel = l.proto.Cancel
		}
		p.Stop(cancel, l.agent.Settings.Grace, l.agent.Settings.Term)
		<-gone
	}
	if t != nil {
		t.End(core.AttemptInterrupted, reason)
	}
	l.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: l.agent.Thread, SessionState: core.SessStopped, Text: reason})
}

// Check is what `nexus providers --check` reports: it starts the agent
// from spec, runs the handshake within Settings.Handshake, and stops it.
func (l *Lifecycle) Check(spec Spec) error {
	if err := l.Spawn(spec); err != nil {
		return err
	}
	l.Stop("check done")
	return nil
}
