package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nexus-tui/nexus/internal/cli"
)

// writeWS writes files into the env's workspace.
func (e *env) writeWS(files map[string]string) {
	e.t.Helper()
	for name, body := range files {
		p := filepath.Join(e.ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) readWS(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(e.ws, name))
	return string(b), err == nil
}

const demoReadme = "# Nexus Demo\n\nA small project.\n\n## Install\n\nRun make.\n"

// threadOf extracts the thread id from `nexus run`'s first line.
func threadOf(t *testing.T, out string) string {
	t.Helper()
	first, _, _ := strings.Cut(out, "\n")
	f := strings.Fields(first)
	if len(f) < 2 || f[0] != "Thread" {
		t.Fatalf("run did not print its thread first: %q", out)
	}
	return f[1]
}

func TestE2ERunSummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeWS(map[string]string{"README.md": demoReadme})
	out := e.must("run", "read README.md and write a summary to SUMMARY.md", "--yes")
	for _, want := range []string{"[LLM] sim -> ", "Plan: [read_file(README.md), write_file(SUMMARY.md)]",
		"Step 1/2: read_file README.md [CKPT]", "Step 2/2: write_file SUMMARY.md [CKPT]"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	sum, ok := e.readWS("SUMMARY.md")
	if !ok || !strings.Contains(sum, "Title: Nexus Demo") || !strings.Contains(sum, "Size: 54 bytes") {
		t.Fatalf("SUMMARY.md = %q", sum)
	}
	v := e.show(threadOf(t, out))
	llm := 0
	for _, n := range v.Runs[0].Nodes {
		if n.Kind == "llm_call" {
			llm++
		}
	}
	if llm != 3 {
		t.Fatalf("%d model calls journaled, want 3 (plan, after the read, after the write)", llm)
	}
}

// TestE2ERunApprovals: without --yes the write waits for approval; allow
// writes the file, deny completes without it and says so.
func TestE2ERunApprovals(t *testing.T) {
	t.Parallel()
	// The default: a background host keeps the run and its request
	// between the command that asked and the one that answers.
	e := backgroundEnv(t, "10m")
	e.writeWS(map[string]string{"README.md": demoReadme})
	r := e.run("run", "read README.md and write a summary to SUMMARY.md")
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("run without --yes: exit %d, out %q", r.code, r.out)
	}
	if _, ok := e.readWS("SUMMARY.md"); ok {
		t.Fatal("SUMMARY.md written before the approval")
	}
	e.must("respond", id, "--allow")
	th := threadOf(t, r.out)
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	if sum, ok := e.readWS("SUMMARY.md"); !ok || !strings.Contains(sum, "Nexus Demo") {
		t.Fatalf("after allow SUMMARY.md = %q", sum)
	}
	r = e.run("run", "write hello to notes.txt")
	id = requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("second run: exit %d out %q", r.code, r.out)
	}
	e.must("respond", id, "--deny")
	th = threadOf(t, r.out)
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	if _, ok := e.readWS("notes.txt"); ok {
		t.Fatal("notes.txt written although the write was denied")
	}
	if reply := e.show(th).Runs[0].Reply; !strings.Contains(reply, "denied") {
		t.Fatalf("reply does not say the write was denied: %q", reply)
	}
}

func TestE2ERunCommandFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.run("run", "run `echo hi; exit 3`", "--yes")
	if r.code != 1 || !strings.Contains(r.err, "exited with code 3") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	v := e.show(threadOf(t, r.out))
	var step *cli.NodeView
	for i, n := range v.Runs[0].Nodes {
		if n.Kind == "worker_step" {
			step = &v.Runs[0].Nodes[i]
		}
	}
	if step == nil || step.ExitCode != 3 || !strings.Contains(step.Text, "hi") || step.Status != "failed" {
		t.Fatalf("step node %+v", step)
	}
	if v.Runs[0].Status != "failed" || !strings.Contains(v.Runs[0].Reply, "exit code 3") {
		t.Fatalf("run %s, reply %q", v.Runs[0].Status, v.Runs[0].Reply)
	}
	// The todo list says the step failed, not that it is done.
	if len(v.Todos) != 1 || len(v.Todos[0].Items) != 1 || v.Todos[0].Items[0].Status != "failed" {
		t.Fatalf("todos %+v; want the one step failed", v.Todos)
	}
}

// TestE2ERunRefusesEscapes: paths outside the workspace are refused by the
// worker; the refusal is journaled and shown.
func TestE2ERunRefusesEscapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.ws), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"../secret.txt", outside, "link.txt"} {
		r := e.run("run", "read "+target, "--yes")
		if r.code != 1 {
			t.Errorf("read %s: exit %d, want 1; out %q", target, r.code, r.out)
			continue
		}
		v := e.show(threadOf(t, r.out))
		found := false
		for _, n := range v.Runs[0].Nodes {
			if n.Kind == "worker_step" && n.Status == "failed" && strings.Contains(n.Text, "refused") {
				found = true
			}
		}
		if !found || strings.Contains(v.Runs[0].Reply, "secret\n") || !strings.Contains(v.Runs[0].Reply, "refused") {
			t.Errorf("read %s: refusal not journaled and shown: %+v", target, v.Runs[0])
		}
	}
}

// TestE2EAllowAlways: "allow always" on one write lets the next write of
// the same thread run without asking.
func TestE2EAllowAlways(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	r := e.run("send", th, "write a to x.txt and write b to y.txt")
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("first write: exit %d out %q", r.code, r.out)
	}
	e.must("respond", id, "--allow-always")
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	v := e.show(th)
	if len(v.Requests) != 1 {
		t.Fatalf("%d requests, want 1: the second write must not ask", len(v.Requests))
	}
	for f, want := range map[string]string{"x.txt": "a\n", "y.txt": "b\n"} {
		if got, _ := e.readWS(f); got != want {
			t.Fatalf("%s = %q", f, got)
		}
	}
	// A later run of the same thread remembers it too.
	e.must("send", th, "write c to z.txt")
	if got, _ := e.readWS("z.txt"); got != "c\n" {
		t.Fatalf("z.txt = %q", got)
	}
}

func TestE2ETokenCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeWS(map[string]string{"README.md": demoReadme})
	r := e.run("run", "read README.md and summarize it", "--max-tokens", "120")
	if r.code != 1 || !strings.Contains(r.err, "token cap reached") || !strings.Contains(r.err, "--max-tokens") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	v := e.show(threadOf(t, r.out))
	calls := 0
	for _, n := range v.Runs[0].Nodes {
		if n.Kind == "llm_call" {
			calls++
		}
	}
	if calls == 0 || calls >= 3 {
		t.Fatalf("%d model calls before the cap stopped the run", calls)
	}
}

// TestE2EUnknownCommandOutcome kills the host while a command step runs:
// resume never reruns it silently; it asks, and deny skips it.
func TestE2EUnknownCommandOutcome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool { return strings.Contains(serve.so.String(), "serving") })
	th := e.must("thread", "new", "--yes")
	send := e.bg("send", th, "run `echo ran >> count.txt; sleep 4244`")
	eventually(t, "the command running", func() bool { return len(sleepers("4244")) > 0 })
	serve.c.Process.Signal(syscall.SIGKILL)
	serve.wait(t)
	send.wait(t)
	for _, pid := range sleepers("4244") {
		syscall.Kill(pid, syscall.SIGKILL) // the orphan of the killed host's worker
	}
	r := e.run("resume", th)
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" || !strings.Contains(r.err, "unknown") {
		t.Fatalf("resume: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	e.must("respond", id, "--deny")
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	if got, _ := e.readWS("count.txt"); got != "ran\n" {
		t.Fatalf("count.txt = %q: the command ran again", got)
	}
	if reply := e.show(th).Runs[0].Reply; !strings.Contains(reply, "skipped") {
		t.Fatalf("reply %q does not say the step was skipped", reply)
	}
}

// TestE2ESteerAtStepBoundary steers a slow multi-step plan: the new
// instruction is folded in at the next step boundary and the agent acts on
// it instead of the rest of the old plan.
func TestE2ESteerAtStepBoundary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes")
	// Slow enough that a loaded machine still steers before step 3.
	send := e.bg("send", th, "#slow=5s write one to a.txt and write two to b.txt and write three to c.txt")
	eventually(t, "step 1 running", func() bool {
		v := e.show(th)
		return len(v.Runs) == 1 && len(v.Todos) == 1
	})
	e.must("send", th, "write steered to s.txt", "--mode", "steer")
	if r := send.wait(t); r.code != 0 {
		t.Fatalf("send exit %d: %s", r.code, r.err)
	}
	r := e.show(th).Runs[0]
	if len(r.Attempts) != 1 || !strings.Contains(r.Reply, `acted on: "write steered to s.txt"; context: 2 messages`) {
		t.Fatalf("attempts %d, reply %q", len(r.Attempts), r.Reply)
	}
	if got, _ := e.readWS("s.txt"); got != "steered\n" {
		t.Fatalf("s.txt = %q: the steer was not acted on", got)
	}
	if _, ok := e.readWS("c.txt"); ok {
		t.Fatal("c.txt written: the old plan went on after the steer")
	}
}

func TestE2ERunJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := e.must("run", "list the files", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	types := map[string]bool{}
	for _, l := range lines {
		var ev struct {
			Seq  uint64 `json:"seq"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Seq == 0 {
			t.Fatalf("--json line is not a journal event: %q", l)
		}
		types[ev.Type] = true
	}
	for _, want := range []string{"run.updated", "effect.started", "effect.completed", "node.updated"} {
		if !types[want] {
			t.Errorf("no %s event in --json output", want)
		}
	}
}
