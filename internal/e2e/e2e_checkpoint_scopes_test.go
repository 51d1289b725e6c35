package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
)

// findCheckpoint is the thread's checkpoint of a scope, or nil.
func findCheckpoint(v cli.ThreadView, scope string) *core.Checkpoint {
	for i := range v.Checkpoints {
		if v.Checkpoints[i].Scope == scope {
			return &v.Checkpoints[i]
		}
	}
	return nil
}

// A subagent that writes a file gets a checkpoint of its own; rolling
// back to that node undoes the later run and keeps what the subagent did.
func TestE2ESubagentCheckpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	head := git(t, e.ws, "rev-parse", "HEAD")
	th := e.must("thread", "new", "--yes")
	e.must("send", th, "#subagent write hello to a.txt")
	e.must("send", th, "#subagent read a.txt and summarize it")
	v := e.show(th)
	var sub, step cli.NodeView
	for _, n := range v.Runs[0].Nodes {
		switch {
		case n.Kind == core.NodeSubagent:
			sub = n
		case n.Kind == core.NodeWorkerStep && n.Action == "write_file":
			step = n
		}
	}
	if sub.ID == "" || step.Parent != sub.ID {
		t.Fatalf("run 1: want a write_file step under a subagent node, got nodes %+v", v.Runs[0].Nodes)
	}
	scope := core.NodeScope(th, sub.ID)
	cp := findCheckpoint(v, scope)
	if cp == nil || cp.Status != core.CkReady || cp.Node != sub.ID || cp.Run != 1 ||
		len(cp.Files) != 1 || cp.Files[0].Path != "a.txt" || cp.Files[0].Status != "A" {
		t.Fatalf("checkpoint of the subagent: %+v (all: %+v)", cp, v.Checkpoints)
	}
	ref := "refs/nexus/checkpoints/" + th + "/" + scope
	if got := strings.TrimSpace(git(t, e.ws, "rev-parse", ref)); got != cp.Commit {
		t.Fatalf("%s = %s, journal says %s", ref, got, cp.Commit)
	}
	// Run 2's subagent only read: it has no checkpoint.
	for _, c := range v.Checkpoints {
		if c.Node != "" && c.Run == 2 {
			t.Fatalf("a reading subagent got checkpoint %+v", c)
		}
	}
	if out := e.must("thread", "show", th); !strings.Contains(out, scope) || !strings.Contains(out, "subagent "+sub.ID) {
		t.Fatalf("thread show does not list the node checkpoint:\n%s", out)
	}

	e.must("send", th, "write bye to b.txt")
	out := e.must("rollback", th, "--to-node", sub.ID)
	if !strings.Contains(out, "to "+cp.ID+" (run 1)") || !strings.Contains(out, "the files equal run 1's checkpoint") {
		t.Fatalf("rollback --to-node said %q", out)
	}
	if a, _ := e.readWS("a.txt"); a != "hello\n" {
		t.Fatalf("a.txt = %q after the node rollback", a)
	}
	if _, ok := e.readWS("b.txt"); ok {
		t.Fatal("b.txt survived the node rollback")
	}
	v = e.show(th)
	if v.Runs[1].Status != core.RunRolledBack || v.Runs[2].Status != core.RunRolledBack {
		t.Fatalf("runs after the node rollback: %s %s %s", v.Runs[0].Status, v.Runs[1].Status, v.Runs[2].Status)
	}
	if git(t, e.ws, "rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
	// A node that has no checkpoint: a clear refusal, nothing changed.
	r := e.run("rollback", th, "--to-node", v.Runs[1].Nodes[0].ID)
	if r.code != cli.ExitFailed || !strings.Contains(r.err, "has no checkpoint") {
		t.Fatalf("rollback to a node without checkpoint: exit %d, %q", r.code, r.err)
	}
	if r := e.run("rollback", th, "--to-node", th+"/9/a1/n1"); r.code != cli.ExitFailed || !strings.Contains(r.err, "has no node") {
		t.Fatalf("rollback to an unknown node: exit %d, %q", r.code, r.err)
	}
}

// A mark keeps the person's own edit between runs; rolling back to it
// says that the files differ from the run's checkpoint, and rolling back
// to the run brings that checkpoint back. Works without git in the
// workspace too.
func TestE2EMarkCheckpoint(t *testing.T) {
	t.Parallel()
	for _, repo := range []bool{true, false} {
		name := "plain"
		if repo {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if repo {
				e.initRepo(map[string]string{"kept.txt": "committed\n"})
			}
			th := e.must("thread", "new", "--yes")
			if r := e.run("checkpoint", th, "extra"); r.code != cli.ExitUsage {
				t.Fatalf("checkpoint with two arguments: exit %d %q", r.code, r.err)
			}
			e.must("send", th, "write one to a.txt")
			e.writeWS(map[string]string{"mine.txt": "my own edit\n"})
			out := e.must("checkpoint", th)
			want := "checkpoint " + core.CheckpointID(th, core.MarkScope(1)) + " ready"
			if !strings.Contains(out, want) || !strings.Contains(out, "1 file(s) changed since the last checkpoint: mine.txt") {
				t.Fatalf("checkpoint said %q, want %q and mine.txt", out, want)
			}
			// A second mark holds only what changed since the first.
			e.writeWS(map[string]string{"mine.txt": "my second edit\n"})
			if out := e.must("checkpoint", th); !strings.Contains(out, "1 file(s) changed since the last checkpoint: mine.txt") {
				t.Fatalf("the second mark said %q", out)
			}
			e.must("send", th, "write two to b.txt")
			// Run 2 started from mark/2: its files are its own.
			if c := findCheckpoint(e.show(th), core.RunScope(2)); c == nil || len(c.Files) != 1 || c.Files[0].Path != "b.txt" {
				t.Fatalf("run 2 after two marks: checkpoint %+v, want b.txt alone", c)
			}
			diff := e.must("diff", th, "--from", "1", "--to", "mark/1")
			if !strings.Contains(diff, "A mine.txt | +1 -0") || !strings.Contains(diff, "+my own edit") || strings.Contains(diff, "b.txt") {
				t.Fatalf("diff from run 1 to mark/1:\n%s", diff)
			}
			diff = e.must("diff", th, "--from", "base", "--to", core.CheckpointID(th, core.RunScope(2)), "--stat")
			for _, want := range []string{"A a.txt", "A b.txt", "A mine.txt", "3 file(s) changed"} {
				if !strings.Contains(diff, want) {
					t.Fatalf("diff from base to run 2 lacks %q:\n%s", want, diff)
				}
			}
			if r := e.run("diff", th, "--from", "mark/7", "--to", "1"); r.code != cli.ExitFailed || !strings.Contains(r.err, "no checkpoint \"mark/7\"") {
				t.Fatalf("diff from an unknown checkpoint: exit %d %q", r.code, r.err)
			}
			if r := e.run("diff", th, "--from", "1"); r.code != cli.ExitUsage {
				t.Fatalf("diff with --from alone: exit %d %q", r.code, r.err)
			}
			out = e.must("rollback", th, "--to-checkpoint", "mark/1")
			if !strings.Contains(out, "the workspace now differs from run 1's checkpoint") {
				t.Fatalf("rollback to the mark said %q", out)
			}
			if m, _ := e.readWS("mine.txt"); m != "my own edit\n" {
				t.Fatalf("mine.txt = %q after rolling back to the mark", m)
			}
			if _, ok := e.readWS("b.txt"); ok {
				t.Fatal("b.txt survived the rollback to the mark")
			}
			if v := e.show(th); v.Runs[1].Status != core.RunRolledBack {
				t.Fatalf("run 2 is %s after the rollback to the mark", v.Runs[1].Status)
			}
			// The next run starts from the mark: its files are its own.
			e.must("send", th, "write three to c.txt")
			if c := findCheckpoint(e.show(th), core.RunScope(3)); c == nil || len(c.Files) != 1 || c.Files[0].Path != "c.txt" {
				t.Fatalf("run 3 after the rollback to the mark: checkpoint %+v, want c.txt alone", c)
			}
			e.must("rollback", th, "--to-run", "1")
			if _, ok := e.readWS("c.txt"); ok {
				t.Fatal("c.txt is still there after rolling back to run 1")
			}
			if _, ok := e.readWS("mine.txt"); ok {
				t.Fatal("mine.txt is still there after rolling back to run 1")
			}
			if a, _ := e.readWS("a.txt"); a != "one\n" {
				t.Fatalf("a.txt = %q after rolling back to run 1", a)
			}
			if r := e.run("rollback", th, "--to-checkpoint", "mark/9"); r.code != cli.ExitFailed || !strings.Contains(r.err, "no checkpoint") {
				t.Fatalf("rollback to an unknown mark: exit %d %q", r.code, r.err)
			}
			if r := e.run("rollback", th, "--to-run", "1", "--to-checkpoint", "mark/1"); r.code != cli.ExitUsage {
				t.Fatalf("two rollback targets: exit %d %q", r.code, r.err)
			}
			if !repo {
				ents, err := os.ReadDir(e.ws)
				if err != nil || len(ents) != 1 || ents[0].Name() != "a.txt" {
					t.Fatalf("the plain workspace holds %v (%v): only the agent's a.txt belongs there", ents, err)
				}
			}
		})
	}
}
