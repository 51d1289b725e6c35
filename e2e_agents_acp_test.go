package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeACP drives the real claude-agent-acp (pinned in pinnedCLIs)
// against the fake Anthropic API: a text turn, a tool call allowed and
// one denied through `nexus respond`, an interrupt mid-turn, and the next
// turn in a new nexus process loading the same ACP session.
func TestClaudeACP(t *testing.T) {
	needCLI(t, "claude-agent-acp")
	m := startFakeModel(t, anthropicAPI)
	t.Setenv("ANTHROPIC_BASE_URL", m.URL)
	t.Setenv("ANTHROPIC_API_KEY", "fake-key")
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "claude-acp", "--workspace", e.ws)
	if out := e.must("send", th, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("reply = %q", out)
	}

	stop := e.serve()
	e.run("send", th, "run: touch allowed.txt")
	q := e.pendingRequest(th)
	if q.Kind != "approval" || !strings.Contains(q.Prompt, "touch allowed.txt") {
		t.Fatalf("request = %+v", q)
	}
	e.must("respond", q.ID, "--allow")
	v := e.waitRun(th, 2, "completed", "failed")
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil || v.Runs[1].Status != "completed" {
		t.Fatalf("the allowed command did not run (%v): %+v", err, v.Runs[1])
	}
	e.run("send", th, "run: touch denied.txt")
	q = e.pendingRequest(th)
	e.must("respond", q.ID, "--deny")
	v = e.waitRun(th, 3, "completed", "failed")
	if _, err := os.Stat(filepath.Join(e.ws, "denied.txt")); err == nil {
		t.Errorf("the denied command ran: %+v", v.Runs[2])
	}

	bg := e.bg("send", th, "go slow")
	eventually(t, "run 4 to stream", func() bool {
		v := e.show(th)
		return len(v.Runs) >= 4 && v.Runs[3].Status == "running" && len(v.Runs[3].Nodes) > 1
	})
	e.must("interrupt", th)
	if v = e.waitRun(th, 4, "interrupted", "completed", "failed"); v.Runs[3].Status != "interrupted" {
		t.Fatalf("run 4 = %+v", v.Runs[3])
	}
	bg.wait(t)
	stop()

	before := nativeRefs(e, th)
	if out := e.must("send", th, "recall"); !strings.Contains(out, "first: hello") {
		t.Fatalf("the loaded session lost its history: %q", out)
	}
	if after := nativeRefs(e, th); len(before) != 1 || len(after) != 1 || before[0] != after[0] {
		t.Errorf("native refs before %v, after %v: want one, unchanged", before, after)
	}
}
