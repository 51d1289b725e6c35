package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// TestCheckpointerFiles: a run's capture reports the files it changed
// against the parent the effect names (the empty tree for none), the
// baseline reports none, and a file list that cannot be computed leaves
// the checkpoint ready, without files, with the reason in Error.
func TestCheckpointerFiles(t *testing.T) {
	ws := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &checkpointer{m: checkpoint.New(t.TempDir(), checkpoint.Options{}), ctx: context.Background()}
	capture := func(scope, parent string) core.Observation {
		t.Helper()
		o := c.capture(core.Effect{Kind: core.EffCheckpoint, Thread: "t1", Scope: scope, Workspace: ws, Commit: parent})
		if o.CheckpointStatus != core.CkReady || o.Commit == "" || !strings.HasPrefix(o.Ref, "refs/nexus/checkpoints/t1/") || o.Key != scope {
			t.Fatalf("%s: capture reported %+v", scope, o)
		}
		return o
	}
	write("a.txt", "one\n")
	base := capture(core.ScopeBase, "")
	if base.Files != nil || base.Error != "" {
		t.Fatalf("baseline files %+v, error %q", base.Files, base.Error)
	}
	write("a.txt", "two\n")
	write("b.txt", "bee\nbee\n")
	run1 := capture(core.RunScope(1), base.Commit)
	if got := describeFiles(run1.Files); got != "a.txt M +1 -1, b.txt A +2 -0" || run1.Error != "" {
		t.Fatalf("run 1 files %q, error %q", got, run1.Error)
	}
	if run2 := capture(core.RunScope(2), run1.Commit); run2.Files != nil || run2.Error != "" {
		t.Fatalf("run 2 changed nothing, yet files %+v, error %q", run2.Files, run2.Error)
	}
	if run3 := capture(core.RunScope(3), ""); describeFiles(run3.Files) != "a.txt A +1 -0, b.txt A +2 -0" {
		t.Fatalf("run 3 with no parent: files %+v", run3.Files)
	}
	run4 := capture(core.RunScope(4), strings.Repeat("0", 40))
	if run4.Files != nil || !strings.Contains(run4.Error, "file list is not recorded") {
		t.Fatalf("run 4 with a missing parent: files %+v, error %q", run4.Files, run4.Error)
	}
}
func describeFiles(files []core.FileChange) string {
	var s []string
	for _, f := range files {
		d := fmt.Sprintf("%s %s +%d -%d", f.Path, f.Status, f.Added, f.Deleted)
		if f.Binary {
			d += " binary"
		}
		s = append(s, d)
	}
	return strings.Join(s, ", ")
}
