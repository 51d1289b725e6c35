package acp

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// Tool nodes name the files the agent wrote, relative to the workspace,
// so that a run's checkpoint lists them as the agent's: the writes nexus
// made for it (fs/write_text_file), on the edit call they belong to or a
// node of their own, and a completed edit's locations. A command keeps
// no path (its time window covers what it changed), and neither does a
// failed edit, a file outside the workspace, nor an edit call the last
// turn left open.
func TestToolNodesReportWrittenPaths(t *testing.T) {
	p, sink, log := fake(t, "paths.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := turnIn(ws, "1", "edit")
	e.Turn.Policy.Allow = []string{"write"}
	p.Handle(e)
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	e = turnIn(ws, "2", "again")
	e.Turn.Policy.Allow = []string{"write"}
	p.Handle(e)
	sink.Wait(t, wait, "the end of turn 2", func(o core.Observation) bool { return o.Kind == core.ObsTurnEnded && o.Run == "t1/2" })
	got := map[string][]string{} // the paths a node holds: the last reported
	for _, o := range sink.All() {
		if o.Kind == core.ObsNode && len(o.Paths) > 0 {
			got[o.Key] = o.Paths
		}
	}
	want := map[string][]string{
		"tc1": {"a.txt"}, "write:c.txt": {"c.txt"}, "tc4": {"sub/d.txt"},
		"tc5": {"e.txt"}, "tc6": {"f.txt"}, "write:g.txt": {"g.txt"}, "write:h.txt": {"h.txt"},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("node paths = %q\nwant %q\n%s", got, want, sink.Dump())
	}
	own := sink.Wait(t, wait, "the write's own node", func(o core.Observation) bool { return o.Key == "write:c.txt" })
	if own.NodeKind != core.NodeToolCall || own.NodeStatus != core.NodeCompleted || own.Title != "write c.txt" {
		t.Errorf("a write with no edit call to go on = %+v, want a completed tool node of its own", own)
	}
	agenttest.Stop(t, p, sink, log)
}
