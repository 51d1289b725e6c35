package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// What a thread's worktree holds compared with where it came from: the
// questions the UI asks before it offers a worktree, and the diff it shows
// of one. Like every operation of the package they only run git through
// Manager.exec (safegit.go), and they never write the user's index, HEAD
// or branches.

// RepoTop returns the root of the git work tree that holds dir, or ""
// when dir is in no repository, or its checkpoints already live in a
// shadow repository (a worktree needs the real one). Unlike Info it
// makes nothing: it only asks.
func (m *Manager) RepoTop(ctx context.Context, dir string) (string, error) {
	path, err := canonical(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(m.shadowDir(path), "HEAD")); err == nil {
		return "", nil
	}
	out, err := m.run(ctx, cmd{op: "open workspace", dir: path, args: []string{"rev-parse", "--show-toplevel"}})
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// BranchExists reports whether the repository holding repo has a local
// branch called name.
func (m *Manager) BranchExists(ctx context.Context, repo, name string) (bool, error) {
	if badRev(name) {
		return false, fmt.Errorf("checkpoint: bad branch name %q; choose another", name)
	}
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return false, err
	}
	defer unlock()
	if w.Shadow {
		return false, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	_, err = m.run(ctx, w.cmd("check branch", "", "rev-parse", "-q", "--verify", "refs/heads/"+name))
	if exitCode(err) == 1 {
		return false, nil
	}
	return err == nil, err
}

// head is what a work tree has checked out.
type head struct {
	commit string
	branch string // short name; "" when HEAD is detached
}

// name is how a person would call it: the branch, else the commit.
func (h head) name() string {
	if h.branch != "" {
		return h.branch
	}
	return shortID(h.commit)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// headOf reads w's HEAD commit and branch.
func (m *Manager) headOf(ctx context.Context, w *ws, op string) (head, error) {
	out, err := m.run(ctx, w.cmd(op, "", "rev-parse", "--verify", "-q", "HEAD^{commit}"))
	if err != nil {
		if exitCode(err) == 1 {
			return head{}, fmt.Errorf("%w: %s", ErrNoCommits, w.Top)
		}
		return head{}, err
	}
	h := head{commit: strings.TrimSpace(string(out))}
	out, err = m.run(ctx, w.cmd(op, "", "symbolic-ref", "-q", "--short", "HEAD"))
	switch {
	case err == nil:
		h.branch = strings.TrimSpace(string(out))
	case exitCode(err) != 1:
		return head{}, err
	}
	return h, nil
}

// openHead opens a work tree of a real repository, reads its HEAD and
// unlocks it again.
func (m *Manager) openHead(ctx context.Context, dir, op string) (*ws, head, error) {
	w, unlock, err := m.open(ctx, dir)
	if err != nil {
		return nil, head{}, err
	}
	defer unlock()
	if w.Shadow {
		return nil, head{}, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	h, err := m.headOf(ctx, w, op)
	return w, h, err
}

// BranchDiff is what a worktree holds that its base does not.
type BranchDiff struct {
	// Diff runs from MergeBase to the worktree's files as they are now:
	// its commits, uncommitted changes and untracked files (ignored ones
	// left out).
	Diff
	Branch     string // the worktree's branch, "" when its HEAD is detached
	Head       string // the worktree's HEAD commit
	Base       string // the branch checked out in repo, "" when detached
	BaseCommit string // repo's HEAD commit
	MergeBase  string // where the two meet; the empty tree when they never do
}

// WorktreeDiff compares the worktree at path with the work tree of repo
// it was made from: everything the worktree would bring to repo's
// branch if its work were committed and merged. The worktree's current
// files are read into a tree through a temporary index (as a capture
// does, without the capture's bounds), so its own index is not touched;
// the blobs it hashes stay in the repository's object store, unreferenced,
// until git gc prunes them.
func (m *Manager) WorktreeDiff(ctx context.Context, repo, path string) (BranchDiff, error) {
	_, base, err := m.openHead(ctx, repo, "diff worktree")
	if err != nil {
		return BranchDiff{}, err
	}
	w, unlock, err := m.open(ctx, path)
	if err != nil {
		return BranchDiff{}, err
	}
	defer unlock()
	if w.Shadow {
		return BranchDiff{}, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	h, err := m.headOf(ctx, w, "diff worktree")
	if err != nil {
		return BranchDiff{}, err
	}
	bd := BranchDiff{Branch: h.branch, Head: h.commit, Base: base.branch, BaseCommit: base.commit}
	if bd.MergeBase, err = m.mergeBase(ctx, w, base.commit, h.commit); err != nil {
		return BranchDiff{}, err
	}
	tree, err := m.workTree(ctx, w)
	if err != nil {
		return BranchDiff{}, err
	}
	bd.Diff = Diff{From: bd.MergeBase, To: tree}
	if err := m.diffStats(ctx, w, &bd.Diff); err != nil {
		return BranchDiff{}, err
	}
	if err := m.patch(ctx, w, &bd.Diff); err != nil {
		return BranchDiff{}, err
	}
	return bd, nil
}

// mergeBase is the best common ancestor of two commits, or the empty
// tree when they have none.
func (m *Manager) mergeBase(ctx context.Context, w *ws, a, b string) (string, error) {
	out, err := m.run(ctx, w.cmd("diff worktree", "", "merge-base", a, b))
	if exitCode(err) == 1 {
		return w.emptyTree(), nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// workTree writes the tree of w's files as they are (git add -A into a
// temporary index seeded from w's own, then write-tree).
func (m *Manager) workTree(ctx context.Context, w *ws) (string, error) {
	index, _, cleanup, err := m.tempIndex(w)
	if err != nil {
		return "", err
	}
	defer cleanup()
	add := w.cmd("diff worktree", index, "add", "-A", "--", ".")
	add.dir = w.Top
	if _, err := m.run(ctx, add); err != nil {
		return "", err
	}
	out, err := m.run(ctx, w.cmd("diff worktree", index, "write-tree"))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
