package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newBranchWorktree makes a repository on main and a worktree of it on
// branch, as `thread new --worktree --branch` does.
func newBranchWorktree(t *testing.T, m *Manager, branch string) (repo, wt string) {
	t.Helper()
	repo = newRepo(t)
	gitT(t, repo, "config", "user.name", "Ada")
	gitT(t, repo, "config", "user.email", "ada@example.com")
	wt = filepath.Join(t.TempDir(), "wt")
	if _, err := m.AddWorktree(context.Background(), repo, wt, "HEAD", branch); err != nil {
		t.Fatal(err)
	}
	return repo, wt
}

// TestWorktreeDiffCommitMerge is the UI's flow on a worktree thread:
// the diff against the base shows untracked work, the commit is the
// user's with the message given, and the merge fast-forwards main; a
// second merge has nothing to do.
func TestWorktreeDiffCommitMerge(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, wt := newBranchWorktree(t, m, "nexus/hello")
	writeFile(t, wt, "a.txt", "hello\n")

	d, err := m.WorktreeDiff(ctx, repo, wt)
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != "main" || d.Branch != "nexus/hello" || len(d.Files) != 1 || d.Files[0].Path != "a.txt" ||
		d.Files[0].Status != "A" || !strings.Contains(d.Patch, "+hello") {
		t.Fatalf("diff = %+v, want a.txt added on nexus/hello against main", d)
	}
	if got := gitT(t, wt, "status", "--porcelain"); got != "?? a.txt" {
		t.Fatalf("the diff touched the worktree's index: status %q", got)
	}

	c, err := m.CommitWorktree(ctx, wt, "Write hello\n\n- write hello to a.txt\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Branch != "nexus/hello" || c.Files != 1 || c.Commit != gitT(t, wt, "rev-parse", "HEAD") {
		t.Fatalf("commit = %+v", c)
	}
	if got := gitT(t, wt, "log", "-1", "--format=%an <%ae>|%s|%b"); got != "Ada <ada@example.com>|Write hello|- write hello to a.txt" {
		t.Fatalf("commit is %q, want the user's identity and the message", got)
	}
	if _, err := m.CommitWorktree(ctx, wt, "again"); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("a second commit = %v, want ErrNothingToCommit", err)
	}
	if d, err := m.WorktreeDiff(ctx, repo, wt); err != nil || len(d.Files) != 1 {
		t.Fatalf("after the commit the diff against main = %+v, %v; want a.txt still", d, err)
	}

	mg, err := m.MergeWorktree(ctx, repo, wt)
	if err != nil {
		t.Fatal(err)
	}
	if mg.Into != "main" || mg.From != "nexus/hello" || !mg.FastForward || mg.Commit != c.Commit {
		t.Fatalf("merge = %+v, want a fast-forward of main to %s", mg, c.Commit)
	}
	if got := gitT(t, repo, "log", "--format=%s", "main"); got != "Write hello\ninitial" {
		t.Fatalf("main's log = %q", got)
	}
	if readFile(t, repo, "a.txt") != "hello\n" {
		t.Fatal("the merge did not bring a.txt into the repository's work tree")
	}
	if mg, err := m.MergeWorktree(ctx, repo, wt); err != nil || !mg.UpToDate {
		t.Fatalf("a second merge = %+v, %v; want up to date", mg, err)
	}
}

// TestWorktreeMergeCommitAndConflict: when main moved on, the merge
// makes a merge commit; when both sides changed the same lines, it is
// aborted, names the file and leaves main as it was.
func TestWorktreeMergeCommitAndConflict(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, wt := newBranchWorktree(t, m, "nexus/b")
	writeFile(t, wt, "b.txt", "bee\n")
	if _, err := m.CommitWorktree(ctx, wt, "Add b"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo, "c.txt", "sea\n")
	gitT(t, repo, "add", "c.txt")
	gitT(t, repo, "commit", "-q", "-m", "Add c")
	mg, err := m.MergeWorktree(ctx, repo, wt)
	if err != nil || mg.FastForward || mg.UpToDate {
		t.Fatalf("merge = %+v, %v; want a merge commit", mg, err)
	}
	if got := gitT(t, repo, "log", "-1", "--format=%s|%an"); got != "Merge branch 'nexus/b'|Ada" {
		t.Fatalf("merge commit %q", got)
	}

	writeFile(t, wt, "README", "from the worktree\n")
	if _, err := m.CommitWorktree(ctx, wt, "Change README"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo, "README", "from main\n")
	gitT(t, repo, "commit", "-q", "-am", "Change README on main")
	before := gitT(t, repo, "rev-parse", "HEAD")
	_, err = m.MergeWorktree(ctx, repo, wt)
	var ce *MergeConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0] != "README" || !strings.Contains(err.Error(), "aborted") {
		t.Fatalf("conflicting merge = %v, want a conflict in README", err)
	}
	if gitT(t, repo, "rev-parse", "HEAD") != before || gitT(t, repo, "status", "--porcelain") != "" ||
		readFile(t, repo, "README") != "from main\n" {
		t.Fatal("an aborted merge left the repository changed")
	}
}

// TestWorktreeMergeRefusals: uncommitted work in the worktree, changes
// to tracked files in the repository, a detached repository HEAD and a
// path with a filter are each refused with what to do.
func TestWorktreeMergeRefusals(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, wt := newBranchWorktree(t, m, "nexus/r")
	writeFile(t, wt, "a.txt", "one\n")
	if _, err := m.MergeWorktree(ctx, repo, wt); err == nil || !strings.Contains(err.Error(), "commit them first") {
		t.Errorf("merge of a dirty worktree = %v", err)
	}
	if _, err := m.CommitWorktree(ctx, wt, "a"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo, "README", "edited by hand\n")
	if _, err := m.MergeWorktree(ctx, repo, wt); err == nil || !strings.Contains(err.Error(), "commit or stash them") {
		t.Errorf("merge into a repository with changes = %v", err)
	}
	gitT(t, repo, "checkout", "-q", "README")
	gitT(t, repo, "checkout", "-q", "--detach")
	if _, err := m.MergeWorktree(ctx, repo, wt); err == nil || !strings.Contains(err.Error(), "detached HEAD") {
		t.Errorf("merge into a detached HEAD = %v", err)
	}
	gitT(t, repo, "checkout", "-q", "main")

	writeFile(t, wt, ".gitattributes", "*.bin filter=lfs\n")
	writeFile(t, wt, "big.bin", "data\n")
	var pe *ProgramAttrError
	if _, err := m.CommitWorktree(ctx, wt, "big"); !errors.As(err, &pe) || pe.Path != "big.bin" {
		t.Errorf("commit of a filtered path = %v, want it refused", err)
	}
	if got := gitT(t, wt, "log", "-1", "--format=%s"); got != "a" {
		t.Errorf("a refused commit committed: %q", got)
	}
}

// TestRepoTopAndBranchExists: RepoTop names the work tree's root from a
// subdirectory and "" outside any repository, making nothing there.
func TestRepoTopAndBranchExists(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, _ := newBranchWorktree(t, m, "nexus/x")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(repo)
	if top, err := m.RepoTop(ctx, filepath.Join(repo, "sub")); err != nil || top != real {
		t.Errorf("RepoTop(sub) = %q, %v; want %q", top, err, real)
	}
	plain := t.TempDir()
	if top, err := m.RepoTop(ctx, plain); err != nil || top != "" {
		t.Errorf("RepoTop(plain dir) = %q, %v; want none", top, err)
	}
	if got := listTree(t, plain); len(got) != 0 {
		t.Errorf("RepoTop wrote %v", got)
	}
	for name, want := range map[string]bool{"nexus/x": true, "main": true, "nexus/y": false} {
		if got, err := m.BranchExists(ctx, repo, name); err != nil || got != want {
			t.Errorf("BranchExists(%s) = %v, %v", name, got, err)
		}
	}
}
