package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// TestE2ECheckpointFiles: each run's checkpoint records the files the run
// changed with line counts (the baseline none, and not the user's own
// files that were there before run 1); `thread show --json` prints them
// under stable names, and a later process, replaying the journal from its
// snapshot, shows exactly the same.
func TestE2ECheckpointFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	e.writeWS(map[string]string{"mine.txt": "the user's untracked file\n"})
	th := e.must("thread", "new", "--yes")
	e.must("send", th, "write hello to a.txt")
	e.must("send", th, "replace hello with bye in a.txt and write bee to b.txt")

	want := map[string]string{
		"base": "",
		"run1": "a.txt A +1 -0",
		"run2": "a.txt M +1 -1, b.txt A +1 -0",
	}
	check := func(when string) string {
		raw := e.must("thread", "show", th, "--json")
		v := e.show(th)
		if len(v.Checkpoints) != len(want) {
			t.Fatalf("%s: %d checkpoints, want %d: %+v", when, len(v.Checkpoints), len(want), v.Checkpoints)
		}
		for _, c := range v.Checkpoints {
			if c.Status != core.CkReady || c.Reason != "" || c.MoreFiles != 0 {
				t.Fatalf("%s: checkpoint %s: %+v", when, c.Scope, c)
			}
			if got := describeFiles(c.Files); got != want[c.Scope] {
				t.Errorf("%s: checkpoint %s files %q, want %q", when, c.Scope, got, want[c.Scope])
			}
		}
		return raw
	}
	before := check("first show")
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(before)); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"files":[{"path":"a.txt","status":"M","added":1,"deleted":1,"binary":false,"by":"agent"}`,
		`{"path":"b.txt","status":"A","added":1,"deleted":0,"binary":false,"by":"agent"}],"own":true`} {
		if !strings.Contains(compact.String(), field) {
			t.Fatalf("thread show --json lacks %s:\n%s", field, before)
		}
	}
	// The snapshots equal a full replay, files included, and the next
	// process starts from one of them.
	if out := e.must("verify"); !strings.Contains(out, "snapshot(s) equal to a full replay") || strings.Contains(out, " 0 snapshot(s)") {
		t.Fatalf("verify: %s", out)
	}
	if after := check("after verify"); after != before {
		t.Fatalf("a new process shows different checkpoints:\n%s\nwas\n%s", after, before)
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
