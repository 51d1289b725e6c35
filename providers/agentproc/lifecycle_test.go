package agentproc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

const wait = 10 * time.Second

// toy is the smallest adapter: a protocol of one JSON object a line. The
// handshake is {"method":"initialize"}, answered {"answer":""} (or the
// refusal as the answer); a turn is {"prompt":text}; the agent streams
// {"text":...} and ends the turn with {"done":true}; Cancel sends
// {"method":"cancel"}. Anything that is not a JSON object is garbage.
type toy struct {
	*agentproc.Lifecycle
	spec agentproc.Spec
	// outlive makes Connect return only once the process it started has
	// ended and its end was reported: the agent dies between the
	// handshake and the turn.
	outlive bool

	mu  sync.Mutex
	ans chan string // the handshake's answer; closed when the process ends
}

func (s *toy) Start(t *agentproc.Turn, history bool) {
	if !s.Begin(t) {
		return
	}
	t.Obs(core.Observation{Kind: core.ObsTurnStarted, Text: fmt.Sprintf("history %v", history)})
	if p, _ := s.Proc(); p != nil {
		b, _ := json.Marshal(map[string]string{"prompt": t.E.Turn.Text})
		_ = p.WriteLine(b)
	}
}

func (s *toy) Apply(core.Effect) {}

func (s *toy) Connect(core.Effect, *agentproc.Turn) (bool, error) {
	if err := s.Spawn(s.spec); err != nil || !s.outlive {
		return false, err
	}
	_, gone := s.Proc()
	<-gone
	return false, nil
}

func (s *toy) Attach(p *agentproc.Proc) agentproc.Conn {
	ans := make(chan string, 1)
	s.mu.Lock()
	s.ans = ans
	s.mu.Unlock()
	return agentproc.Conn{Handshake: func(ctx context.Context) error { return handshake(ctx, p, ans) },
		Line: func(b []byte) bool { return s.line(ans, b) }}
}

func (s *toy) line(ans chan string, b []byte) bool {
	var m struct {
		Answer *string `json:"answer"`
		Text   string  `json:"text"`
		Done   bool    `json:"done"`
	}
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return false
	}
	t := s.Turn()
	switch {
	case m.Answer != nil:
		select {
		case ans <- *m.Answer:
		default:
		}
	case m.Text != "" && t != nil:
		t.Obs(core.Observation{Kind: core.ObsText, Key: "m", Text: m.Text})
	case m.Done && t != nil:
		t.End(core.AttemptCompleted, "")
	}
	return true
}

func handshake(ctx context.Context, p *agentproc.Proc, ans <-chan string) error {
	if err := p.WriteLine([]byte(`{"method":"initialize"}`)); err != nil {
		return err
	}
	select {
	case a, ok := <-ans:
		if !ok {
			return agentproc.ErrExited
		}
		if a != "" {
			return errors.New(a)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *toy) Cancel() {
	if p, _ := s.Proc(); p != nil {
		_ = p.WriteLine([]byte(`{"method":"cancel"}`))
	}
}

func (s *toy) Detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ans != nil {
		close(s.ans)
		s.ans = nil
	}
}

// start runs the toy adapter on the scripted agent playing script (the
// steps, one a line); it returns the provider, the recorder and the
// agent's log.
func start(t *testing.T, script string, set agentproc.Settings) (providers.Provider, *agenttest.Sink, string) {
	t.Helper()
	return startToy(t, script, set, false)
}

func startToy(t *testing.T, script string, set agentproc.Settings, outlive bool) (providers.Provider, *agenttest.Sink, string) {
	t.Helper()
	dir := t.TempDir()
	path, log := filepath.Join(dir, "script.txt"), filepath.Join(dir, "agent.log")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if set == (agentproc.Settings{}) {
		set = agentproc.Settings{Handshake: 5 * time.Second, Grace: 2 * time.Second, Term: 2 * time.Second}
	}
	spec := agentproc.Spec{Name: "toy", Path: agenttest.Scripted(t), Args: []string{path}, Env: []string{"SCRIPTED_LOG=" + log}}
	sink := agenttest.NewSink()
	p := agentproc.NewRuntime(context.Background(), sink, core.Capabilities{}, func(thread string, out *agentproc.Emitter) agentproc.Session {
		s := &toy{spec: spec, outlive: outlive}
		s.Lifecycle = agentproc.NewLifecycle(agentproc.Agent{Name: "toy", Thread: thread, Settings: set,
			Format: "toy-json", Expected: "toy JSON", Ask: "is it really a toy?"}, out, s)
		return s
	})
	t.Cleanup(p.Close)
	return p, sink, log
}

const initialize = `expect {"method":"initialize"}
send {"answer":""}
`

func turn(run, text string) core.Effect {
	e := agenttest.StartTurn("t1", "toy", text)
	e.Run, e.Attempt, e.Key = "t1/"+run, "t1/"+run+"/a1", "t1/"+run+"/a1:turn"
	return e
}

func ended(attempt string) func(core.Observation) bool {
	return func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Attempt == attempt }
}

// A turn runs on a process started for it; the next one reuses the live
// process, which holds the history, and supersedes a turn the kernel gave
// up on; stop_session sends the protocol's cancel to a running turn.
func TestTurnsShareTheProcessUntilStopped(t *testing.T) {
	p, sink, log := start(t, initialize+`expect {"prompt":"one"}
send {"text":"hello"}
expect {"prompt":"two"}
send {"done":true}
expect {"prompt":"three"}
expect {"method":"cancel"}
eof
`, agentproc.Settings{})
	p.Handle(turn("1", "one"))
	run := sink.Wait(t, wait, "RUNNING", agenttest.Kind(core.ObsSessionState, core.SessRunning))
	if !strings.HasPrefix(run.Text, "toy started (pid ") {
		t.Errorf("RUNNING says %q", run.Text)
	}
	sink.Wait(t, wait, "the text", func(o core.Observation) bool { return o.Kind == core.ObsText && o.Text == "hello" })
	p.Handle(turn("2", "two"))
	if end := sink.Wait(t, wait, "turn 1 superseded", ended("t1/1/a1")); end.TurnStatus != core.AttemptFailed || end.Error != "superseded" {
		t.Errorf("turn 1 ended %+v", end)
	}
	started := sink.Wait(t, wait, "turn 2 started", func(o core.Observation) bool {
		return o.Kind == core.ObsTurnStarted && o.Attempt == "t1/2/a1"
	})
	if started.Text != "history true" {
		t.Errorf("turn 2 on the live process: %s, want history true", started.Text)
	}
	if end := sink.Wait(t, wait, "turn 2 done", ended("t1/2/a1")); end.TurnStatus != core.AttemptCompleted {
		t.Errorf("turn 2 ended %+v", end)
	}
	p.Handle(turn("3", "three"))
	sink.Wait(t, wait, "turn 3 started", func(o core.Observation) bool {
		return o.Kind == core.ObsTurnStarted && o.Attempt == "t1/3/a1"
	})
	p.Handle(core.Effect{Kind: core.EffStopSession, Thread: "t1", Text: "enough"})
	stopped := sink.Wait(t, wait, "STOPPED", agenttest.Kind(core.ObsSessionState, core.SessStopped))
	if stopped.Text != "stopped: enough" {
		t.Errorf("STOPPED says %q", stopped.Text)
	}
	if end := sink.Wait(t, wait, "turn 3 interrupted", ended("t1/3/a1")); end.TurnStatus != core.AttemptInterrupted {
		t.Errorf("turn 3 ended %+v", end)
	}
	running := 0
	for _, o := range sink.All() {
		if o.Kind == core.ObsSessionState && o.SessionState == core.SessRunning {
			running++
		}
	}
	if running != 1 {
		t.Errorf("%d processes started for three turns, want 1:\n%s", running, sink.Dump())
	}
	agenttest.Log(t, log)
}

// TestStartFailures: each agent that never comes up fails its turn and
// the session at once, within the handshake deadline, saying why.
func TestStartFailures(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"garbage", "raw Welcome to toy 1.0\nhang\n",
			[]string{`toy wrote something that is not toy JSON before the handshake: "Welcome to toy 1.0"; is it really a toy?`}},
		{"exit", "stderr Error: invalid API key\nexit 3\n",
			[]string{"toy exited with status 3: Error: invalid API key before answering initialize"}},
		{"hang", "stderr first line\nstderr second line\nhang\n",
			[]string{"toy did not answer initialize within 1s; its stderr ends: first line | second line"}},
		{"refusal", "expect {\"method\":\"initialize\"}\nsend {\"answer\":\"unsupported version\"}\nhang\n",
			[]string{"toy refused initialize: unsupported version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, sink, _ := start(t, tc.script, agentproc.Settings{Handshake: time.Second, Grace: time.Second, Term: time.Second})
			begun := time.Now()
			p.Handle(turn("1", "hi"))
			end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
			if end.TurnStatus != core.AttemptFailed {
				t.Fatalf("turn ended %+v", end)
			}
			for _, w := range tc.want {
				if !strings.Contains(end.Error, w) {
					t.Errorf("error %q does not say %q", end.Error, w)
				}
			}
			failed := sink.Wait(t, wait, "FAILED", agenttest.Kind(core.ObsSessionState, core.SessFailed))
			if failed.Text != end.Error {
				t.Errorf("FAILED says %q, the turn %q", failed.Text, end.Error)
			}
			if d := time.Since(begun); d > 5*time.Second {
				t.Errorf("it took %s to report the failure", d)
			}
		})
	}
}

func TestMissingCommand(t *testing.T) {
	for _, tc := range []struct {
		spec agentproc.Spec
		want string
	}{
		{agentproc.Spec{Name: "toy", Path: "toy-not-installed-here", Install: "install the toy"},
			`toy: "toy-not-installed-here" is not on PATH; install the toy`},
		{agentproc.Spec{Name: "toy"}, "toy: no command configured"},
	} {
		out := agentproc.NewEmitter(context.Background(), agentproc.NopSink{})
		s := &toy{}
		s.Lifecycle = agentproc.NewLifecycle(agentproc.Agent{Name: "toy", Settings: agentproc.DefaultSettings}, out, s)
		err := s.Check(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%+v) = %v, want %q", tc.spec, err, tc.want)
		}
		if errors.Is(err, agentproc.ErrNotFound) != (tc.spec.Path != "") {
			t.Errorf("Check(%+v) = %v: ErrNotFound only for a command missing from PATH", tc.spec, err)
		}
	}
}

// The garbage-line policy past the handshake: the first three lines in a
// row are warned about, a line of the protocol resets the count, and the
// fiftieth in a row ends the turn and stops the process, which the
// session reports FAILED.
func TestGarbageAfterTheHandshake(t *testing.T) {
	var script strings.Builder
	script.WriteString(initialize + "expect {\"prompt\":\"hi\"}\nraw noise a\nraw noise b\nsend {\"text\":\"still here\"}\n")
	for i := 1; i <= agentproc.MaxGarbage; i++ {
		fmt.Fprintf(&script, "raw noise %d\n", i)
	}
	script.WriteString("hang\n")
	p, sink, _ := start(t, script.String(), agentproc.Settings{})
	p.Handle(turn("1", "hi"))
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	want := `toy wrote 50 lines in a row that are not toy-json; stopping it (last: "noise 50")`
	if end.TurnStatus != core.AttemptFailed || end.Error != want {
		t.Errorf("turn ended %+v, want failed: %s", end, want)
	}
	sink.Wait(t, wait, "FAILED", agenttest.Kind(core.ObsSessionState, core.SessFailed))
	var warned []string
	for _, o := range sink.All() {
		if o.Kind == core.ObsWarning {
			warned = append(warned, o.Text)
		}
	}
	wantWarned := []string{`toy wrote a line that is not toy-json (ignored): "noise a"`,
		`toy wrote a line that is not toy-json (ignored): "noise b"`,
		`toy wrote a line that is not toy-json (ignored): "noise 1"`,
		`toy wrote a line that is not toy-json (ignored): "noise 2"`,
		`toy wrote a line that is not toy-json (ignored): "noise 3"`}
	if strings.Join(warned, "\n") != strings.Join(wantWarned, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warned, "\n"), strings.Join(wantWarned, "\n"))
	}
}

// An agent that dies mid-turn fails the turn and the session with its
// exit status and stderr; the next turn starts a new process.
func TestDeathMidTurn(t *testing.T) {
	p, sink, _ := start(t, initialize+"expect {\"prompt\":\"hi\"}\nstderr panic: out of cheese\nexit 7\n", agentproc.Settings{})
	p.Handle(turn("1", "hi"))
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptFailed || end.Error != "toy exited with status 7: panic: out of cheese" {
		t.Errorf("turn ended %+v", end)
	}
	failed := sink.Wait(t, wait, "FAILED", agenttest.Kind(core.ObsSessionState, core.SessFailed))
	if failed.Run != "t1/1" || failed.Text != end.Error {
		t.Errorf("FAILED = %+v", failed)
	}
	p.Handle(turn("2", "again"))
	sink.Wait(t, wait, "turn 2 started on a new process", func(o core.Observation) bool {
		return o.Kind == core.ObsTurnStarted && o.Attempt == "t1/2/a1" && o.Text == "history false"
	})
}

// Stop escalates: an agent that ignores the cancel, the end of stdin and
// SIGTERM is killed once Grace and Term have passed.
func TestStopKillsAStubbornAgent(t *testing.T) {
	p, sink, log := start(t, initialize+"ignore-term\nexpect {\"prompt\":\"hi\"}\nexpect {\"method\":\"cancel\"}\nsleep 60s\n",
		agentproc.Settings{Handshake: 5 * time.Second, Grace: 300 * time.Millisecond, Term: 300 * time.Millisecond})
	p.Handle(turn("1", "hi"))
	sink.Wait(t, wait, "the turn started", agenttest.Kind(core.ObsTurnStarted))
	begun := time.Now()
	p.Handle(core.Effect{Kind: core.EffStopSession, Thread: "t1"})
	sink.Wait(t, wait, "STOPPED", agenttest.Kind(core.ObsSessionState, core.SessStopped))
	if d := time.Since(begun); d < 600*time.Millisecond || d > 3*time.Second {
		t.Errorf("stop took %s; Grace and Term are 300ms each", d)
	}
	if end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded)); end.TurnStatus != core.AttemptInterrupted {
		t.Errorf("turn ended %+v", end)
	}
	for _, o := range sink.All() {
		if o.Kind == core.ObsSessionState && o.SessionState == core.SessFailed {
			t.Errorf("a stop asked for was reported as a failure: %+v", o)
		}
	}
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), `recv {"method":"cancel"}`) {
		t.Errorf("the agent was not sent the cancel:\n%s", b)
	}
}

// An agent that dies after the handshake, before the turn is sent to it:
// the turn fails with the reason the session was reported FAILED with.
func TestDeathBeforeTheTurnBegins(t *testing.T) {
	p, sink, _ := startToy(t, initialize+"sleep 300ms\nstderr bye\nexit 4\n", agentproc.Settings{}, true)
	p.Handle(turn("1", "hi"))
	failed := sink.Wait(t, wait, "FAILED", agenttest.Kind(core.ObsSessionState, core.SessFailed))
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptFailed || end.Error != "toy exited with status 4: bye" || failed.Text != end.Error {
		t.Errorf("turn ended %+v after FAILED %q", end, failed.Text)
	}
	for _, o := range sink.All() {
		if o.Kind == core.ObsTurnStarted {
			t.Errorf("the turn was started on a process that had ended: %+v", o)
		}
	}
}

// An agent that exits as it answers the handshake: whatever the
// lifecycle sees first (the answer, the end, or both before the turn
// begins), the turn fails with the exit status and the session is
// reported FAILED; it never hangs.
func TestExitAsItAnswers(t *testing.T) {
	for i := 0; i < 5; i++ {
		p, sink, _ := start(t, initialize+"stderr bye\nexit 4\n", agentproc.Settings{})
		p.Handle(turn("1", "hi"))
		end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
		if end.TurnStatus != core.AttemptFailed || !strings.HasPrefix(end.Error, "toy exited with status 4: bye") {
			t.Errorf("turn ended %+v", end)
		}
		sink.Wait(t, wait, "FAILED", agenttest.Kind(core.ObsSessionState, core.SessFailed))
	}
}
