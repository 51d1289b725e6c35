package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/ptyterm"
)

// Caps: a shell takes typed input mid-command (steer) and Ctrl-C
// (interrupt); it has no structured approvals, plans or resume.
var Caps = core.Capabilities{Steer: true, Interrupt: true, PTY: true}

// promptRE matches a last line that waits for input: a shell prompt or a
// program's question ("$ ", "# ", "> ", "Continue? [y/N] ", "Password: ").
var promptRE = regexp.MustCompile(`[$#%>:?\]]\s*$`)

// Config is how the adapter starts the command.
type Config struct {
	Name     string
	Command  []string
	Env      []string
	Idle     time.Duration // output idle this long with a prompt-like last line ends the turn
	Settings agentproc.Settings
}

// ConfigFromEnv: the user's $SHELL (or /bin/sh), or the words of
// $NEXUS_SHELL_COMMAND; NEXUS_SHELL_IDLE is the idle time (default 800ms).
func ConfigFromEnv(name string) Config {
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	c := Config{Name: name, Command: agentproc.CommandFromEnv(name, []string{sh}), Idle: 800 * time.Millisecond,
		Settings: agentproc.SettingsFromEnv()}
	if d, err := time.ParseDuration(os.Getenv("NEXUS_SHELL_IDLE")); err == nil && d > 0 {
		c.Idle = d
	}
	return c
}

// Profile is the `shell` profile.
func Profile(name string) providers.Profile {
	return providers.Profile{Name: name, Kind: "shell", Caps: Caps,
		Description: "any interactive command in a PTY ($SHELL by default; NEXUS_SHELL_COMMAND); no structured events",
		New: func(ctx context.Context, sink providers.Sink) providers.Provider {
			return New(ctx, sink, ConfigFromEnv(name))
		}}
}

// writeTimeout bounds one write of a turn's or a steer's text to the PTY.
const writeTimeout = 10 * time.Second

// New returns the provider: one PTY per nexus thread.
func New(ctx context.Context, sink providers.Sink, cfg Config) providers.Provider {
	if cfg.Idle <= 0 {
		cfg.Idle = 800 * time.Millisecond
	}
	if cfg.Settings == (agentproc.Settings{}) {
		cfg.Settings = agentproc.DefaultSettings
	}
	return provider{agentproc.NewRuntime(ctx, sink, Caps, func(thread string, out *agentproc.Emitter) agentproc.Session {
		return &session{ctx: ctx, cfg: cfg, thread: thread, out: out}
	})}
}

// provider is the runtime plus the live terminals of its threads.
type provider struct{ *agentproc.Runtime }

// Terminal implements providers.Terminals.
func (p provider) Terminal(thread string) (providers.Terminal, bool) {
	s, _ := p.Session(thread).(*session)
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.term == nil {
		return nil, false
	}
	return s.term, true
}

type session struct {
	ctx    context.Context // the provider's: ends when the host closes
	cfg    Config
	thread string
	out    *agentproc.Emitter

	mu        sync.Mutex
	cmd       *exec.Cmd
	tty       *ptyterm.Term // the process's PTY, until it is reaped
	term      *ptyterm.Term // tty while it is live; nil when no process runs or it is exiting
	done      chan struct{}
	stopping  bool
	turn      *agentproc.Turn
	interrupt bool
	last      string // the output's last line so far
	idle      *time.Timer
	n         int
}

// Handle implements agentproc.Session.
func (s *session) Handle(e core.Effect) {
	switch e.Kind {
	case core.EffStartTurn:
		s.startTurn(e)
	case core.EffSteer:
		if err := s.write(e.Text + "\r"); err != nil {
			s.out.Done(e, core.EffFailed, err.Error())
			return
		}
		s.out.Done(e, core.EffCompleted, "")
	case core.EffInterrupt:
		s.mu.Lock()
		s.interrupt = true
		t := s.turn
		s.mu.Unlock()
		_ = s.write("\x03")
		// A Ctrl-C typed while the shell hands the terminal to a new
		// job can reach the shell instead of the job: if no prompt comes
		// back soon, signal the terminal's foreground group directly.
		time.AfterFunc(time.Second, func() {
			if t != nil && !t.Ended() {
				s.signalForeground(syscall.SIGINT)
			}
		})
		s.out.Done(e, core.EffCompleted, "")
	case core.EffAnswer:
		s.out.Done(e, core.EffMissed, "a shell raises no requests")
	}
}

// signalForeground signals the PTY's foreground process group.
func (s *session) signalForeground(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty == nil {
		return
	}
	if pg := s.tty.Foreground(); pg > 0 {
		_ = syscall.Kill(-pg, sig)
	}
}

func (s *session) write(text string) error {
	s.mu.Lock()
	t := s.term
	s.mu.Unlock()
	if t == nil {
		return errors.New("the shell is not running")
	}
	// A shell whose foreground job reads nothing fills the PTY's input
	// buffer; the write then waits, but never past the host's close or
	// writeTimeout.
	ctx, cancel := context.WithTimeout(s.ctx, writeTimeout)
	defer cancel()
	if err := t.Send(ctx, []byte(text)); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("the shell did not read its input within %s", writeTimeout)
		}
		return err
	}
	return nil
}

func (s *session) startTurn(e core.Effect) {
	turn := agentproc.NewTurn(e, s.out, s.cfg.Name, s.cfg.Settings.Silence)
	s.mu.Lock()
	if s.turn != nil && !s.turn.Ended() {
		s.turn.End(core.AttemptFailed, "superseded")
	}
	running := s.cmd != nil
	s.turn, s.interrupt = turn, false
	s.n++
	s.mu.Unlock()
	if !running {
		if err := s.spawn(e); err != nil {
			turn.End(core.AttemptFailed, err.Error())
			s.out.Ended(e.Thread, e.Run, err.Error(), true)
			return
		}
	}
	turn.Obs(core.Observation{Kind: core.ObsTurnStarted})
	if err := s.write(e.Turn.Text + "\r"); err != nil {
		turn.End(core.AttemptFailed, err.Error())
	}
}

func (s *session) spawn(e core.Effect) error {
	if len(s.cfg.Command) == 0 {
		return fmt.Errorf("%s: no command configured", s.cfg.Name)
	}
	path, err := exec.LookPath(s.cfg.Command[0])
	if err != nil {
		return fmt.Errorf("%s: %q is not on PATH", s.cfg.Name, s.cfg.Command[0])
	}
	cmd := exec.Command(path, s.cfg.Command[1:]...)
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color"), s.cfg.Env...)
	if e.Turn != nil {
		cmd.Dir = e.Turn.Workspace
	}
	t, err := ptyterm.Start(cmd)
	if err != nil {
		return fmt.Errorf("%s: cannot start %s in a PTY: %w", s.cfg.Name, path, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.tty, s.term, s.done, s.stopping, s.last = cmd, t, t, done, false, ""
	s.mu.Unlock()
	s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, SessionState: core.SessRunning,
		Text: fmt.Sprintf("%s started in a PTY (pid %d)", s.cfg.Name, cmd.Process.Pid)})
	go s.read(cmd, t, done)
	return nil
}

// read streams the PTY's output raw to its terminal and as text of the
// current turn, ANSI sequences stripped, and ends the turn when the
// output goes idle on a prompt-like line.
func (s *session) read(cmd *exec.Cmd, tm *ptyterm.Term, done chan struct{}) {
	var text ptyterm.Text
	tm.Pump(func(raw []byte) { s.output(text.Next(raw)) })
	// The thread stops offering the terminal before its feeds end, so a
	// pane that sees the end and attaches again hears ErrNoTerminal.
	s.mu.Lock()
	s.term = nil
	s.mu.Unlock()
	tm.Exit()
	werr := cmd.Wait()
	s.mu.Lock()
	tm.Close()
	close(done)
	t, stopping := s.turn, s.stopping
	s.cmd, s.tty = nil, nil
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	if stopping {
		return
	}
	reason := fmt.Sprintf("%s exited", s.cfg.Name)
	failed := werr != nil
	if werr != nil {
		reason += ": " + werr.Error()
	}
	run := ""
	if t != nil {
		run = t.E.Run
		s.flush(t)
		if failed {
			t.End(core.AttemptFailed, reason)
		} else {
			t.End(core.AttemptCompleted, "")
		}
	}
	s.out.Ended(s.thread, run, reason, failed)
}

func (s *session) key(t *agentproc.Turn) string { return "pty:" + t.E.Attempt }

// output takes the next piece of a turn's text (see plain).
func (s *session) output(text string) {
	s.mu.Lock()
	t := s.turn
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		s.last = text[i+1:]
	} else {
		s.last += text
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(s.cfg.Idle, s.idleCheck)
	} else {
		s.idle.Reset(s.cfg.Idle) // not a new timer per read: this is the PTY reader's path
	}
	s.mu.Unlock()
	if t != nil && text != "" {
		t.Obs(core.Observation{Kind: core.ObsText, Key: s.key(t), Text: text})
	}
}

// idleCheck ends the turn when the last line looks like a prompt: the
// command finished, or a program asks something. A prompt that is not the
// shell's own is reported as needing input.
func (s *session) idleCheck() {
	s.mu.Lock()
	t, last, interrupted := s.turn, s.last, s.interrupt
	s.mu.Unlock()
	if t == nil || t.Ended() || !promptRE.MatchString(last) {
		return
	}
	s.flush(t)
	if !interrupted && !looksLikeShellPrompt(last) {
		t.Obs(core.Observation{Kind: core.ObsWarning, Text: fmt.Sprintf(
			"%s"+core.GuessedInputNote+"%q; send the answer as the next message", s.cfg.Name, strings.TrimSpace(last))})
	}
	if interrupted {
		t.End(core.AttemptInterrupted, "interrupted (Ctrl-C)")
		return
	}
	t.End(core.AttemptCompleted, "")
}

func looksLikeShellPrompt(line string) bool {
	l := strings.TrimRight(line, " ")
	return strings.HasSuffix(l, "$") || strings.HasSuffix(l, "#") || strings.HasSuffix(l, "%") || strings.HasSuffix(l, ">")
}

func (s *session) flush(t *agentproc.Turn) {
	t.Obs(core.Observation{Kind: core.ObsText, Key: s.key(t), Final: true})
}

// Stop implements agentproc.Session: Ctrl-D and SIGHUP first, then the
// agentproc escalation on the process group.
func (s *session) Stop(reason string) {
	s.mu.Lock()
	cmd, tty, tm, done, t := s.cmd, s.tty, s.term, s.done, s.turn
	s.stopping = true
	s.mu.Unlock()
	if cmd != nil {
		// The shell's jobs run in process groups of their own: signal the
		// terminal's foreground group too, or a job keeps the terminal
		// (and this stop) alive after the shell is gone.
		pg := cmd.Process.Pid
		groups := []int{pg}
		if fg := tty.Foreground(); fg > 0 && fg != pg {
			groups = append(groups, fg)
		}
		signal := func(sig syscall.Signal) {
			for _, g := range groups {
				_ = syscall.Kill(-g, sig)
			}
		}
		if tm != nil { // nil once the process is exiting
			ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Settings.Grace)
			_ = tm.Send(ctx, []byte("\x04")) // bounded: the child may read nothing
			cancel()
		}
		signal(syscall.SIGHUP)
		if !waitFor(done, s.cfg.Settings.Grace) {
			signal(syscall.SIGTERM)
			if !waitFor(done, s.cfg.Settings.Term) {
				signal(syscall.SIGKILL)
				// A background job that ignores the hangup can still hold
				// the terminal: report the stop anyway.
				waitFor(done, s.cfg.Settings.Term)
			}
		}
		signal(syscall.SIGKILL)
	}
	if t != nil {
		t.End(core.AttemptInterrupted, reason)
	}
	s.out.Post(core.Observation{Kind: core.ObsSessionState, Thread: s.thread, SessionState: core.SessStopped, Text: reason})
}

func waitFor(ch chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}
