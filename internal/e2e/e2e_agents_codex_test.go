package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// codexConfig points Codex at the fake Responses API ($CODEX_HOME is set
// by needCLI). It sets no approval policy or sandbox: nexus's codex
// adapter sends its own with each thread and turn; more adds lines at the
// top (codex-acp's policy).
func codexConfig(t *testing.T, url string, more ...string) {
	t.Helper()
	home := os.Getenv("CODEX_HOME")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "fake"
model_provider = "fake"
%s
[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0
`, strings.Join(more, "\n"), url)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_OPENAI_KEY", "fake-key")
}

// TestCodexCLI drives the real `codex app-server` (pinned in pinnedCLIs)
// against the fake Responses API: a text turn with usage, approvals
// allowed and denied, a steer in place, an interrupt mid-turn, the next
// turn in a new nexus process resuming the same Codex thread, kill -9
// mid-turn, a native fork, and a rollback that reverts the Codex thread
// itself.
func TestCodexCLI(t *testing.T) {
	needCLI(t, "codex")
	m := startFakeModel(t, responsesAPI)
	codexConfig(t, m.URL)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "codex", "--workspace", e.ws)

	if out := e.must("send", th, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("reply = %q", out)
	}
	r := e.show(th).Runs[0]
	var usage bool
	for _, n := range r.Nodes {
		if n.Kind == "llm_call" && n.TokensIn > 0 && n.TokensOut > 0 {
			usage = true
		}
	}
	if r.Reply != "echo: hello" || !usage {
		t.Fatalf("run 1 = %+v", r)
	}

	stop := e.serve()
	if res := e.run("send", th, "run: touch allowed.txt"); res.code != 3 {
		t.Fatalf("send needing approval: exit %d, want 3: %s %s", res.code, res.out, res.err)
	}
	q := e.pendingRequest(th)
	if q.Kind != "approval" || !strings.Contains(q.Prompt, "touch allowed.txt") {
		t.Fatalf("request = %+v", q)
	}
	e.must("respond", q.ID, "--allow")
	v := e.waitRun(th, 2, "completed", "failed")
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil || v.Runs[1].Status != "completed" {
		t.Fatalf("the allowed command did not run (%v): %+v", err, v.Runs[1])
	}
	var tool bool
	for _, n := range v.Runs[1].Nodes {
		if n.Kind == "tool_call" && strings.Contains(n.Title, "touch allowed.txt") && n.Status == "completed" {
			tool = true
		}
	}
	if !tool {
		t.Errorf("no completed command node: %+v", v.Runs[1].Nodes)
	}

	e.run("send", th, "run: touch denied.txt")
	q = e.pendingRequest(th)
	e.must("respond", q.ID, "--deny")
	v = e.waitRun(th, 3, "completed", "failed")
	if !strings.Contains(v.Runs[2].Reply, "rejected") {
		t.Errorf("run 3 reply %q does not show the denial reached Codex", v.Runs[2].Reply)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "denied.txt")); err == nil {
		t.Errorf("the denied command ran")
	}

	// Steer in place: the same attempt takes the new message.
	bg := e.bg("send", th, "go slow")
	eventually(t, "run 4 to stream", func() bool {
		v := e.show(th)
		return len(v.Runs) >= 4 && v.Runs[3].Status == "running" && len(v.Runs[3].Nodes) > 1
	})
	e.must("send", th, "steer here", "--mode", "steer")
	v = e.waitRun(th, 4, "completed", "failed", "interrupted")
	if v.Runs[3].Status != "completed" || len(v.Runs[3].Attempts) != 1 || !strings.Contains(v.Runs[3].Reply, "echo: steer here") {
		t.Fatalf("steered run 4 = %+v", v.Runs[3])
	}
	bg.wait(t)

	// Interrupt mid-turn.
	bg = e.bg("send", th, "slow again")
	eventually(t, "run 5 to stream", func() bool {
		v := e.show(th)
		return len(v.Runs) >= 5 && v.Runs[4].Status == "running" && len(v.Runs[4].Nodes) > 1
	})
	e.must("interrupt", th)
	if v = e.waitRun(th, 5, "interrupted", "completed", "failed"); v.Runs[4].Status != "interrupted" {
		t.Fatalf("run 5 = %+v", v.Runs[4])
	}
	bg.wait(t)
	stop()

	before := nativeRefs(e, th)
	if out := e.must("send", th, "recall"); !strings.Contains(out, "first: hello") {
		t.Fatalf("the resumed thread lost its history: %q", out)
	}
	if after := nativeRefs(e, th); len(before) != 1 || len(after) != 1 || before[0] != after[0] {
		t.Errorf("native refs before %v, after %v: want one, unchanged", before, after)
	}

	// Kill -9 the host mid-turn: `nexus send T "continue"` continues the
	// cut-off run on the same Codex thread (same native id) to completion.
	host := e.serveProc()
	bg = e.bg("send", th, "go slow once more")
	eventually(t, "run 7 to stream", func() bool {
		v := e.show(th)
		return len(v.Runs) >= 7 && v.Runs[6].Status == "running" && len(v.Runs[6].Nodes) > 1
	})
	syscall.Kill(host.c.Process.Pid, syscall.SIGKILL)
	<-host.done
	bg.wait(t)
	out := e.must("send", th, "continue")
	r = e.show(th).Runs[6]
	if r.Status != "completed" || len(r.Attempts) != 2 || r.Attempts[1].Reason != "provider_recovery" {
		t.Fatalf("after kill -9 and send continue, run 7 = %+v (reply %q)", r, out)
	}
	if refs := nativeRefs(e, th); len(refs) != 1 || refs[0] != before[0] {
		t.Errorf("native refs after the crash %v, want the same one %v", refs, before)
	}

	// A fork at run 1 is a Codex fork (thread/fork) of the thread through
	// run 1's turn: its own history holds run 1 and nothing after it.
	fork := e.must("thread", "fork", th, "--run", "1")
	out = e.must("send", fork, "history")
	if !strings.HasPrefix(out, "history: hello") || strings.Contains(out, "allowed.txt") {
		t.Errorf("the forked Codex thread's history is %q: want run 1 and nothing later", out)
	}
	if refs := nativeRefs(e, fork); len(refs) != 1 || refs[0] == before[0] {
		t.Errorf("the fork's codex thread %v, want one of its own (the source's is %v)", refs, before)
	}

	// Rollback to run 1 reverts the Codex thread itself (thread/revert):
	// the same native thread, whose own history no longer holds run 2 on.
	if out := e.must("send", th, "history"); !strings.Contains(out, "touch allowed.txt") {
		t.Fatalf("before the rollback Codex's history is %q: want the later runs in it", out)
	}
	e.must("rollback", th, "--to-run", "1")
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err == nil {
		t.Errorf("allowed.txt, written by run 2, survived the rollback to run 1")
	}
	out = e.must("send", th, "history")
	if !strings.Contains(out, "history: hello") || strings.Contains(out, "allowed.txt") || strings.Contains(out, "recall") {
		t.Errorf("after the rollback Codex's own history is %q: want run 1 only", out)
	}
	if refs := nativeRefs(e, th); len(refs) != 1 || refs[0] != before[0] {
		t.Errorf("native refs after the rollback %v, want the same Codex thread %v, reverted", refs, before)
	}
}
