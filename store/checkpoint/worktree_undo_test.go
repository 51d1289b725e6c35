package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UndoMerge takes a merge commit out (the branch back at its first
// parent, the person's later commit kept) and a fast-forward (back at
// the base); again, it does nothing; a branch that moved on is refused.
func TestUndoMerge(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, wt := newBranchWorktree(t, m, "nexus/m1")
	base := gitT(t, repo, "rev-parse", "HEAD")
	writeFile(t, wt, "a.txt", "hello\n")
	if _, err := m.CommitWorktree(ctx, wt, "task"); err != nil {
		t.Fatal(err)
	}
	// The person commits on main meanwhile: the merge makes a commit.
	writeFile(t, repo, "mine.txt", "mine\n")
	gitT(t, repo, "add", "mine.txt")
	gitT(t, repo, "commit", "-q", "-m", "mine")
	mine := gitT(t, repo, "rev-parse", "HEAD")
	mg, err := m.MergeWorktree(ctx, repo, wt)
	if err != nil || mg.FastForward {
		t.Fatalf("merge: %+v %v", mg, err)
	}
	got, err := m.UndoMerge(ctx, repo, mg.Commit, base, "nexus/m1")
	if err != nil || got != mine || gitT(t, repo, "rev-parse", "HEAD") != mine {
		t.Fatalf("undo of a merge commit: %s %v; HEAD %s, want %s", got, err, gitT(t, repo, "rev-parse", "HEAD"), mine)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err == nil {
		t.Fatal("a.txt is still in the work tree after the undo")
	}
	if again, err := m.UndoMerge(ctx, repo, mg.Commit, base, "nexus/m1"); err != nil || again != mine {
		t.Fatalf("a second undo: %s %v; want nothing done", again, err)
	}

	// A fast-forward goes back to the base; a moved branch is refused.
	gitT(t, repo, "reset", "-q", "--hard", base)
	ff, err := m.MergeWorktree(ctx, repo, wt)
	if err != nil || !ff.FastForward {
		t.Fatalf("fast-forward merge: %+v %v", ff, err)
	}
	writeFile(t, repo, "later.txt", "later\n")
	gitT(t, repo, "add", "later.txt")
	gitT(t, repo, "commit", "-q", "-m", "later")
	if _, err := m.UndoMerge(ctx, repo, ff.Commit, base, "nexus/m1"); err == nil || !strings.Contains(err.Error(), "moved on") {
		t.Fatalf("undo under a later commit: %v; want a refusal", err)
	}
	gitT(t, repo, "reset", "-q", "--hard", ff.Commit)
	if got, err := m.UndoMerge(ctx, repo, ff.Commit, base, "nexus/m1"); err != nil || got != base || gitT(t, repo, "rev-parse", "HEAD") != base {
		t.Fatalf("undo of a fast-forward: %s %v", got, err)
	}
}
