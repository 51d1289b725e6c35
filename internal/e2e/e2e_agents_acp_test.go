package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// acpAgent is what tells the ACP agents of acpFlow apart.
type acpAgent struct {
	profile string
	// usage: the agent reports the tokens of a turn.
	usage bool
	// deniedRun is the status of the run whose command was denied:
	// completed when the model hears of the denial and answers,
	// interrupted when the agent ends the turn instead; denied is what
	// its reply or error then says.
	deniedRun core.RunStatus
	denied    string
	// afterFirst, if set, runs once the first turn's process has ended,
	// before any other process loads the session.
	afterFirst func(t *testing.T)
}

// acpFlow drives a real ACP agent through the adapter flow: a text turn, a
// tool call allowed and one denied through `nexus respond`, an interrupt
// mid-turn, and the next turn in a new nexus process loading the same ACP
// session by its native ref, with its history and without replaying it
// as new output. The caller points the agent at a fake model; it gets the
// env and the thread back.
func acpFlow(t *testing.T, a acpAgent) (*env, string) {
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", a.profile, "--workspace", e.ws)
	if out := e.must("send", th, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("reply = %q", out)
	}
	r := e.show(th).Runs[0]
	if r.Status != "completed" || !strings.HasSuffix(r.Reply, "echo: hello") {
		t.Fatalf("run 1 = %+v", r)
	}
	if a.afterFirst != nil {
		a.afterFirst(t)
	}
	var usage bool
	for _, n := range r.Nodes {
		usage = usage || n.Kind == "llm_call" && n.TokensIn > 0 && n.TokensOut > 0
	}
	if usage != a.usage {
		t.Errorf("run 1 has a usage node: %v, want %v: %+v", usage, a.usage, r.Nodes)
	}

	stop := e.serve()
	if res := e.run("send", th, "run: touch allowed.txt"); res.code != 3 {
		t.Fatalf("send needing approval: exit %d, want 3: %s %s", res.code, res.out, res.err)
	}
	q := e.pendingRequest(th)
	if q.Kind != "approval" || !strings.Contains(q.Prompt, "touch allowed.txt") {
		t.Fatalf("request = %+v", q)
	}
	if out := e.must("requests"); !strings.Contains(out, q.ID) {
		t.Fatalf("`nexus requests` does not list %s:\n%s", q.ID, out)
	}
	e.must("respond", q.ID, "--allow")
	v := e.waitRun(th, 2, "completed", "failed")
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil || v.Runs[1].Status != "completed" {
		t.Fatalf("the allowed command did not run (%v): %+v", err, v.Runs[1])
	}
	var tool bool
	for _, n := range v.Runs[1].Nodes {
		tool = tool || n.Kind == "tool_call" && strings.Contains(n.Title, "touch allowed.txt") && n.Status == "completed"
	}
	if !tool {
		t.Errorf("no completed tool node in run 2: %+v", v.Runs[1].Nodes)
	}

	e.run("send", th, "run: touch denied.txt")
	q = e.pendingRequest(th)
	// respond waits for the run like send: exit 1 when the denial ends
	// it other than completed.
	wantCode := 0
	if a.deniedRun != "completed" {
		wantCode = 1
	}
	if r := e.run("respond", q.ID, "--deny"); r.code != wantCode {
		t.Fatalf("respond --deny: exit %d, want %d (run %s): %s", r.code, wantCode, a.deniedRun, r.err)
	}
	v = e.waitRun(th, 3, "completed", "interrupted", "failed")
	if _, err := os.Stat(filepath.Join(e.ws, "denied.txt")); err == nil {
		t.Errorf("the denied command ran: %+v", v.Runs[2])
	}
	if r := v.Runs[2]; r.Status != a.deniedRun || !strings.Contains(r.Reply+r.Error, a.denied) {
		t.Errorf("run 3 = %s, reply %q, error %q; want %s saying %q", r.Status, r.Reply, r.Error, a.deniedRun, a.denied)
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
	v = e.show(th)
	for _, r := range v.Runs[1:] {
		if strings.Contains(r.Reply, "echo: hello") {
			t.Errorf("run %d shows the loaded history as new output: %q", r.Ordinal, r.Reply)
		}
	}
	if len(v.Handoffs) != 0 {
		t.Errorf("the session was loaded, yet a handoff was recorded: %+v", v.Handoffs)
	}
	return e, th
}

// TestClaudeACP drives the real claude-agent-acp (pinned in pinnedCLIs)
// against the fake Anthropic API through acpFlow, then has it write a
// file with its Write tool, as TestClaudeCLI does.
func TestClaudeACP(t *testing.T) {
	needCLI(t, "claude-agent-acp")
	anthropicModel(t)
	e, th := acpFlow(t, acpAgent{profile: "claude-acp", usage: true, deniedRun: "completed", denied: "tool said"})
	stop := e.serve()
	claudeWrites(t, e, th)
	stop()
}

// TestCodexACP drives the real codex-acp (pinned in pinnedCLIs) against
// the fake Responses API through acpFlow. It resumes with session/resume.
func TestCodexACP(t *testing.T) {
	needCLI(t, "codex-acp")
	m := startFakeModel(t, responsesAPI)
	// codex-acp takes its policy from the config: ask before a command
	// that leaves the sandbox.
	codexConfig(t, m.URL, `approval_policy = "on-request"`, `sandbox_mode = "workspace-write"`)
	acpFlow(t, acpAgent{profile: "codex-acp", deniedRun: "interrupted", denied: "ended the turn when its request was denied"})
}

// TestGeminiACP drives the real Gemini CLI in ACP mode (pinned in
// pinnedCLIs) against the fake Gemini API through acpFlow; with
// GOOGLE_GEMINI_BASE_URL set it authenticates as a gateway. It loads the
// session with session/load, which gemini-cli 0.61 gets wrong in two ways
// the test steps around (backdateGeminiSessions, and sessionRetention off:
// with it on, the next process deletes a loaded session along with the
// empty file the load left). Then, with its session files gone as that
// cleanup leaves them, the next process takes the recovery path: a new
// session given the history nexus recorded, and a handoff saying so.
func TestGeminiACP(t *testing.T) {
	needCLI(t, "gemini")
	m := startFakeModel(t, geminiAPI)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", m.URL)
	t.Setenv("GEMINI_API_KEY", "fake-key")
	dir := filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"general": {"sessionRetention": {"enabled": false}}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	e, th := acpFlow(t, acpAgent{profile: "gemini", usage: true, deniedRun: "completed", denied: "canceled by the user",
		afterFirst: backdateGeminiSessions})

	chats, _ := filepath.Glob(filepath.Join(dir, "tmp", "*", "chats"))
	for _, c := range chats {
		os.RemoveAll(c)
	}
	before := nativeRefs(e, th)
	e.must("send", th, "again")
	if saw := m.Texts(); !strings.Contains(saw[len(saw)-1], "user: hello\nassistant: echo: hello\n") {
		t.Fatalf("the new session did not get the recorded history: %q", saw[len(saw)-1])
	}
	v := e.show(th)
	after := nativeRefs(e, th)
	if len(v.Handoffs) != 1 || !strings.Contains(v.Handoffs[0].Text, "could not be resumed") ||
		len(after) != 2 || after[0] != before[0] || v.Runs[5].Status != "completed" {
		t.Fatalf("recovery: refs %v -> %v, handoffs %+v, run 6 %+v", before, after, v.Handoffs, v.Runs[5])
	}
}

// backdateGeminiSessions renames the Gemini CLI's session files to an
// older minute. gemini-cli 0.61 names a session's file after the minute
// it was created; session/load first starts a fresh recording of the same
// session, so within that minute it appends an empty history to the very
// file it then reads, finds nothing to resume ("No previous sessions
// found for this project") and has lost the conversation. A person
// resumes minutes later; the test gets there by renaming.
func backdateGeminiSessions(t *testing.T) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no Gemini CLI session file under %s", os.Getenv("GEMINI_CLI_HOME"))
	}
	for _, f := range files {
		id := strings.TrimSuffix(f, ".jsonl")
		id = id[len(id)-8:]
		if err := os.Rename(f, filepath.Join(filepath.Dir(f), "session-2000-01-01T00-00-"+id+".jsonl")); err != nil {
			t.Fatal(err)
		}
	}
}
