package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSwitchCodexClaudeAndBack is the provider-switch acceptance on
// the real CLIs: a thread starts on Codex, switches to Claude Code (the
// whole thread handed over), then back to Codex, which resumes its own
// earlier conversation and is handed only the runs it missed (a delta
// covering the Claude run). Both handoffs are journaled.
func TestSwitchCodexClaudeAndBack(t *testing.T) {
	needCLI(t, "codex")
	needCLI(t, "claude")
	openai := startFakeModel(t, responsesAPI)
	codexConfig(t, openai.URL)
	anthropicModel(t)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "codex", "--workspace", e.ws)

	if out := e.must("send", th, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("codex run 1 reply = %q", out)
	}
	codexRef := nativeRefs(e, th)
	if out := e.must("send", th, "from claude", "--provider", "claude"); !strings.Contains(out, "from claude") {
		t.Fatalf("claude run 2 reply = %q", out)
	}
	if out := e.must("send", th, "back to codex", "--provider", "codex"); !strings.Contains(out, "back to codex") {
		t.Fatalf("codex run 3 reply = %q", out)
	}

	type handoff struct{ From, To, Strategy, Text string }
	var hs []handoff
	for _, l := range strings.Split(e.must("log", th, "--json"), "\n") {
		var ev struct {
			Type    string
			Payload struct{ Handoff *handoff }
		}
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == "handoff.recorded" && ev.Payload.Handoff != nil {
			hs = append(hs, *ev.Payload.Handoff)
		}
	}
	if len(hs) != 2 {
		t.Fatalf("%d handoffs journaled, want 2: %+v", len(hs), hs)
	}
	if h := hs[0]; h.From != "codex" || h.To != "claude" || h.Strategy != "full_thread_summary" ||
		!strings.Contains(h.Text, "hello") {
		t.Errorf("first handoff = %+v, want codex->claude full_thread_summary with run 1", h)
	}
	// (The fake model echoes its whole prompt, so a reply quotes history;
	// the delta's own lines start after codex's last run, run 1.)
	if h := hs[1]; h.From != "claude" || h.To != "codex" || h.Strategy != "delta" ||
		!strings.HasPrefix(h.Text, "Since your last turn in this thread (run 1), the thread went on with claude:\nuser: from claude\n") {
		t.Errorf("second handoff = %+v, want claude->codex delta with the claude run only", h)
	}
	// Codex resumed its own conversation of the thread: the model saw the
	// delta, not the whole thread again.
	if refs := nativeRefs(e, th); len(codexRef) != 1 || !contains(refs, codexRef[0]) {
		t.Errorf("codex's native thread %v is not among the refs after switching back %v", codexRef, refs)
	}
	var sawDelta bool
	for _, text := range openai.Texts() {
		if strings.Contains(text, "from claude") && strings.Contains(text, "back to codex") {
			sawDelta = true
		}
	}
	if !sawDelta {
		t.Errorf("codex was never sent the claude run with the new message: %q", openai.Texts())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
