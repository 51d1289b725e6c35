package agenttest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// Fake is the scripted agent set up to play one script for an adapter:
// what the adapter's Config needs to start it.
type Fake struct {
	// Command runs the scripted agent on the script; Env makes it log
	// every frame it reads (see Log).
	Command, Env []string
	// Settings are the deadlines the test asked for, or short ones.
	Settings agentproc.Settings
	// Sink records what the adapter reports.
	Sink *Sink
}

// Start sets the scripted agent up to play script (a path under
// testdata/agents) and starts the provider newProvider builds on it, for
// thread t1; the provider is closed when the test ends. It returns the
// provider, its recorder and the agent's log (see Log). Zero settings
// mean a 5 s handshake and 2 s stop stages.
func Start(t testing.TB, script string, set agentproc.Settings, newProvider func(ctx context.Context, f Fake) providers.Provider) (providers.Provider, *Sink, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "agent.log")
	if set == (agentproc.Settings{}) {
		set = agentproc.Settings{Handshake: 5 * time.Second, Grace: 2 * time.Second, Term: 2 * time.Second}
	}
	f := Fake{Command: []string{Scripted(t), Script(script)}, Env: []string{"SCRIPTED_LOG=" + log}, Settings: set,
		Sink: NewSink()}
	p := newProvider(context.Background(), f)
	t.Cleanup(p.Close)
	return p, f.Sink, log
}

// Stop stops thread t1's session, waits for STOPPED and checks that the
// scripted agent played its whole script.
func Stop(t testing.TB, p providers.Provider, sink *Sink, log string) string {
	t.Helper()
	p.Handle(core.Effect{Kind: core.EffStopSession, Thread: "t1"})
	sink.Wait(t, 10*time.Second, "STOPPED", Kind(core.ObsSessionState, core.SessStopped))
	return Log(t, log)
}

// FailClearly plays an adapter's four broken agents (start plays a
// script, as the adapter's tests do with Start) with 1 s deadlines, for a
// first turn of thread t1 on provider, and checks that each turn fails
// within 5 s saying why, and the session ends FAILED. The scripts are
// garbage.txt (not the protocol before the handshake: the error says
// garbage), exit.txt (exits with status 3 and "invalid API key" on
// stderr), hang.txt (never answers) and die.txt (dies mid-turn with
// status 7, "out of cheese").
func FailClearly(t *testing.T, provider string, start func(t *testing.T, script string, set agentproc.Settings) (providers.Provider, *Sink, string),
	garbage ...string) {
	t.Helper()
	for _, tc := range []struct {
		script string
		says   []string
	}{
		{"garbage.txt", garbage},
		{"exit.txt", []string{"exited with status 3", "invalid API key", "before answering initialize"}},
		{"hang.txt", []string{"did not answer initialize within 1s"}},
		{"die.txt", []string{"exited with status 7", "out of cheese"}},
	} {
		t.Run(tc.script, func(t *testing.T) {
			p, sink, _ := start(t, tc.script, agentproc.Settings{Handshake: time.Second, Grace: time.Second, Term: time.Second})
			begun := time.Now()
			p.Handle(StartTurn("t1", provider, "hi"))
			end := sink.Wait(t, 10*time.Second, "the end of the turn", Kind(core.ObsTurnEnded))
			if end.TurnStatus != core.AttemptFailed {
				t.Fatalf("turn ended %+v", end)
			}
			for _, w := range tc.says {
				if !strings.Contains(end.Error, w) {
					t.Errorf("error %q does not say %q", end.Error, w)
				}
			}
			sink.Wait(t, 10*time.Second, "FAILED", Kind(core.ObsSessionState, core.SessFailed))
			if d := time.Since(begun); d > 5*time.Second {
				t.Errorf("it took %s to report the failure", d)
			}
		})
	}
}
