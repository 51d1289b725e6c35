package acp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// Allow-writes: nexus picks allow_once for an edit in the workspace
// itself (not allow_always: the thread's policy may change), rejects an
// edit that names a file outside it without asking anyone, and asks the
// person about a command.
func TestPolicyPicksThePermissionOption(t *testing.T) {
	p, sink, log := fake(t, "policy.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := turnIn(ws, "1", "edit")
	e.Turn.Policy.Allow = []string{"write"}
	p.Handle(e)
	q := sink.Wait(t, wait, "the command's approval", agenttest.Kind(core.ObsRequest))
	if q.Action != "command" || q.Parent != "tc4" {
		t.Fatalf("request = %+v, want the command's (the edits are answered by nexus)", q)
	}
	p.Handle(core.Effect{Key: "R1:answer", Kind: core.EffAnswer, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1",
		Request: &core.Request{Key: q.Key, Response: core.RespDeny}})
	sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	var requests, warnings int
	for _, o := range sink.All() {
		if o.Kind == core.ObsRequest {
			requests++
		}
		if o.Kind == core.ObsWarning && strings.Contains(o.Text, "is outside the workspace") {
			warnings++
		}
	}
	if requests != 1 || warnings != 2 {
		t.Errorf("%d requests, %d warnings of a rejected edit; want 1 and 2\n%s", requests, warnings, sink.Dump())
	}
	agenttest.Stop(t, p, sink, log)
}
