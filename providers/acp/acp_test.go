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
	// fs/write_text_file is a write like any other: the command allowed
	// above does not cover it, so nexus asks.
	wr := sink.Wait(t, wait, "the write's approval", func(o core.Observation) bool {
		return o.Kind == core.ObsRequest && o.Action == "write"
	})
	if wr.Prompt != "Allow writing out.txt? (20 bytes)" {
		t.Fatalf("write approval = %+v", wr)
	}
	p.Handle(core.Effect{Key: "R2:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: wr.Key, Response: core.RespAllow}})
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

// fs/write_text_file is a write like any other: never into a .git
// directory (any spelling), never through a symlink that leads out (a
// dangling one included), asked of the person unless an edit permission
// allowed this turn covers the path or the turn's policy allows writes,
// and refused when denied. The agent sees each refusal as an error.
func TestWritesFollowTheApprovalPolicy(t *testing.T) {
	p, sink, log := fake(t, "write.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644)
	outside := t.TempDir()
	os.Symlink(filepath.Join(outside, "planted"), filepath.Join(ws, "dangling"))
	p.Handle(turnIn(ws, "1", "write"))
	req := sink.Wait(t, wait, "the write approval", func(o core.Observation) bool {
		return o.Kind == core.ObsRequest && o.Action == "write"
	})
	if req.Prompt != "Allow writing denied.txt? (2 bytes)" {
		t.Fatalf("the first question is %q; the .git and symlink writes must be refused without one", req.Prompt)
	}
	p.Handle(core.Effect{Key: "R1:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: req.Key, Response: core.RespDeny}})
	edit := sink.Wait(t, wait, "the edit permission", func(o core.Observation) bool {
		return o.Kind == core.ObsRequest && o.Parent == "tc1"
	})
	p.Handle(core.Effect{Key: "R2:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: edit.Key, Response: core.RespAllow}})
	sink.Wait(t, wait, "the end of turn 1", agenttest.Kind(core.ObsTurnEnded))
	turn2 := turnIn(ws, "2", "again")
	turn2.Turn.Policy.Allow = []string{"write"}
	p.Handle(turn2)
	sink.Wait(t, wait, "the end of turn 2", func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == "t1/2" })
	var asked int
	for _, o := range sink.All() {
		if o.Kind == core.ObsRequest {
			asked++
		}
	}
	if asked != 2 {
		t.Errorf("%d questions; want 2 (the denied write, the edit permission): the allowed edit's write and the policy's must not ask", asked)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
	for _, f := range []string{filepath.Join(outside, "planted"), filepath.Join(ws, "denied.txt"), filepath.Join(ws, ".GIT")} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("a refused write created %s", f)
		}
	}
	for f, want := range map[string]string{"a.txt": "allowed", "b.txt": "policy"} {
		if b, err := os.ReadFile(filepath.Join(ws, f)); err != nil || string(b) != want {
			t.Errorf("%s = %q %v, want %q", f, b, err, want)
		}
	}
	agenttest.Stop(t, p, sink, log)
}
