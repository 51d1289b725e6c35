package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Root is the repository root, found from this file's path.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// fakeAgent builds a fake agent under testdata/agents once per test
// binary.
type fakeAgent struct {
	name string
	once sync.Once
	bin  string
	err  error
}

func (f *fakeAgent) build(t testing.TB) string {
	t.Helper()
	f.once.Do(func() {
		dir, err := os.MkdirTemp("", "nexus-"+f.name+"-")
		if err != nil {
			f.err = err
			return
		}
		f.bin = filepath.Join(dir, f.name)
		out, err := exec.Command("go", "build", "-o", f.bin, filepath.Join(Root(), "testdata", "agents", f.name)).CombinedOutput()
		if err != nil {
			f.err = fmt.Errorf("building the %s fake agent: %v\n%s", f.name, err, out)
		}
	})
	if f.err != nil {
		t.Fatal(f.err)
	}
	return f.bin
}

var scripted = &fakeAgent{name: "scripted"}

// Scripted builds the scripted fake agent once per test binary and
// returns its path.
func Scripted(t testing.TB) string {
	t.Helper()
	return scripted.build(t)
}

// Script returns the path of a transcript under testdata/agents.
func Script(name string) string { return filepath.Join(Root(), "testdata", "agents", name) }

// Sink records observations; it also answers State with the native refs
// in Refs, as the Runner would from the journal.
type Sink struct {
	mu   sync.Mutex
	obs  []core.Observation
	wake chan struct{}
	Refs map[string]string // thread/provider -> native ref
}

// NewSink returns an empty recorder.
func NewSink() *Sink { return &Sink{wake: make(chan struct{}, 1), Refs: map[string]string{}} }

// Observe implements providers.Sink.
func (s *Sink) Observe(_ context.Context, o core.Observation) error {
	s.mu.Lock()
	s.obs = append(s.obs, o)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// Record implements providers.Sink.
func (s *Sink) Record(ctx context.Context, o core.Observation) error { return s.Observe(ctx, o) }

// State answers the native refs, as the Runner's projection would.
func (s *Sink) State(context.Context) (*core.State, error) {
	st := core.NewState()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.Refs {
		th, prov, _ := strings.Cut(k, "/")
		st.ProviderThreads[k] = &core.ProviderThread{ID: k, Thread: th, Provider: prov, NativeRef: v, Available: true}
	}
	return st, nil
}

// All returns a copy of what was observed.
func (s *Sink) All() []core.Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]core.Observation(nil), s.obs...)
}

// Wait returns the first observation matching pred, failing the test
// after d.
func (s *Sink) Wait(t testing.TB, d time.Duration, what string, pred func(core.Observation) bool) core.Observation {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		for _, o := range s.All() {
			if pred(o) {
				return o
			}
		}
		select {
		case <-s.wake:
		case <-time.After(20 * time.Millisecond):
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s; observed:\n%s", d, what, s.Dump())
		}
	}
}

// Kind matches an observation kind and, when given, its status: a
// core.SessionState, core.EffectStatus, core.AttemptStatus (a turn's end)
// or core.NodeStatus, whichever its kind reports.
func Kind(kind core.ObsKind, status ...any) func(core.Observation) bool {
	return func(o core.Observation) bool {
		return o.Kind == kind && (len(status) == 0 || statusOf(o) == fmt.Sprint(status[0]))
	}
}

// statusOf is the status an observation reports, in the field its kind
// keeps it in.
func statusOf(o core.Observation) string {
	switch o.Kind {
	case core.ObsSessionState:
		return string(o.SessionState)
	case core.ObsEffectDone, core.ObsStepDone, core.ObsRestored:
		return string(o.EffectStatus)
	case core.ObsTurnEnded:
		return string(o.TurnStatus)
	case core.ObsNode:
		return string(o.NodeStatus)
	case core.ObsCheckpoint:
		return string(o.CheckpointStatus)
	}
	return ""
}

// Dump lists the observations, one JSON per line.
func (s *Sink) Dump() string {
	var b strings.Builder
	for _, o := range s.All() {
		o.At = 0
		j, _ := json.Marshal(o)
		b.Write(j)
		b.WriteString("\n")
	}
	return b.String()
}

// Text joins the text deltas of a node key.
func (s *Sink) Text(key string) string {
	var b strings.Builder
	for _, o := range s.All() {
		if o.Kind == core.ObsText && o.Key == key {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// Log reads the scripted agent's log and fails unless the script ran to
// its end ("ok") with no failure.
func Log(t testing.TB, path string) string {
	t.Helper()
	var b []byte
	for i := 0; i < 100; i++ {
		b, _ = os.ReadFile(path)
		if strings.Contains(string(b), "\nok") || strings.Contains(string(b), "FAIL") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Contains(string(b), "FAIL") || !strings.Contains(string(b), "\nok") {
		t.Fatalf("the scripted agent did not complete its script:\n%s", b)
	}
	return string(b)
}

// StartTurn is a start_turn effect for a thread's first run.
func StartTurn(thread, provider, text string) core.Effect {
	return core.Effect{Key: thread + "/1/a1:turn", Kind: core.EffStartTurn, Thread: thread, Run: thread + "/1",
		Attempt: thread + "/1/a1", Provider: provider, Turn: &core.Turn{Messages: []core.Message{{Role: "user", Text: text}},
			Text: text, Instruction: text, Reason: core.ReasonInitial, UserMessages: 1}}
}
