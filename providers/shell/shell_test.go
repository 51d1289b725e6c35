package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

func turn(n, text string) core.Effect {
	e := agenttest.StartTurn("t1", "shell", text)
	e.Run, e.Attempt = "t1/"+n, "t1/"+n+"/a1"
	return e
}

func ended(sink *agenttest.Sink, t *testing.T, run string) core.Observation {
	return sink.Wait(t, 10*time.Second, "the end of "+run, func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == run })
}

// TestShellTurnsNeedsInputInterrupt: a command's output is the turn's
// text; a program's question ends the turn with a needs-input warning and
// the next message answers it; Ctrl-C interrupts.
func TestShellTurnsNeedsInputInterrupt(t *testing.T) {
	sink := agenttest.NewSink()
	p := New(context.Background(), sink, Config{Name: "shell", Command: []string{"bash", "--norc", "--noprofile", "-i"},
		Env: []string{"PS1=$ "}, Idle: 300 * time.Millisecond,
		Settings: agentproc.Settings{Handshake: time.Second, Grace: time.Second, Term: time.Second}})
	defer p.Close()

	p.Handle(turn("1", "echo hel''lo"))
	if e := ended(sink, t, "t1/1"); e.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn 1 = %+v", e)
	}
	if out := sink.Text("pty:t1/1/a1"); !strings.Contains(out, "\nhello\n") {
		t.Fatalf("output = %q", out)
	}

	p.Handle(turn("2", "read -p 'Your name? ' x; echo hi $x"))
	ended(sink, t, "t1/2")
	w := sink.Wait(t, time.Second, "needs input", func(o core.Observation) bool { return o.Kind == core.ObsWarning && o.Run == "t1/2" })
	if !strings.Contains(w.Text, "waits for input") || !strings.Contains(w.Text, "Your name?") {
		t.Fatalf("warning = %q", w.Text)
	}
	p.Handle(turn("3", "bob"))
	ended(sink, t, "t1/3")
	if out := sink.Text("pty:t1/3/a1"); !strings.Contains(out, "hi bob") {
		t.Fatalf("answer output = %q", out)
	}

	p.Handle(turn("4", "sleep 30"))
	sink.Wait(t, 5*time.Second, "the command echoed", func(o core.Observation) bool { return o.Run == "t1/4" && strings.Contains(o.Text, "sleep 30") })
	p.Handle(core.Effect{Kind: core.EffInterrupt, Thread: "t1", Run: "t1/4", Attempt: "t1/4/a1"})
	if e := ended(sink, t, "t1/4"); e.TurnStatus != core.AttemptInterrupted {
		t.Fatalf("turn 4 = %+v", e)
	}
	p.Handle(core.Effect{Kind: core.EffStopSession, Thread: "t1"})
	sink.Wait(t, 5*time.Second, "STOPPED", agenttest.Kind(core.ObsSessionState, core.SessStopped))
}
