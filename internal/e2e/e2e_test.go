package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/cli"
)

func TestE2ESendHello(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	out := e.must("send", th, "hello")
	if !strings.Contains(out, `[sim] acted on: "hello"; context: 1 messages`) {
		t.Fatalf("send printed %q", out)
	}
	v := e.show(th)
	if len(v.Runs) != 1 || v.Runs[0].Status != "completed" {
		t.Fatalf("runs: %+v", v.Runs)
	}
	r := v.Runs[0]
	if len(r.Attempts) != 1 || r.Attempts[0].Reason != "initial" || r.Attempts[0].Status != "completed" {
		t.Fatalf("attempts: %+v", r.Attempts)
	}
	if len(r.Nodes) == 0 || r.Nodes[0].Kind != "root_turn" || r.Nodes[0].Status != "completed" {
		t.Fatalf("nodes: %+v", r.Nodes)
	}
	if !strings.Contains(r.Reply, "hello") {
		t.Fatalf("reply %q", r.Reply)
	}
}

// TestE2ESteer steers a slow run from a second process: one attempt, and
// the reply acted on the steering text.
func TestE2ESteer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	slow := e.bg("send", th, "#slow=7s count to ten") // time for a loaded machine to steer it
	// The turn must have begun: until the thread's baseline checkpoint
	// is captured (slow on a busy machine), a steer joins the run's
	// instructions instead of restarting it.
	eventually(t, "run 1's turn started", func() bool {
		v := e.show(th)
		if len(v.Runs) != 1 || v.Runs[0].Status != "running" {
			return false
		}
		for _, cp := range v.Checkpoints {
			if cp.Scope == "base" && cp.Status == "ready" {
				return true
			}
		}
		return false
	})
	e.must("send", th, "use roman numerals", "--mode", "steer")
	res := slow.wait(t)
	if res.code != 0 {
		t.Fatalf("slow send exit %d: %s", res.code, res.err)
	}
	v := e.show(th)
	r := v.Runs[0]
	if r.Status != "completed" || len(r.Attempts) != 1 {
		t.Fatalf("run: status %s, %d attempts", r.Status, len(r.Attempts))
	}
	if !strings.Contains(r.Reply, `acted on: "use roman numerals"; context: 2 messages`) {
		t.Fatalf("reply did not act on the steer: %q", r.Reply)
	}
}

// TestE2ERestartNoSteer: a provider without steering restarts the run as a
// second attempt with reason steering_restart.
func TestE2ERestartNoSteer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--provider", "builtin:nosteer")
	slow := e.bg("send", th, "#slow=7s count to ten") // time for a loaded machine to steer it
	// The turn must have begun: until the thread's baseline checkpoint
	// is captured (slow on a busy machine), a steer joins the run's
	// instructions instead of restarting it.
	eventually(t, "run 1's turn started", func() bool {
		v := e.show(th)
		if len(v.Runs) != 1 || v.Runs[0].Status != "running" {
			return false
		}
		for _, cp := range v.Checkpoints {
			if cp.Scope == "base" && cp.Status == "ready" {
				return true
			}
		}
		return false
	})
	e.must("send", th, "use roman numerals", "--mode", "steer")
	if res := slow.wait(t); res.code != 0 {
		t.Fatalf("slow send exit %d: %s", res.code, res.err)
	}
	r := e.show(th).Runs[0]
	if r.Status != "completed" || len(r.Attempts) != 2 {
		t.Fatalf("run: status %s, attempts %+v", r.Status, r.Attempts)
	}
	if a := r.Attempts[0]; a.Status != "superseded" && a.Status != "interrupted" {
		t.Fatalf("first attempt %+v", a)
	}
	if a := r.Attempts[1]; a.Reason != "steering_restart" || a.Status != "completed" {
		t.Fatalf("second attempt %+v", a)
	}
	if !strings.Contains(r.Reply, `acted on: "use roman numerals"; context: 2 messages`) {
		t.Fatalf("reply %q", r.Reply)
	}
}

func TestE2EQueueHoldRelease(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	slow := e.bg("send", th, "#slow=8s first")
	var last cli.ThreadView
	eventually(t, "run 1 running", func() bool {
		select {
		case <-slow.done:
			t.Fatalf("the slow send ended before run 1 was seen running; runs %+v\nstdout: %s\nstderr: %s",
				last.Runs, slow.so.String(), slow.se.String())
		default:
		}
		last = e.show(th)
		return len(last.Runs) == 1 && last.Runs[0].Status == "running"
	})
	e.must("send", th, "second", "--mode", "queue", "--no-wait")
	v := e.show(th)
	if v.Runs[1].Status != "queued" {
		t.Fatalf("run 2 is %s while run 1 runs, want queued", v.Runs[1].Status)
	}
	e.must("queue", th, "hold", "2")
	if res := slow.wait(t); res.code != 0 {
		t.Fatalf("slow send exit %d: %s", res.code, res.err)
	}
	v = e.show(th)
	if v.Runs[0].Status != "completed" || v.Runs[1].Status != "queued" || !v.Runs[1].Held {
		t.Fatalf("after run 1: %s / %s held=%v", v.Runs[0].Status, v.Runs[1].Status, v.Runs[1].Held)
	}
	if out := e.must("queue", th, "list"); !strings.Contains(out, "second") {
		t.Fatalf("queue list: %q", out)
	}
	e.must("queue", th, "release", "2")
	eventually(t, "run 2 completed", func() bool { return e.show(th).Runs[1].Status == "completed" })
	if r := e.show(th).Runs[1]; !strings.Contains(r.Reply, "context: 2 messages") {
		t.Fatalf("run 2 reply %q", r.Reply)
	}
}

func TestE2EInterrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	slow := e.bg("send", th, "#slow=20s long")
	eventually(t, "run 1 running", func() bool {
		v := e.show(th)
		return len(v.Runs) == 1 && v.Runs[0].Status == "running"
	})
	e.must("send", th, "after", "--mode", "queue", "--no-wait")
	start := time.Now()
	e.must("interrupt", th, "--hold-queue")
	res := slow.wait(t)
	if res.code != 1 || !strings.Contains(res.err, "interrupted") {
		t.Fatalf("interrupted send: exit %d, stderr %q", res.code, res.err)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatal("the run did not end soon after the interrupt")
	}
	v := e.show(th)
	if v.Runs[0].Status != "interrupted" || v.Runs[0].Attempts[0].Status != "interrupted" {
		t.Fatalf("run 1: %+v", v.Runs[0])
	}
	if v.Runs[1].Status != "queued" || !v.QueueHeld {
		t.Fatalf("run 2 %s, queue held %v: --hold-queue must keep it queued", v.Runs[1].Status, v.QueueHeld)
	}
}

func TestE2EApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	r := e.run("send", th, "#approve deploy it")
	if r.code != 3 {
		t.Fatalf("send #approve: exit %d, want 3; stderr %s", r.code, r.err)
	}
	id := requestIDRE.FindString(r.out)
	if id == "" {
		t.Fatalf("no request id printed: %q", r.out)
	}
	if out := e.must("requests"); !strings.Contains(out, id) {
		t.Fatalf("requests does not list %s: %q", id, out)
	}
	e.must("respond", id, "--allow")
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	if reply := e.show(th).Runs[0].Reply; !strings.Contains(reply, "Approval granted") {
		t.Fatalf("reply %q", reply)
	}
	again := e.run("respond", id, "--allow")
	if again.code != 1 || !strings.Contains(again.err, "already") || strings.Count(again.err, "\n") != 1 {
		t.Fatalf("second respond: exit %d, stderr %q", again.code, again.err)
	}
	unknown := e.run("respond", "R999", "--deny")
	if unknown.code != 1 || !strings.Contains(unknown.err, "unknown request") {
		t.Fatalf("unknown respond: exit %d, stderr %q", unknown.code, unknown.err)
	}
	// Deny: the run completes with the denial recorded.
	r = e.run("send", th, "#approve drop the table")
	id = requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("second approval: exit %d out %q", r.code, r.out)
	}
	e.must("respond", id, "--deny")
	eventually(t, "run 2 completed", func() bool { return e.show(th).Runs[1].Status == "completed" })
	v := e.show(th)
	if !strings.Contains(v.Runs[1].Reply, "denied") {
		t.Fatalf("reply %q does not record the denial", v.Runs[1].Reply)
	}
	for _, q := range v.Requests {
		if q.ID == id && q.Response != "deny" {
			t.Fatalf("request %+v", q)
		}
	}
}

func TestE2EQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	r := e.run("send", th, "#ask=Which colour? paint the shed")
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("send #ask: exit %d out %q err %q", r.code, r.out, r.err)
	}
	e.must("respond", id, "--answer", "blue")
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	if reply := e.show(th).Runs[0].Reply; !strings.Contains(reply, "blue") {
		t.Fatalf("reply %q lacks the answer", reply)
	}
}

func TestE2EFork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new")
	e.must("send", th, "one")
	e.must("send", th, "two")
	fork := e.must("thread", "fork", th, "--run", "1")
	out := e.must("send", fork, "three")
	if !strings.Contains(out, "context: 2 messages") {
		t.Fatalf("fork of run 1 must see run 1 only: %q", out)
	}
	v := e.show(fork)
	if v.ForkedFrom != th || v.ForkRun != 1 {
		t.Fatalf("lineage %s@%d", v.ForkedFrom, v.ForkRun)
	}
	// Forking a running run uses its latest completed point.
	slow := e.bg("send", th, "#slow=3s four")
	eventually(t, "run 3 running", func() bool {
		v := e.show(th)
		return len(v.Runs) == 3 && v.Runs[2].Status == "running"
	})
	f2 := e.must("thread", "fork", th, "--run", "3")
	if v := e.show(f2); v.ForkRun != 2 {
		t.Fatalf("fork of a running run 3 starts at run %d, want 2", v.ForkRun)
	}
	slow.wait(t)
}

// TestE2EApprovalLiveHost answers requests while the host that runs the
// agent stays up (`nexus serve`): the answer reaches the live turn.
func TestE2EApprovalLiveHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool { return strings.Contains(serve.so.String(), "serving") })
	th := e.must("thread", "new")
	r := e.run("send", th, "#ask=Which colour? #approve paint")
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("send: exit %d out %q err %q", r.code, r.out, r.err)
	}
	// respond waits like send: the run goes on to its question, and
	// respond exits 3 with that request's id.
	r = e.run("respond", id, "--allow")
	q := requestIDRE.FindString(r.out)
	if r.code != 3 || q == "" || q == id {
		t.Fatalf("respond --allow: exit %d out %q err %q; want exit 3 and the question's id", r.code, r.out, r.err)
	}
	if v := e.show(th); len(v.Requests) != 2 || v.Requests[1].ID != q || v.Requests[1].Kind != "user_input" {
		t.Fatalf("requests after the approval: %+v; want the question %s", v.Requests, q)
	}
	e.must("respond", q, "--answer", "green")
	eventually(t, "run completed", func() bool { return e.show(th).Runs[0].Status == "completed" })
	run := e.show(th).Runs[0]
	if len(run.Attempts) != 1 {
		t.Fatalf("a live host answered through %d attempts, want 1 (no recovery needed)", len(run.Attempts))
	}
	if !strings.Contains(run.Reply, "Approval granted") || !strings.Contains(run.Reply, "green") {
		t.Fatalf("reply %q", run.Reply)
	}
	serve.c.Process.Signal(syscall.SIGTERM)
	serve.wait(t)
}

// A workspace that contains the state dir is refused with the reason and
// what to do: every agent could read the journal there. Nothing is
// journaled.
func TestE2EWorkspaceHoldingTheStateDirIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	parent := filepath.Dir(e.dir)
	r := e.run("thread", "new", "--workspace", parent)
	if r.code == 0 || !strings.Contains(r.err, "contains nexus's state dir") || !strings.Contains(r.err, "NEXUS_STATE_DIR") {
		t.Fatalf("thread new in a workspace holding the state dir: exit %d %q", r.code, r.err)
	}
	if out := e.must("thread", "list"); len(strings.Split(strings.TrimSpace(out), "\n")) > 1 {
		t.Fatalf("a thread was journaled anyway:\n%s", out)
	}
}
