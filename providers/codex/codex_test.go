package codex

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

func fake(t *testing.T, script string, set agentproc.Settings) (providers.Provider, *agenttest.Sink, string) {
	t.Helper()
	return agenttest.Start(t, "codex/"+script, set, func(ctx context.Context, f agenttest.Fake) providers.Provider {
		return New(ctx, f.Sink, Config{Name: "codex", Command: f.Command, Env: f.Env, Settings: f.Settings})
	})
}

func effect(kind core.EffectKind, key string, attempt int) core.Effect {
	run := "t1/" + string(rune('0'+attempt))
	return core.Effect{Key: key, Kind: kind, Thread: "t1", Run: run, Attempt: run + "/a1", Provider: "codex"}
}

func TestTurnsApprovalPlanSteerQuestionInterrupt(t *testing.T) {
	p, sink, log := fake(t, "turn.txt", agentproc.Settings{})
	p.Handle(agenttest.StartTurn("t1", "codex", "hello"))
	req := sink.Wait(t, wait, "the approval", agenttest.Kind(core.ObsRequest))
	if req.Key != "0" || req.Action != "command" || req.Prompt != "Allow command: touch x? (make x)" || req.Parent != "call-1" {
		t.Fatalf("approval = %+v", req)
	}
	a := effect(core.EffAnswer, "R1:answer", 1)
	a.Request = &core.Request{Key: "0", Response: core.RespAllow}
	p.Handle(a)
	end := sink.Wait(t, wait, "the end of turn 1", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn 1 ended %+v", end)
	}
	if got := sink.Text("msg-1"); got != "Hello" {
		t.Errorf("text = %q (streamed deltas must not be repeated at completion)", got)
	}
	var ref, plan, node, usage bool
	for _, o := range sink.All() {
		switch {
		case o.Kind == core.ObsNativeRef && o.Text == "th-1":
			ref = true
		case o.Kind == core.ObsPlan && len(o.Items) == 2 && o.Items[1].Status == "in_progress":
			plan = true
		case o.Kind == core.ObsNode && o.Key == "call-1" && o.NodeStatus == core.NodeCompleted && strings.Contains(o.Text, "made"):
			node = true
		case o.Kind == core.ObsLLM && o.TokensIn == 21 && o.TokensOut == 10:
			usage = true
		}
	}
	if !ref || !plan || !node || !usage {
		t.Fatalf("native ref %v, plan %v, command node %v, usage %v\n%s", ref, plan, node, usage, sink.Dump())
	}

	// Turn 2 in the same process: steer, question, interrupt.
	e := agenttest.StartTurn("t1", "codex", "go on")
	e.Run, e.Attempt, e.Key = "t1/2", "t1/2/a1", "t1/2/a1:turn"
	p.Handle(e)
	sink.Wait(t, wait, "turn 2 text", func(o core.Observation) bool { return o.Kind == core.ObsText && o.Text == "working" })
	s := effect(core.EffSteer, "t1/2:steer1", 2)
	s.Text = "also this"
	p.Handle(s)
	q := sink.Wait(t, wait, "the question", func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Key == "q1" })
	if q.RequestKind != core.RequestUserInput || q.Prompt != "Which color? [red / blue]" {
		t.Fatalf("question = %+v", q)
	}
	ans := effect(core.EffAnswer, "R2:answer", 2)
	ans.Request = &core.Request{Key: "q1", Response: core.RespAnswer, Answer: "blue"}
	p.Handle(ans)
	p.Handle(effect(core.EffInterrupt, "t1/2/a1:interrupt", 2))
	end = sink.Wait(t, wait, "the end of turn 2", func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == "t1/2" })
	if end.TurnStatus != core.AttemptInterrupted {
		t.Fatalf("turn 2 ended %+v", end)
	}
	for _, o := range sink.All() {
		if o.Kind == core.ObsEffectDone && o.Key == "t1/2:steer1" && o.EffectStatus != core.EffCompleted {
			t.Errorf("steer effect = %+v", o)
		}
	}
	agenttest.Stop(t, p, sink, log)
}

func TestResumeAndMissingSteer(t *testing.T) {
	p, sink, log := fake(t, "resume.txt", agentproc.Settings{})
	e := agenttest.StartTurn("t1", "codex", "next")
	e.Turn.NativeRef = "th-old" // the kernel hands the journaled ref to the turn
	p.Handle(e)
	sink.Wait(t, wait, "turn started", agenttest.Kind(core.ObsTurnStarted))
	s := effect(core.EffSteer, "t1/1:steer1", 1)
	s.Text = "more"
	p.Handle(s)
	// The steer is reported unsupported, so the kernel can downgrade the
	// thread and restart the run with the message.
	w := sink.Wait(t, wait, "the unsupported steer", agenttest.Kind(core.ObsEffectDone, core.EffUnsupported))
	if !strings.Contains(w.Text, "no turn/steer") {
		t.Errorf("steer failure = %q", w.Text)
	}
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptFailed || !strings.Contains(end.Error, "stream disconnected before completion") {
		t.Fatalf("turn ended %+v", end)
	}
	agenttest.Stop(t, p, sink, log)
}

func TestLifecycleFailures(t *testing.T) {
	agenttest.FailClearly(t, "codex", fake, "not app-server JSON before the handshake", "Welcome to codex")
}

// A rollback's pending revert: the resumed thread is reverted to before
// the first removed turn (thread/revert), the turn starts on the same
// thread, and its id is reported for the next rollback.
func TestRevertBeforeTheNextTurn(t *testing.T) {
	p, sink, log := fake(t, "revert.txt", agentproc.Settings{})
	e := agenttest.StartTurn("t1", "codex", "next")
	e.Turn.NativeRef, e.Turn.RevertBefore = "th-old", "tu-2"
	p.Handle(e)
	ref := sink.Wait(t, wait, "the native ref", agenttest.Kind(core.ObsNativeRef))
	if ref.Text != "th-old" {
		t.Fatalf("native ref after the revert = %q, want the same thread th-old", ref.Text)
	}
	if nt := sink.Wait(t, wait, "the native turn", agenttest.Kind(core.ObsNativeTurn)); nt.Text != "tu-9" {
		t.Fatalf("native turn %q, want tu-9", nt.Text)
	}
	agenttest.Stop(t, p, sink, log)
}

// A fork's first turn with a native fork point: thread/fork through that
// turn, then only the new message on the forked thread.
func TestForkOpensACodexFork(t *testing.T) {
	p, sink, log := fake(t, "fork.txt", agentproc.Settings{})
	e := agenttest.StartTurn("t1", "codex", "next")
	e.Turn.ForkOf, e.Turn.ForkAt = "th-src", "tu-1"
	p.Handle(e)
	if ref := sink.Wait(t, wait, "the native ref", agenttest.Kind(core.ObsNativeRef)); ref.Text != "th-fork" {
		t.Fatalf("native ref = %q, want the forked thread th-fork", ref.Text)
	}
	sink.Wait(t, wait, "turn started", agenttest.Kind(core.ObsTurnStarted))
	agenttest.Stop(t, p, sink, log)
}

// A codex that cannot revert or fork: the thread is told (a failed
// resume, so the kernel records the history handoff) and a new thread
// gets the history.
func TestRevertOrForkRefusedStartsANewThread(t *testing.T) {
	for _, tc := range []struct {
		script, says string
		set          func(*core.Turn)
	}{
		{"revert_refused.txt", "could not revert thread th-old to before turn tu-2",
			func(t *core.Turn) { t.NativeRef, t.RevertBefore = "th-old", "tu-2" }},
		{"fork_refused.txt", "could not fork thread th-src through turn tu-1",
			func(t *core.Turn) { t.ForkOf, t.ForkAt = "th-src", "tu-1" }},
	} {
		t.Run(tc.script, func(t *testing.T) {
			p, sink, log := fake(t, tc.script, agentproc.Settings{})
			e := agenttest.StartTurn("t1", "codex", "next")
			tc.set(e.Turn)
			p.Handle(e)
			failed := sink.Wait(t, wait, "the refusal", agenttest.Kind(core.ObsResumeFailed))
			if !strings.Contains(failed.Text, tc.says) {
				t.Fatalf("resume failure = %q, want it to say %q", failed.Text, tc.says)
			}
			if ref := sink.Wait(t, wait, "the native ref", agenttest.Kind(core.ObsNativeRef)); ref.Text != "th-new" {
				t.Fatalf("native ref = %q, want the new thread th-new", ref.Text)
			}
			sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
			agenttest.Stop(t, p, sink, log)
		})
	}
}
