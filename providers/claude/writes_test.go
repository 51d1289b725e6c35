package claude

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// A write tool's node names the file it wrote, relative to the
// workspace, once the tool succeeded: a run's checkpoint lists it as the
// agent's. Other tools, failed writes and files outside the workspace
// name none, and are left to the time windows.
func TestWriteToolsReportTheirPaths(t *testing.T) {
	p, sink, log := fake(t, "write.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := agenttest.StartTurn("t1", "claude", "write")
	e.Turn.Workspace = ws
	p.Handle(e)
	end := sink.Wait(t, wait, "the end of the turn", agenttest.Kind(core.ObsTurnEnded))
	if end.TurnStatus != core.AttemptCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	got := map[string][]string{}
	for _, o := range sink.All() {
		if o.Kind == core.ObsNode && o.NodeStatus != core.NodeRunning {
			got[o.Key] = o.Paths
		}
		if o.Kind == core.ObsNode && o.NodeStatus == core.NodeRunning && len(o.Paths) > 0 {
			t.Errorf("node %s names paths before its tool succeeded: %q", o.Key, o.Paths)
		}
	}
	for key, want := range map[string][]string{
		"tu1": {"src/a.go"}, "tu2": {"b.txt"}, "tu3": nil, "tu4": {"nb.ipynb"},
		"tu5": nil, "tu6": nil, "tu7": {"e.txt"}, "task1": nil,
	} {
		if paths, ok := got[key]; !ok || !slices.Equal(paths, want) {
			t.Errorf("node %s paths = %q (closed %v), want %q", key, paths, ok, want)
		}
	}
	agenttest.Stop(t, p, sink, log)
}
