package codex

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// A fileChange item that completed names the files it changed, relative
// to the workspace, on its node: a run's checkpoint lists them as the
// agent's. A failed or declined patch, paths outside the workspace and
// commands name none, and are left to the time windows.
func TestFileChangesReportTheirPaths(t *testing.T) {
	p, sink, log := fake(t, "write.txt", agentproc.Settings{})
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	e := agenttest.StartTurn("t1", "codex", "write")
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
			t.Errorf("node %s names paths before its patch applied: %q", o.Key, o.Paths)
		}
	}
	for key, want := range map[string][]string{
		"fc-1": {"new.go", "old.go", "moved.go", "gone.txt"}, "fc-2": nil, "fc-3": nil, "call-1": nil,
	} {
		if paths, ok := got[key]; !ok || !slices.Equal(paths, want) {
			t.Errorf("node %s paths = %q (closed %v), want %q", key, paths, ok, want)
		}
	}
	agenttest.Stop(t, p, sink, log)
}
