package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Worktree is one git worktree of a repository.
type Worktree struct {
	Path string // root of the worktree
	// Workspace is the thread's workspace inside it: Path plus the source
	// workspace's place in the repository. Set by AddWorktree only.
	Workspace string
	Head      string // commit checked out
	Branch    string // short branch name, "" when detached
	Main      bool   // the repository's main worktree
	Locked    bool
	Prunable  bool // its directory is gone; git worktree prune forgets it
}

// AddWorktree makes a git worktree at path for a fork or a new thread.
// With a checkpoint commit, the worktree checks out the checkpoint's base
// (the HEAD the source workspace had at capture) and then gets the
// checkpoint's files, so it looks like the source workspace did then:
// same HEAD, same uncommitted changes, and the user's branch history
// stays clean. With any other commit it checks that commit out. A branch
// is created at the base only when branch is not ""; otherwise HEAD is
// detached. Running it again for the same path finishes an add that was
// interrupted. Non-git workspaces get ErrNotGit.
func (m *Manager) AddWorktree(ctx context.Context, repo, path, commit, branch string) (Worktree, error) {
	if strings.HasPrefix(branch, "-") {
		return Worktree{}, fmt.Errorf("checkpoint: bad branch name %q; choose another", branch)
	}
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return Worktree{}, err
	}
	defer unlock()
	if w.Shadow {
		return Worktree{}, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	rctx, cancel := context.WithTimeout(ctx, m.opts.RestoreTimeout)
	defer cancel()
	if badRev(commit) {
		return Worktree{}, fmt.Errorf("%w: %q", ErrNotFound, commit)
	}
	objs, err := m.objects(rctx, w, "add worktree", commit+"^{commit}")
	if err != nil {
		return Worktree{}, err
	}
	target := objs[0]
	if target.typ != "commit" && commit == "HEAD" {
		return Worktree{}, fmt.Errorf("%w (%s)", ErrNoCommits, w.Top)
	}
	if target.typ != "commit" {
		return Worktree{}, fmt.Errorf("%w: %s in %s", ErrNotFound, commit, w.GitDir)
	}
	base, checkpoint := target.id, target.trailer("Nexus-Thread") != ""
	if checkpoint {
		base = target.trailer("Nexus-Base")
		if base == "" || base == "none" {
			return Worktree{}, fmt.Errorf("%w (checkpoint %s was taken before the first commit)", ErrNoCommits, target.id)
		}
	}
	abs, err := absPath(path)
	if err != nil {
		return Worktree{}, err
	}
	wt := Worktree{Path: abs, Workspace: filepath.Join(abs, filepath.FromSlash(w.Prefix)), Head: base, Branch: branch}
	list, err := m.worktrees(rctx, w)
	if err != nil {
		return Worktree{}, err
	}
	if len(list) > 0 && list[0].Path == abs || abs == w.Top {
		return Worktree{}, fmt.Errorf("checkpoint: %s is the repository's main worktree; choose a new directory for the worktree", abs)
	}
	if !hasWorktree(list, abs) {
		args := []string{"worktree", "add", "--quiet"}
		if branch != "" {
			args = append(args, "-b", branch)
		} else {
			args = append(args, "--detach")
		}
		// Run as the user would, from the work tree without GIT_DIR, so
		// git sets up the new worktree's environment itself.
		if _, err := m.run(rctx, cmd{op: "add worktree", dir: w.Top, args: append(args, "--", abs, base)}); err != nil {
			return Worktree{}, err
		}
	}
	if checkpoint {
		if err := os.MkdirAll(wt.Workspace, 0o755); err != nil {
			return Worktree{}, fmt.Errorf("checkpoint: cannot make %s: %w", wt.Workspace, err)
		}
		nw, unlockNew, err := m.open(rctx, wt.Workspace)
		if err != nil {
			return Worktree{}, err
		}
		_, err = m.restore(rctx, nw, target.id)
		unlockNew()
		if err != nil {
			return Worktree{}, fmt.Errorf("checkpoint: worktree %s was added but not filled with checkpoint %s; add it again to finish: %w", abs, target.id, err)
		}
	}
	return wt, nil
}

// absPath is the absolute path of a directory that may not exist yet,
// with symbolic links in its existing part resolved, to compare with
// what git reports.
func absPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrWorkspace, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(r, filepath.Base(abs)), nil
	}
	return abs, nil
}

func hasWorktree(list []Worktree, path string) bool {
	for _, wt := range list {
		if wt.Path == path {
			return true
		}
	}
	return false
}

// ListWorktrees lists the worktrees of the repository holding repo, the
// main one first.
func (m *Manager) ListWorktrees(ctx context.Context, repo string) ([]Worktree, error) {
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if w.Shadow {
		return nil, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	return m.worktrees(ctx, w)
}

func (m *Manager) worktrees(ctx context.Context, w *ws) ([]Worktree, error) {
	var list []Worktree
	var cur *Worktree
	err := m.scan(ctx, w.cmd("list worktrees", "", "worktree", "list", "--porcelain", "-z"), func(rec []byte) error {
		key, val, _ := strings.Cut(string(rec), " ")
		switch key {
		case "worktree":
			list = append(list, Worktree{Path: val, Main: len(list) == 0})
			cur = &list[len(list)-1]
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Prunable = true
		}
		return nil
	})
	return list, err
}

// WorktreeDirty reports whether the worktree at path holds work that
// removing it would lose: changed or untracked files (ignored ones
// aside), or commits on a detached HEAD that no branch, tag, remote or
// nexus ref reaches. A fork's worktree is dirty from the start when its
// checkpoint had uncommitted changes; those are also kept by the
// checkpoint refs.
func (m *Manager) WorktreeDirty(ctx context.Context, path string) (bool, error) {
	w, unlock, err := m.open(ctx, path)
	if err != nil {
		return false, err
	}
	defer unlock()
	if w.Shadow {
		return false, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	reason, err := m.worktreeDirty(ctx, w)
	return reason != "", err
}

func (m *Manager) worktreeDirty(ctx context.Context, w *ws) (string, error) {
	dirty := false
	status := w.cmd("check worktree", "", "status", "--porcelain", "-z", "--untracked-files=normal")
	status.dir = w.Top
	err := m.scan(ctx, status, func([]byte) error { dirty = true; return errStop })
	if err != nil || dirty {
		return "uncommitted changes", err
	}
	out, err := m.run(ctx, w.cmd("check worktree", "", "symbolic-ref", "-q", "HEAD"))
	if err == nil && len(out) > 0 {
		return "", nil // on a branch: the branch keeps its commits
	}
	out, err = m.run(ctx, w.cmd("check worktree", "", "rev-list", "-n1", "HEAD", "--not",
		"--branches", "--tags", "--remotes", "--glob=refs/nexus/*"))
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return "", err
	}
	return "commits on no branch", nil
}

// RemoveWorktree removes a worktree of repo. Without force it refuses one
// holding work (a *DirtyWorktreeError, matching ErrWorktreeDirty), so
// the kernel can ask first. A worktree whose directory is already gone is
// forgotten. The main worktree is never removed; branches are kept.
func (m *Manager) RemoveWorktree(ctx context.Context, repo, path string, force bool) error {
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return err
	}
	defer unlock()
	if w.Shadow {
		return fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	abs, err := absPath(path)
	if err != nil {
		return err
	}
	list, err := m.worktrees(ctx, w)
	if err != nil {
		return err
	}
	var found *Worktree
	for i := range list {
		if list[i].Path == abs {
			found = &list[i]
		}
	}
	switch {
	case found == nil:
		return fmt.Errorf("checkpoint: %s is not a worktree of %s; check the thread's worktree path", abs, w.Top)
	case found.Main:
		return fmt.Errorf("checkpoint: %s is the repository's main worktree; nexus only removes worktrees it added", abs)
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		_, err := m.run(ctx, w.cmd("remove worktree", "", "worktree", "prune"))
		return err
	}
	if !force {
		wt, unlockWT, err := m.open(ctx, abs)
		if err != nil {
			return err
		}
		reason, err := m.worktreeDirty(ctx, wt)
		unlockWT()
		if err != nil {
			return err
		}
		if reason != "" {
			return &DirtyWorktreeError{Path: abs, Reason: reason}
		}
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	_, err = m.run(ctx, cmd{op: "remove worktree", dir: w.Top, args: append(args, "--", abs)})
	return err
}
