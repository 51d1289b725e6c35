package claude

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

const wait = 10 * time.Second

// fake starts the adapter on the scripted agent playing a transcript; it
// returns the provider, the recorder and the agent's log path.
func fake(t *testing.T, script string, set agentproc.Settings) (providers.Provider, *agenttest.Sink, string) {
	t.Helper()
	return agenttest.Start(t, "claude/"+script, set, func(ctx context.Context, f agenttest.Fake) providers.Provider {
		return New(ctx, f.Sink, Config{Name: "claude", Command: f.Command, Env: f.Env, Settings: f.Settings})
	})
}

func TestTurnApprovalQuestionTodosUsage(t *testing.T) {
	p, sink, log := fake(t, "turn.txt", agentproc.Settings{})
	p.Handle(agenttest.StartTurn("t1", "claude", "hello"))
	req := sink.Wait(t, wait, "the approval", agenttest.Kind(core.ObsRequest))
	if req.Key != "perm1" || req.RequestKind != core.RequestApproval || req.Action != "command" ||
		req.Prompt != "Allow Bash: touch x? (make x)" || req.Parent != "tu1" {
		t.Fatalf("approval request = %+v", req)
	}
	p.Handle(core.Effect{Key: "R1:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{ID: "R1", Key: "perm1", Kind: core.RequestApproval, Response: core.RespAllow}})
	q := sink.Wait(t, wait, "the question", func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Key == "ask1" })
	if q.RequestKind != core.RequestUserInput || q.Prompt != "Which color? [red / blue]" {
		t.Fatalf("question = %+v", q)
	}
	p.Handle(core.Effect{Key: "R2:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{ID: "R2", Key: "ask1", Kind: core.RequestUserInput, Response: core.RespAnswer, Answer: "blue"}})
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	if got := sink.Text("m1/0"); got != "Hello" {
		t.Errorf("streamed text = %q, want Hello (the whole assistant message must not be added twice)", got)
	}
	if got := sink.Text("m4/t0"); got != "All done." {
		t.Errorf("unstreamed text = %q", got)
	}
	var sawRef, sawPlan, sawDone, sawLLM bool
	for _, o := range sink.All() {
		switch {
		case o.Kind == core.ObsNativeRef && o.Text == "sess-1":
			sawRef = true
		case o.Kind == core.ObsPlan && len(o.Items) == 2 && o.Items[1].Status == "in_progress":
			sawPlan = true
		case o.Kind == core.ObsNode && o.Key == "tu1" && o.NodeStatus == core.NodeCompleted && o.Text == "made x":
			sawDone = true
		case o.Kind == core.ObsLLM && o.CostUSD == 0.0123 && o.TokensIn == 105 && o.TokensOut == 20:
			sawLLM = true
		}
		if o.Thread != "t1" {
			t.Errorf("observation without its thread: %+v", o)
		}
	}
	if !sawRef || !sawPlan || !sawDone || !sawLLM {
		t.Errorf("native ref %v, plan %v, tool done %v, usage %v\n%s", sawRef, sawPlan, sawDone, sawLLM, sink.Dump())
	}
	agenttest.Stop(t, p, sink, log)
}

func answer(key string, response core.Response) core.Effect {
	return core.Effect{Key: key + ":answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{ID: "R", Key: key, Response: response}}
}

func TestDenyThenInterrupt(t *testing.T) {
	p, sink, log := fake(t, "deny_interrupt.txt", agentproc.Settings{})
	p.Handle(agenttest.StartTurn("t1", "claude", "rm it"))
	req := sink.Wait(t, wait, "the approval", agenttest.Kind(core.ObsRequest))
	if req.Action != "write" || req.Prompt != "Allow Write: /w/a.txt?" {
		t.Fatalf("approval = %+v", req)
	}
	p.Handle(answer("perm1", core.RespDeny))
	sink.Wait(t, wait, "streamed text", func(o core.Observation) bool { return o.Kind == core.ObsText && o.Text == "working slowly" })
	p.Handle(core.Effect{Key: "t1/1/a1:interrupt", Kind: core.EffInterrupt, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1"})
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptInterrupted {
		t.Fatalf("turn ended %+v, want interrupted", end)
	}
	failed := sink.Wait(t, wait, "the denied tool node", func(o core.Observation) bool {
		return o.Kind == core.ObsNode && o.NodeStatus != "" && o.Key == "tu1" && o.NodeStatus != core.NodeRunning
	})
	if failed.NodeStatus != core.NodeFailed {
		t.Errorf("denied tool node = %+v", failed)
	}
	sink.Wait(t, wait, "the open text closed", func(o core.Observation) bool { return o.Kind == core.ObsText && o.Key == "m2/0" && o.Final })
	agenttest.Stop(t, p, sink, log)
}

func TestSteerIsAUserLineMidTurn(t *testing.T) {
	p, sink, log := fake(t, "steer.txt", agentproc.Settings{})
	p.Handle(agenttest.StartTurn("t1", "claude", "start"))
	sink.Wait(t, wait, "first text", func(o core.Observation) bool { return o.Kind == core.ObsText && o.Text == "first" })
	p.Handle(core.Effect{Key: "t1/1:steer1", Kind: core.EffSteer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1", Text: "also this"})
	done := sink.Wait(t, wait, "the steer effect done", agenttest.Kind(core.ObsEffectDone))
	if done.Key != "t1/1:steer1" || done.EffectStatus != core.EffCompleted {
		t.Fatalf("steer effect = %+v", done)
	}
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted || sink.Text("m2/t0") != "second" {
		t.Fatalf("turn ended %+v before the steering message was answered:\n%s", end, sink.Dump())
	}
	agenttest.Stop(t, p, sink, log)
}

func TestResumeByNativeRef(t *testing.T) {
	p, sink, log := fake(t, "resume.txt", agentproc.Settings{})
	e := agenttest.StartTurn("t1", "claude", "next")
	e.Turn.NativeRef = "sess-old" // the kernel hands the journaled ref to the turn
	e.Turn.Messages = append([]core.Message{{Role: "user", Text: "before"}, {Role: "assistant", Text: "reply"}}, e.Turn.Messages...)
	p.Handle(e)
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	if l := agenttest.Stop(t, p, sink, log); !strings.Contains(l, "--resume sess-old") {
		t.Fatalf("the CLI was not started with --resume sess-old:\n%s", l)
	}
}

// A fork's (or a rolled-back thread's) first turn opens a fork of the
// source session through the kept message, sends only the new message,
// and reports the fork's session id and the turn's last main-chain
// message.
func TestForkThroughAMessage(t *testing.T) {
	p, sink, log := fake(t, "fork.txt", agentproc.Settings{})
	e := agenttest.StartTurn("t1", "claude", "next")
	e.Turn.ForkOf, e.Turn.ForkAt = "sess-src", "u-kept"
	e.Turn.Messages = append([]core.Message{{Role: "user", Text: "before"}, {Role: "assistant", Text: "reply"}}, e.Turn.Messages...)
	p.Handle(e)
	if ref := sink.Wait(t, wait, "the native ref", agenttest.Kind(core.ObsNativeRef)); ref.Text != "sess-fork" {
		t.Fatalf("native ref = %q, want the fork's session sess-fork", ref.Text)
	}
	if nt := sink.Wait(t, wait, "the native turn", agenttest.Kind(core.ObsNativeTurn)); nt.Text != "u-main-1" {
		t.Fatalf("native turn = %q, want the last main-chain message u-main-1", nt.Text)
	}
	sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if l := agenttest.Stop(t, p, sink, log); !strings.Contains(l, "--resume sess-src --fork-session --resume-session-at u-kept") {
		t.Fatalf("the CLI was not started as a fork of sess-src through u-kept:\n%s", l)
	}
}

// TestLifecycleFailures: each broken agent gives a clear error on the
// thread within the handshake deadline, and the session ends FAILED.
func TestLifecycleFailures(t *testing.T) {
	agenttest.FailClearly(t, "claude", fake, "not stream-json before the handshake", "this is not json at all")
}

func TestMissingCommandSaysWhatToInstall(t *testing.T) {
	sink := agenttest.NewSink()
	p := New(context.Background(), sink, Config{Name: "claude", Command: []string{"claude-not-installed-here"},
		Settings: agentproc.Settings{Handshake: time.Second}})
	defer p.Close()
	p.Handle(agenttest.StartTurn("t1", "claude", "hi"))
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if !strings.Contains(end.Error, "not on PATH") || !strings.Contains(end.Error, "npm install -g @anthropic-ai/claude-code") {
		t.Fatalf("error = %q", end.Error)
	}
}

// TestWatchdogAndKillEscalation: a silent turn gets a warning; stopping
// an agent that ignores SIGTERM ends with SIGKILL within the deadlines.
func TestWatchdogAndKillEscalation(t *testing.T) {
	p, sink, _ := fake(t, "stubborn.txt", agentproc.Settings{Handshake: 5 * time.Second, Silence: 300 * time.Millisecond,
		Grace: 300 * time.Millisecond, Term: 300 * time.Millisecond})
	p.Handle(agenttest.StartTurn("t1", "claude", "hi"))
	w := sink.Wait(t, wait, "the silence warning", agenttest.Kind(core.ObsWarning))
	if !strings.Contains(w.Text, "has sent nothing for 300ms") || !strings.Contains(w.Text, "nexus interrupt t1") {
		t.Fatalf("warning = %q", w.Text)
	}
	start := time.Now()
	p.Handle(core.Effect{Kind: core.EffStopSession, Thread: "t1"})
	sink.Wait(t, wait, "STOPPED", agenttest.Kind(core.ObsSessionState, core.SessStopped))
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stop took %s", d)
	}
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptInterrupted {
		t.Errorf("turn ended %+v", end)
	}
}
