package checkpoint

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorktrees: two worktrees from one checkpoint edit the same file
// independently; dirtiness is detected; removal refuses a dirty worktree
// unless forced; the user's repository does not move.
func TestWorktrees(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	writeFile(t, repo, "shared.txt", "v1\n")
	gitT(t, repo, "add", "shared.txt")
	gitT(t, repo, "commit", "-q", "-m", "shared")
	head := gitT(t, repo, "rev-parse", "HEAD")
	m := newManager(t, Options{})
	writeFile(t, repo, "shared.txt", "v2 uncommitted\n")
	writeFile(t, repo, "wip.txt", "work in progress\n")
	run1 := capture(t, m, repo, "t1", "run/1")
	before := stateOf(t, repo)

	root := t.TempDir()
	pa, pb := filepath.Join(root, "a"), filepath.Join(root, "b")
	wa, err := m.AddWorktree(ctx, repo, pa, run1.Commit, "")
	if err != nil {
		t.Fatal(err)
	}
	wb, err := m.AddWorktree(ctx, repo, pb, run1.Ref, "fork-b")
	if err != nil {
		t.Fatal(err)
	}
	for _, wt := range []Worktree{wa, wb} {
		if wt.Head != head || readFile(t, wt.Path, "shared.txt") != "v2 uncommitted\n" || readFile(t, wt.Path, "wip.txt") != "work in progress\n" {
			t.Errorf("worktree %s: head %s (want %s), files not as in the checkpoint", wt.Path, wt.Head, head)
		}
		if got := gitT(t, wt.Path, "rev-parse", "HEAD"); got != head {
			t.Errorf("worktree %s HEAD = %s, want the checkpoint's base %s", wt.Path, got, head)
		}
	}
	writeFile(t, pa, "shared.txt", "edited in a\n")
	writeFile(t, pb, "shared.txt", "edited in b\n")
	if readFile(t, pa, "shared.txt") != "edited in a\n" || readFile(t, pb, "shared.txt") != "edited in b\n" || readFile(t, repo, "shared.txt") != "v2 uncommitted\n" {
		t.Error("worktrees are not independent")
	}
	if got := gitT(t, repo, "branch", "--format=%(refname:short)"); got != "fork-b\nmain" {
		t.Errorf("branches = %q, want fork-b created only when asked", got)
	}
	after := stateOf(t, repo)
	after.branches = before.branches // fork-b was asked for
	before.compare(t, after)
	_, err = m.AddWorktree(ctx, repo, filepath.Join(root, "dup"), "HEAD", "fork-b")
	var ge *GitError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "choose another") {
		t.Errorf("AddWorktree with a taken branch = %v, want git's reason and what to do", err)
	}
	list, err := m.ListWorktrees(ctx, repo)
	if err != nil || len(list) != 3 || !list[0].Main || list[2].Branch != "fork-b" {
		t.Errorf("ListWorktrees = %+v, %v", list, err)
	}

	if dirty, err := m.WorktreeDirty(ctx, pa); err != nil || !dirty {
		t.Errorf("WorktreeDirty(a) = %v, %v; want true", dirty, err)
	}
	err = m.RemoveWorktree(ctx, repo, pa, false)
	if !errors.Is(err, ErrWorktreeDirty) {
		t.Errorf("RemoveWorktree of a dirty worktree = %v, want ErrWorktreeDirty", err)
	}
	if !exists(pa, "shared.txt") {
		t.Fatal("a refused removal removed files")
	}
	if err := m.RemoveWorktree(ctx, repo, pa, true); err != nil {
		t.Fatal(err)
	}
	if exists(pa, "") {
		t.Error("forced removal left the directory")
	}
	if err := m.RemoveWorktree(ctx, repo, repo, true); err == nil {
		t.Error("RemoveWorktree removed the main worktree")
	}
	if _, err := m.AddWorktree(ctx, repo, repo, run1.Commit, ""); err == nil || !strings.Contains(err.Error(), "main worktree") {
		t.Errorf("AddWorktree onto the main worktree = %v, want a refusal", err)
	}

	// A clean worktree at HEAD for a new thread.
	pc := filepath.Join(root, "c")
	if _, err := m.AddWorktree(ctx, repo, pc, "HEAD", ""); err != nil {
		t.Fatal(err)
	}
	if dirty, err := m.WorktreeDirty(ctx, pc); err != nil || dirty {
		t.Errorf("fresh worktree dirty = %v, %v", dirty, err)
	}
	// A commit on its detached HEAD would be lost: dirty.
	writeFile(t, pc, "new.txt", "n\n")
	gitT(t, pc, "add", "new.txt")
	gitT(t, pc, "commit", "-q", "-m", "detached work")
	if dirty, _ := m.WorktreeDirty(ctx, pc); !dirty {
		t.Error("commits on no branch do not count as dirty")
	}
	// Once a nexus ref holds them they are safe.
	if _, err := m.Capture(ctx, pc, "t3", "run/1"); err != nil {
		t.Fatal(err)
	}
	if dirty, _ := m.WorktreeDirty(ctx, pc); dirty {
		t.Error("commits reachable from a checkpoint still count as dirty")
	}
	if err := m.RemoveWorktree(ctx, repo, pc, false); err != nil {
		t.Errorf("RemoveWorktree of a clean worktree: %v", err)
	}
}

// TestAddWorktreeResumes: an add interrupted after git made the worktree
// but before the checkpoint's files arrived is finished by adding again.
func TestAddWorktreeResumes(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	m := newManager(t, Options{})
	writeFile(t, repo, "agent.txt", "from run 1\n")
	run1 := capture(t, m, repo, "t1", "run/1")
	path := filepath.Join(t.TempDir(), "wt")
	gitT(t, repo, "worktree", "add", "-q", "--detach", path, "HEAD") // the crash point
	if _, err := m.AddWorktree(ctx, repo, path, run1.Commit, ""); err != nil {
		t.Fatal(err)
	}
	if readFile(t, path, "agent.txt") != "from run 1\n" {
		t.Error("resumed AddWorktree did not restore the checkpoint")
	}
}

func TestWorktreeNonGit(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	m := newManager(t, Options{})
	cp := capture(t, m, ws, "t1", "run/1")
	if _, err := m.AddWorktree(ctx, ws, filepath.Join(t.TempDir(), "wt"), cp.Commit, ""); !errors.Is(err, ErrNotGit) {
		t.Errorf("AddWorktree on a non-git workspace = %v, want ErrNotGit", err)
	}
	if _, err := m.ListWorktrees(ctx, ws); !errors.Is(err, ErrNotGit) {
		t.Errorf("ListWorktrees = %v, want ErrNotGit", err)
	}
	if err := m.RemoveWorktree(ctx, ws, ws, true); !errors.Is(err, ErrNotGit) {
		t.Errorf("RemoveWorktree = %v, want ErrNotGit", err)
	}
}
