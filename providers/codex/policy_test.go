package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// Each nexus policy is one of Codex's approval policies; the sandbox is
// the same workspace-write one for all.
func TestApprovalPolicy(t *testing.T) {
	for _, tc := range []struct {
		allow []string
		want  string
	}{
		{nil, "untrusted"},                      // ask
		{[]string{"write"}, "untrusted"},        // allow-writes
		{[]string{"command"}, "never"},          // allow-commands
		{[]string{"write", "command"}, "never"}, // allow-all, --yes
	} {
		if got := approvalPolicy(core.Policy{Allow: tc.allow}); got != tc.want {
			t.Errorf("approvalPolicy(%q) = %q, want %q", tc.allow, got, tc.want)
		}
	}
}

// Allow-writes on a real thread: the policy goes with thread/start and
// turn/start (see the script), a patch in the workspace is accepted
// without asking, one that leaves it is declined without asking, and
// patches whose files are not known and every command are asked about.
func TestPolicyReachesCodex(t *testing.T) {
	p, sink, log := fake(t, "policy.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := agenttest.StartTurn("t1", "codex", "write")
	e.Turn.Workspace = ws
	e.Turn.Policy.Allow = []string{"write"}
	p.Handle(e)

	q := sink.Wait(t, wait, "the unknown patch's approval", agenttest.Kind(core.ObsRequest))
	if q.Key != "12" || q.Action != "write" || q.Prompt != "Allow Codex to change files?" {
		t.Fatalf("first request = %+v, want the patch whose files nexus does not know", q)
	}
	a := effect(core.EffAnswer, "R1:answer", 1)
	a.Request = &core.Request{Key: "12", Response: core.RespAllow}
	p.Handle(a)
	q = sink.Wait(t, wait, "the empty patch's approval", func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Key == "14" })
	if q.Prompt != "Allow Codex to change files?" {
		t.Fatalf("empty patch request = %+v", q)
	}
	a = effect(core.EffAnswer, "R3:answer", 1)
	a.Request = &core.Request{Key: "14", Response: core.RespDeny}
	p.Handle(a)
	q = sink.Wait(t, wait, "the command's approval", func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Key == "13" })
	if q.Action != "command" {
		t.Fatalf("command request = %+v", q)
	}
	d := effect(core.EffAnswer, "R2:answer", 1)
	d.Request = &core.Request{Key: "13", Response: core.RespDeny}
	p.Handle(d)
	sink.Wait(t, wait, "the end of turn 1", agenttest.Kind(core.ObsTurnEnded))
	var requests int
	var warned bool
	for _, o := range sink.All() {
		requests += boolInt(o.Kind == core.ObsRequest)
		warned = warned || o.Kind == core.ObsWarning && strings.Contains(o.Text, "outside.txt: it is outside the workspace")
	}
	if requests != 3 || !warned {
		t.Errorf("%d requests (want 3: no patch in or out of the workspace asks), warned of the declined patch: %v\n%s",
			requests, warned, sink.Dump())
	}

	e2 := agenttest.StartTurn("t1", "codex", "go on")
	e2.Run, e2.Attempt, e2.Key = "t1/2", "t1/2/a1", "t1/2/a1:turn"
	e2.Turn.Workspace = ws
	e2.Turn.Policy.Allow = []string{"write", "command"}
	p.Handle(e2)
	sink.Wait(t, wait, "the end of turn 2", func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == "t1/2" })
	agenttest.Stop(t, p, sink, log)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
