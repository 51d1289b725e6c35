package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/tui"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main"}, args...)...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestTUIWorktrees drives the UI's worktree operations as the UI does,
// over a host: the config file's [worktree] dir holds the worktree, a
// suggested branch that is taken gets a free variant, and the worktree's
// diff, commit, merge and removal act on the thread's own worktree and
// repository; thread show says where the worktree lives.
func TestTUIWorktrees(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	wtDir := filepath.Join(root, "wts")
	cfg := filepath.Join(root, "config.toml")
	if err := os.WriteFile(cfg, []byte("[worktree]\ndir = \""+wtDir+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NEXUS_CONFIG", cfg)
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "initial")
	gitIn(t, repo, "branch", "nexus/demo")
	dir := filepath.Join(root, "state")

	ctx := context.Background()
	a := &app{stdout: &bytes.Buffer{}, stderr: io.Discard, stateDir: dir}
	s, err := a.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	w, err := a.worktrees()
	if err != nil {
		t.Fatal(err)
	}
	ops := tuiWorktrees(s.Backend, w)
	if top, err := ops.Repo(ctx, repo); err != nil || top != repo {
		t.Fatalf("Repo = %q, %v; want %q", top, err, repo)
	}
	// A repository with no commit cannot give a worktree: the new thread
	// dialog hears why, with its worktree off.
	unborn, _ := filepath.EvalSymlinks(t.TempDir())
	gitIn(t, unborn, "init", "-q")
	if top, err := ops.Repo(ctx, unborn); top != "" || err == nil || !strings.Contains(err.Error(), "no commit yet") {
		t.Fatalf("Repo of an unborn repository = %q, %v; want a no-commit error", top, err)
	}
	made, err := ops.Add(ctx, tui.WorktreeSpec{Thread: "tdemo01", Dir: repo, Branch: "nexus/demo", AutoBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	if made.Path != filepath.Join(wtDir, "tdemo01") || made.Branch != "nexus/demo-2" || made.Repo != repo {
		t.Fatalf("Add = %+v; want %s/tdemo01 on nexus/demo-2", made, wtDir)
	}
	rec, err := s.Submit(ctx, core.Command{ID: "c1", Kind: core.CmdThreadCreate, NewThread: "tdemo01", Provider: "builtin",
		Workspace: made.Path, Worktree: made.Path, Repo: made.Repo, Branch: made.Branch})
	if err != nil || rec.Reject != nil {
		t.Fatalf("thread.create: %v %+v", err, rec)
	}
	if err := os.WriteFile(filepath.Join(made.Path, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, err := ops.Diff(ctx, "tdemo01"); err != nil || !strings.HasPrefix(text, "nexus/demo-2 against main") ||
		!strings.Contains(text, " A a.txt | +1 -0") || !strings.Contains(text, "+hello") {
		t.Fatalf("Diff = %q, %v", text, err)
	}
	if dirty, err := ops.Dirty(ctx, "tdemo01"); err != nil || !dirty {
		t.Fatalf("Dirty = %v, %v", dirty, err)
	}
	if msg, err := ops.Commit(ctx, "tdemo01", "Add a\n"); err != nil || !strings.Contains(msg, "on branch nexus/demo-2 (1 file(s))") {
		t.Fatalf("Commit = %q, %v", msg, err)
	}
	if msg, err := ops.Merge(ctx, "tdemo01"); err != nil || !strings.Contains(msg, "merged nexus/demo-2 into main (fast-forward") {
		t.Fatalf("Merge = %q, %v", msg, err)
	}
	if got := gitIn(t, repo, "log", "--format=%s", "main"); got != "Add a\ninitial" {
		t.Fatalf("main's log %q", got)
	}

	var out bytes.Buffer
	if code := Run(ctx, []string{"--state-dir", dir, "thread", "show", "tdemo01"}, strings.NewReader(""), &out, io.Discard); code != ExitOK ||
		!strings.Contains(out.String(), "worktree "+made.Path+" (branch nexus/demo-2) of "+repo+"\n") {
		t.Fatalf("thread show: exit %d\n%s", code, out.String())
	}
	if _, err := s.Submit(ctx, core.Command{ID: "c2", Kind: core.CmdThreadArchive, Thread: "tdemo01"}); err != nil {
		t.Fatal(err)
	}
	if err := ops.Remove(ctx, "tdemo01", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(made.Path); !os.IsNotExist(err) {
		t.Fatalf("the worktree %s is still there: %v", made.Path, err)
	}
	if _, err := ops.Diff(ctx, "nope"); err == nil {
		t.Fatal("Diff of an unknown thread did not fail")
	}
}
