package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/internal/cli"
)

// The approval policy reaches each agent's own controls (README,
// "Approval policy"). For the real Codex and Claude Code: under ask,
// creating a file stops for an approval and allowing it creates the file;
// under allow-writes (a profile of the config file) a write goes through
// without asking while a command still asks; under --yes nothing asks;
// and under every policy a write to ../outside.txt is refused or fails,
// with no file outside the workspace.

// TestCodexPolicy: Codex runs with approvalPolicy untrusted (ask,
// allow-writes) or never (--yes) and a workspace-write sandbox with
// /tmp read-only, where the workspace is; nexus answers what the thread
// allows and declines a patch outside the workspace itself. Under --yes
// the sandbox stops a command that writes outside the workspace.
func TestCodexPolicy(t *testing.T) {
	needCLI(t, "codex")
	// A model that never asks to leave the sandbox: what asks is Codex's
	// approval policy alone.
	m := startFakeModel(t, sandboxedResponsesAPI)
	codexConfig(t, m.URL)
	policyConfig(t, "codex")
	e := newEnv(t)
	defer e.serve()()

	ask := e.must("thread", "new", "--provider", "codex", "--workspace", e.ws)
	askedThenAllowed(t, e, ask, "run: touch made.txt", "touch made.txt")
	wantFile(t, filepath.Join(e.ws, "made.txt"))
	// A command that leaves the workspace asks like any other (Codex
	// would run it outside its sandbox once allowed: the person decides).
	askedThenDenied(t, e, ask, "run: touch ../outside.txt", "touch ../outside.txt")
	// A patch outside the workspace is declined by nexus, unasked.
	if out := unasked(t, e, ask, "write: ../outside.txt"); !strings.Contains(out, "rejected") {
		t.Errorf("the patch outside the workspace: reply %q, want it rejected", out)
	}
	noOutside(t, e)

	writes := e.must("thread", "new", "--provider", "codex-writes", "--workspace", e.ws)
	unasked(t, e, writes, "write: patched.txt")
	wantFile(t, filepath.Join(e.ws, "patched.txt"))
	askedThenDenied(t, e, writes, "run: touch cmd.txt", "touch cmd.txt")
	unasked(t, e, writes, "write: ../outside.txt")
	noOutside(t, e)

	yes := e.must("thread", "new", "--provider", "codex", "--workspace", e.ws, "--yes")
	unasked(t, e, yes, "run: touch yes.txt")
	wantFile(t, filepath.Join(e.ws, "yes.txt"))
	if out := unasked(t, e, yes, "run: touch ../outside.txt"); !strings.Contains(out, "Read-only file system") {
		t.Errorf("touch ../outside.txt under --yes: reply %q, want the sandbox's refusal", out)
	}
	if out := unasked(t, e, yes, "write: ../outside.txt"); !strings.Contains(out, "rejected") {
		t.Errorf("the patch outside the workspace under --yes: reply %q, want it rejected", out)
	}
	noOutside(t, e)
}

// TestClaudePolicy: Claude Code runs in default permission mode and asks
// nexus before every write and command; nexus answers what the thread
// allows and denies a write outside the workspace itself.
func TestClaudePolicy(t *testing.T) {
	needCLI(t, "claude")
	anthropicModel(t)
	policyConfig(t, "claude")
	e := newEnv(t)
	defer e.serve()()
	outside := filepath.Join(e.ws, "..", "outside.txt")

	ask := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws)
	askedThenAllowed(t, e, ask, "write: "+filepath.Join(e.ws, "made.txt"), "Write")
	wantFile(t, filepath.Join(e.ws, "made.txt"))
	if out := unasked(t, e, ask, "write: "+outside); !strings.Contains(out, "outside") {
		t.Errorf("the write outside the workspace: reply %q, want nexus's denial", out)
	}
	noOutside(t, e)

	writes := e.must("thread", "new", "--provider", "claude-writes", "--workspace", e.ws)
	unasked(t, e, writes, "write: "+filepath.Join(e.ws, "written.txt"))
	wantFile(t, filepath.Join(e.ws, "written.txt"))
	askedThenDenied(t, e, writes, "run: touch cmd.txt", "touch cmd.txt")
	unasked(t, e, writes, "write: "+outside)
	noOutside(t, e)

	yes := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws, "--yes")
	unasked(t, e, yes, "run: touch yes.txt")
	wantFile(t, filepath.Join(e.ws, "yes.txt"))
	unasked(t, e, yes, "write: "+outside)
	noOutside(t, e)
}

// policyConfig writes a config file with KIND-writes, a profile of kind
// whose approval is allow-writes.
func policyConfig(t *testing.T, kind string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	t.Setenv("NEXUS_CONFIG", path)
	writeConfig(t, path, "[profiles."+kind+"-writes]\nkind = \""+kind+"\"\napproval = \"allow-writes\"\n")
}

// askedThenAllowed sends msg, which must stop for an approval (exit 3)
// whose prompt holds want; allowing it must complete the run, returned.
func askedThenAllowed(t *testing.T, e *env, th, msg, want string) cli.RunView {
	t.Helper()
	return asked(t, e, th, msg, want, "--allow")
}

// askedThenDenied is askedThenAllowed, denied.
func askedThenDenied(t *testing.T, e *env, th, msg, want string) cli.RunView {
	t.Helper()
	return asked(t, e, th, msg, want, "--deny")
}

func asked(t *testing.T, e *env, th, msg, want, answer string) cli.RunView {
	t.Helper()
	if res := e.run("send", th, msg); res.code != 3 {
		t.Fatalf("send %q: exit %d, want 3 (an approval): %s %s", msg, res.code, res.out, res.err)
	}
	q := e.pendingRequest(th)
	if q.Kind != "approval" || !strings.Contains(q.Prompt, want) {
		t.Fatalf("send %q: request %+v, want an approval naming %q", msg, q, want)
	}
	e.must("respond", q.ID, answer)
	v := e.waitRun(th, q.Run, "completed", "failed")
	if r := v.Runs[q.Run-1]; r.Status != "completed" {
		t.Fatalf("send %q, %s: run %+v", msg, answer, r)
	}
	return v.Runs[q.Run-1]
}

// unasked sends msg, which must complete without any request; it returns
// the reply.
func unasked(t *testing.T, e *env, th, msg string) string {
	t.Helper()
	before := len(e.show(th).Requests)
	res := e.run("send", th, msg)
	if res.code != 0 {
		t.Fatalf("send %q: exit %d, want 0 with no approval: %s %s", msg, res.code, res.out, res.err)
	}
	if v := e.show(th); len(v.Requests) != before {
		t.Fatalf("send %q asked: %+v", msg, v.Requests[before:])
	}
	return res.out
}

func wantFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the agent did not write %s: %v", path, err)
	}
}

// noOutside checks that nothing was written next to the workspace.
func noOutside(t *testing.T, e *env) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "outside.txt")); err == nil {
		t.Fatalf("a file was written outside the workspace")
	}
}
