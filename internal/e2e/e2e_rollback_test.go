package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// initRepo makes the workspace a git repository whose first commit holds
// files.
func (e *env) initRepo(files map[string]string) {
	e.t.Helper()
	git(e.t, e.ws, "init", "-q")
	e.writeWS(files)
	git(e.t, e.ws, "add", "-A")
	git(e.t, e.ws, "commit", "-q", "-m", "init")
}

// rollbackFlow runs the flow: run 1 writes a.txt; run 2 edits it
// and adds b.txt; diff of run 2; rollback to run 1.
func rollbackFlow(t *testing.T, e *env) string {
	t.Helper()
	th := e.must("thread", "new", "--yes")
	e.must("send", th, "write one to a.txt")
	e.must("send", th, "replace one with two in a.txt and write bee to b.txt")
	diff := e.must("diff", th, "--run", "2")
	for _, want := range []string{"M a.txt | +1 -1", "A b.txt | +1 -0", "-one", "+two", "+bee"} {
		if !strings.Contains(diff, want) {
			t.Fatalf("diff of run 2 lacks %q:\n%s", want, diff)
		}
	}
	out := e.must("rollback", th, "--to-run", "1")
	if !strings.Contains(out, "rolled back") {
		t.Fatalf("rollback said %q", out)
	}
	if a, _ := e.readWS("a.txt"); a != "one\n" {
		t.Fatalf("a.txt = %q after rollback, want one", a)
	}
	if _, ok := e.readWS("b.txt"); ok {
		t.Fatal("b.txt survived the rollback")
	}
	v := e.show(th)
	if v.Runs[0].Status != "completed" || v.Runs[1].Status != "rolled_back" {
		t.Fatalf("runs after rollback: %s, %s", v.Runs[0].Status, v.Runs[1].Status)
	}
	// The agent's context no longer has run 2.
	if out := e.must("send", th, "list the files"); !strings.Contains(out, "context: 2 messages") {
		t.Fatalf("context after rollback: %q", out)
	}
	return th
}

func TestE2ERollbackGit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initRepo(map[string]string{"kept.txt": "committed\n"})
	e.writeWS(map[string]string{"staged.txt": "staged change\n"})
	git(t, e.ws, "add", "staged.txt")
	head, branches := git(t, e.ws, "rev-parse", "HEAD"), git(t, e.ws, "branch", "-a")
	index, _ := os.ReadFile(filepath.Join(e.ws, ".git", "index"))
	rollbackFlow(t, e)
	if git(t, e.ws, "rev-parse", "HEAD") != head || git(t, e.ws, "branch", "-a") != branches {
		t.Fatal("HEAD or branches changed")
	}
	if after, _ := os.ReadFile(filepath.Join(e.ws, ".git", "index")); string(after) != string(index) {
		t.Fatal("the user's index changed")
	}
	if st := git(t, e.ws, "diff", "--cached", "--name-only"); strings.TrimSpace(st) != "staged.txt" {
		t.Fatalf("staged changes now %q", st)
	}
	git(t, e.ws, "fsck", "--strict")
	if refs := git(t, e.ws, "for-each-ref", "refs/nexus/"); !strings.Contains(refs, "refs/nexus/checkpoints/") {
		t.Fatalf("no checkpoint refs: %q", refs)
	}
}

func TestE2ERollbackNonGit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rollbackFlow(t, e)
	var names []string
	filepath.Walk(e.ws, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != e.ws {
			rel, _ := filepath.Rel(e.ws, p)
			names = append(names, rel)
		}
		return nil
	})
	sort.Strings(names)
	if strings.Join(names, ",") != "a.txt" {
		t.Fatalf("the workspace holds %v; only the agent's own a.txt may be there", names)
	}
}

// TestE2ERollbackCrash kills the host right before and right after the
// rollback restores the files; `nexus resume` completes it.
func TestE2ERollbackCrash(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	for _, point := range []string{"rollback.files.before", "rollback.files.after"} {
		e := newEnv(t)
		th := e.must("thread", "new", "--yes")
		e.must("send", th, "write one to a.txt")
		e.must("send", th, "write bee to b.txt")
		crashDuring(t, bin, e, point, "rollback", th, "--to-run", "1")
		e.must("resume", th)
		eventually(t, "rollback finished", func() bool {
			v := e.show(th)
			return v.Runs[1].Status == "rolled_back"
		})
		if _, ok := e.readWS("b.txt"); ok {
			t.Fatalf("%s: b.txt survived the resumed rollback", point)
		}
		if a, _ := e.readWS("a.txt"); a != "one\n" {
			t.Fatalf("%s: a.txt = %q", point, a)
		}
	}
}
