package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	return agenttest.Start(t, "acp/"+script, set, func(ctx context.Context, f agenttest.Fake) providers.Provider {
		return New(ctx, f.Sink, Config{Name: "gemini", Command: f.Command, Env: f.Env, Settings: f.Settings})
	})
}

func turnIn(ws, run, text string) core.Effect {
	e := agenttest.StartTurn("t1", "gemini", text)
	e.Run, e.Attempt, e.Key = "t1/"+run, "t1/"+run+"/a1", "t1/"+run+"/a1:turn"
	e.Turn.Workspace = ws
	return e
}

func TestPromptPermissionFilesTerminalPlanUsageCancel(t *testing.T) {
	p, sink, log := fake(t, "turn.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	p.Handle(turnIn(ws, "1", "hello"))
	req := sink.Wait(t, wait, "the permission", agenttest.Kind(core.ObsRequest))
	if req.Action != "command" || req.Prompt != "Allow touch x?" || req.Parent != "tc1" {
		t.Fatalf("request = %+v", req)
	}
	p.Handle(core.Effect{Key: "R1:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: req.Key, Response: core.RespAllow}})
	end := sink.Wait(t, wait, "the end of turn 1", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn 1 ended %+v", end)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "written by the agent" {
		t.Errorf("fs/write_text_file: %q %v", b, err)
	}
	if got := sink.Text("msg1"); got != "Hello" {
		t.Errorf("text = %q", got)
	}
	var plan, node, usage, ref bool
	for _, o := range sink.All() {
		switch {
		case o.Kind == core.ObsPlan && len(o.Items) == 2 && o.Items[1].Status == "in_progress":
			plan = true
		case o.Kind == core.ObsNode && o.Key == "tc1" && o.NodeStatus == core.NodeCompleted && o.Text == "from a terminal":
			node = true
		case o.Kind == core.ObsLLM && o.TokensIn == 10 && o.TokensOut == 5 && o.CostUSD == 0.02:
			usage = true
		case o.Kind == core.ObsNativeRef && o.Text == "s-1":
			ref = true
		}
	}
	if !plan || !node || !usage || !ref {
		t.Fatalf("plan %v, tool node with terminal output %v, usage %v, native ref %v\n%s", plan, node, usage, ref, sink.Dump())
	}

	p.Handle(turnIn(ws, "2", "again"))
	sink.Wait(t, wait, "the second permission", func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Run == "t1/2" })
	p.Handle(core.Effect{Key: "t1/2/a1:interrupt", Kind: core.EffInterrupt, Thread: "t1", Run: "t1/2", Attempt: "t1/2/a1"})
	end = sink.Wait(t, wait, "the end of turn 2", func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == "t1/2" })
	if end.TurnStatus != core.AttemptInterrupted {
		t.Fatalf("turn 2 ended %+v", end)
	}
	agenttest.Stop(t, p, sink, log)
}

func TestLoadSessionByNativeRef(t *testing.T) {
	p, sink, log := fake(t, "resume.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := turnIn(ws, "1", "next")
	e.Turn.NativeRef = "s-old" // the kernel hands the journaled ref to the turn
	p.Handle(e)
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	var usage bool
	for _, o := range sink.All() {
		if (o.Kind == core.ObsText || o.Kind == core.ObsNode) && (strings.Contains(o.Text, "OLD") || strings.Contains(o.Title, "OLD")) {
			t.Errorf("replayed history shown as new output: %+v", o)
		}
		usage = usage || o.Kind == core.ObsLLM && o.TokensIn == 12 && o.TokensOut == 7
	}
	if got := sink.Text("msg1"); got != "new reply" || !usage {
		t.Errorf("text %q, usage from _meta %v\n%s", got, usage, sink.Dump())
	}
	agenttest.Stop(t, p, sink, log)
}

// TestAgentEndsTurnOnDenial: an agent that ends the turn as cancelled
// when a permission is denied ends the run interrupted, saying so rather
// than that someone interrupted it.
func TestAgentEndsTurnOnDenial(t *testing.T) {
	p, sink, log := fake(t, "deny.txt", agentproc.Settings{})
	p.Handle(turnIn(t.TempDir(), "1", "hello"))
	req := sink.Wait(t, wait, "the permission", agenttest.Kind(core.ObsRequest))
	p.Handle(core.Effect{Key: "R1:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: req.Key, Response: core.RespDeny}})
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptInterrupted || end.Error != "gemini ended the turn when its request was denied" {
		t.Fatalf("turn ended %+v", end)
	}
	agenttest.Stop(t, p, sink, log)
}

func TestMetaUsage(t *testing.T) {
	for _, tc := range []struct {
		meta    string
		in, out int
		ok      bool
	}{
		{`{"quota":{"token_count":{"input_tokens":12,"output_tokens":7}}}`, 12, 7, true},
		{`{"quota":{"token_count":{"input_tokens":-3,"output_tokens":1e300}}}`, 0, agentproc.MaxCount, true},
		{`{"quota":{"token_count":{"input_tokens":"12","output_tokens":7}}}`, 0, 0, false},
		{`{"quota":{}}`, 0, 0, false},
		{`{"quota":[1]}`, 0, 0, false},
		{`null`, 0, 0, false},
	} {
		var meta map[string]any
		if err := json.Unmarshal([]byte(tc.meta), &meta); err != nil {
			t.Fatal(err)
		}
		if in, out, ok := metaUsage(meta); in != tc.in || out != tc.out || ok != tc.ok {
			t.Errorf("metaUsage(%s) = %d, %d, %v; want %d, %d, %v", tc.meta, in, out, ok, tc.in, tc.out, tc.ok)
		}
	}
}

func TestLifecycleFailures(t *testing.T) {
	agenttest.FailClearly(t, "gemini", fake, "not ACP JSON-RPC before the handshake", "Loaded cached credentials")
}
