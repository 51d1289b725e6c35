package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// TestClaudeCLI drives the real Claude Code (pinned in pinnedCLIs)
// against the fake Anthropic API: a text turn with usage, approvals
// allowed and denied, a question answered through `nexus respond`, an
// interrupt mid-turn, a file written with the Write tool (listed in the
// run's checkpoint as the agent's), and the next turn in a new nexus
// process resuming the same Claude session by its native ref.
func TestClaudeCLI(t *testing.T) {
	needCLI(t, "claude")
	anthropicModel(t)
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws)

	// A text turn, in a host of its own.
	if out := e.must("send", th, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("reply = %q", out)
	}
	v := e.show(th)
	r := v.Runs[0]
	if r.Status != "completed" || r.Reply != "echo: hello" {
		t.Fatalf("run 1 = %+v", r)
	}
	var usage bool
	for _, n := range r.Nodes {
		if n.Kind == "llm_call" && n.CostUSD > 0 && n.TokensIn > 0 && n.TokensOut > 0 {
			usage = true
		}
	}
	if !usage {
		t.Errorf("no usage node in run 1: %+v", r.Nodes)
	}

	stop := e.serve()
	// A tool call needing approval, allowed.
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
	v = e.waitRun(th, 2, "completed", "failed")
	if v.Runs[1].Status != "completed" || !strings.Contains(v.Runs[1].Reply, "tool said") {
		t.Fatalf("run 2 = %+v", v.Runs[1])
	}
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	var tool bool
	for _, n := range v.Runs[1].Nodes {
		if n.Kind == "tool_call" && strings.Contains(n.Title, "touch allowed.txt") && n.Status == "completed" {
			tool = true
		}
	}
	if !tool {
		t.Errorf("no completed tool node in run 2: %+v", v.Runs[1].Nodes)
	}

	// Denied.
	e.run("send", th, "run: touch denied.txt")
	q = e.pendingRequest(th)
	e.must("respond", q.ID, "--deny")
	v = e.waitRun(th, 3, "completed", "failed")
	if !strings.Contains(v.Runs[2].Reply, "denied") {
		t.Errorf("run 3 reply %q does not show the denial reached Claude", v.Runs[2].Reply)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "denied.txt")); err == nil {
		t.Errorf("the denied command ran")
	}

	// A question answered through `nexus respond`.
	e.run("send", th, "ask: Which color?")
	q = e.pendingRequest(th)
	if q.Kind != "user_input" || !strings.Contains(q.Prompt, "Which color?") {
		t.Fatalf("question = %+v", q)
	}
	e.must("respond", q.ID, "--answer", "blue")
	v = e.waitRun(th, 4, "completed", "failed")
	if !strings.Contains(v.Runs[3].Reply, `"Which color?"="blue"`) {
		t.Errorf("run 4 reply %q does not carry the answer", v.Runs[3].Reply)
	}

	// Interrupt mid-turn; the session stays usable.
	bg := e.bg("send", th, "go slow")
	eventually(t, "streamed text", func() bool {
		v := e.show(th)
		return len(v.Runs) >= 5 && v.Runs[4].Status == "running" && len(v.Runs[4].Nodes) > 1
	})
	e.must("interrupt", th)
	v = e.waitRun(th, 5, "interrupted", "completed", "failed")
	if v.Runs[4].Status != "interrupted" {
		t.Fatalf("run 5 = %+v", v.Runs[4])
	}
	bg.wait(t)
	if out := e.must("send", th, "still there?"); !strings.Contains(out, "echo: still there?") {
		t.Fatalf("after the interrupt: %q", out)
	}
	claudeWrites(t, e, th)
	stop()

	// A new nexus process resumes the same Claude session: the model sees
	// the conversation's first message again.
	before := nativeRefs(e, th)
	if out := e.must("send", th, "recall"); !strings.Contains(out, "first: hello") {
		t.Fatalf("the resumed session lost its history: %q", out)
	}
	after := nativeRefs(e, th)
	if len(before) != 1 || len(after) != 1 || before[0] != after[0] {
		t.Errorf("native refs before %v, after %v: want one, unchanged", before, after)
	}

	// A fork at run 1 goes on in a fork of Claude's session through run 1
	// (--fork-session --resume-session-at): its own history holds run 1
	// and nothing later, in a session of its own.
	fork := e.must("thread", "fork", th, "--run", "1")
	if out := e.must("send", fork, "history"); !strings.HasPrefix(out, "history: hello") || strings.Contains(out, "allowed.txt") {
		t.Errorf("the forked Claude session's history is %q: want run 1 and nothing later", out)
	}
	if refs := nativeRefs(e, fork); len(refs) != 1 || refs[0] == after[0] {
		t.Errorf("the fork's session %v, want one of its own (the source's is %v)", refs, after)
	}

	// Rolling back to run 1 forks Claude's session the same way: the
	// files are as after run 1, and the next turn's session holds run 1
	// and nothing later; the old session is left as it was.
	e.must("rollback", th, "--to-run", "1")
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err == nil {
		t.Errorf("allowed.txt, written by run 2, survived the rollback to run 1")
	}
	out := e.must("send", th, "history")
	if !strings.HasPrefix(out, "history: hello") || strings.Contains(out, "allowed.txt") || strings.Contains(out, "Which color") {
		t.Errorf("after the rollback Claude's own history is %q: want run 1 only", out)
	}
	if refs := nativeRefs(e, th); len(refs) != 2 || refs[0] != after[0] {
		t.Errorf("native refs after the rollback %v: want the old one and the fork", refs)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "sub", "written.txt")); err == nil {
		t.Errorf("sub/written.txt, written by a later run, survived the rollback to run 1")
	}
}

// claudeWrites has Claude write a file with its Write tool (allowed when
// asked): the run's checkpoint lists the file as the agent's own, exact
// from the path the tool named rather than from the call's time window,
// and the tool's node names it (in the journal).
func claudeWrites(t *testing.T, e *env, th string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(e.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := e.run("send", th, "write: "+filepath.Join(e.ws, "sub", "written.txt")); res.code != 3 {
		t.Fatalf("send needing approval: exit %d, want 3: %s %s", res.code, res.out, res.err)
	}
	q := e.pendingRequest(th)
	if q.Kind != "approval" || !strings.Contains(q.Prompt, "Write") {
		t.Fatalf("request = %+v, want the write's approval", q)
	}
	e.must("respond", q.ID, "--allow")
	n := q.Run
	v := e.waitRun(th, n, "completed", "failed")
	r := v.Runs[n-1]
	if b, err := os.ReadFile(filepath.Join(e.ws, "sub", "written.txt")); r.Status != "completed" || err != nil || string(b) != "written by Claude\n" {
		t.Fatalf("run %d = %+v; the file: %q %v", n, r, b, err)
	}
	if !strings.Contains(e.must("log", "--json"), `"paths":["sub/written.txt"]`) {
		t.Errorf("no node of run %d names sub/written.txt in the journal", n)
	}
	cp := findCheckpoint(v, core.RunScope(n))
	if cp == nil || !cp.Own || len(cp.Files) != 1 || cp.Files[0].Path != "sub/written.txt" || cp.Files[0].By != core.ByAgent {
		t.Fatalf("run %d checkpoint %+v; want sub/written.txt as the agent's own", n, cp)
	}
}

// nativeRefs lists the distinct provider-thread refs the journal holds.
func nativeRefs(e *env, thread string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(e.must("log", "--json"), "\n") {
		i := strings.Index(l, `"nativeRef":"`)
		if i < 0 || !strings.Contains(l, thread) {
			continue
		}
		ref := l[i+len(`"nativeRef":"`):]
		ref = ref[:strings.IndexByte(ref, '"')]
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out
}
