package claude

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// Allow-writes: Claude Code runs in default permission mode, so it asks
// nexus before every edit and command; nexus allows a write inside the
// workspace itself, denies writes outside it without asking anyone, and
// asks the person about the command and the write that names no file.
func TestPolicyReachesClaude(t *testing.T) {
	p, sink, log := fake(t, "policy.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := agenttest.StartTurn("t1", "claude", "write")
	e.Turn.Workspace = ws
	e.Turn.Policy.Allow = []string{"write"}
	p.Handle(e)
	for _, tc := range []struct {
		key, action string
		resp        core.Response
	}{{"nofile", "write", core.RespDeny}, {"cmd", "command", core.RespAllow}} {
		q := sink.Wait(t, wait, "request "+tc.key, func(o core.Observation) bool { return o.Kind == core.ObsRequest && o.Key == tc.key })
		if q.Action != tc.action {
			t.Fatalf("request %s = %+v", tc.key, q)
		}
		p.Handle(core.Effect{Key: "R-" + tc.key, Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
			Request: &core.Request{Key: tc.key, Kind: core.RequestApproval, Response: tc.resp}})
	}
	sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	var requests, warnings int
	for _, o := range sink.All() {
		if o.Kind == core.ObsRequest {
			requests++
		}
		if o.Kind == core.ObsWarning && strings.Contains(o.Text, "outside the workspace") {
			warnings++
		}
	}
	if requests != 2 || warnings != 2 {
		t.Errorf("%d requests, %d warnings of a denied write; want 2 and 2\n%s", requests, warnings, sink.Dump())
	}
	if l := agenttest.Stop(t, p, sink, log); !strings.Contains(l, "--permission-prompt-tool stdio --permission-mode default") {
		t.Errorf("the CLI was not started in default permission mode:\n%s", l)
	}
}
