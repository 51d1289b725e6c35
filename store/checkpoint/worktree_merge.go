package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Committing a worktree's work and merging its branch are the only
// operations of the package that write a user's branches, index and
// files on purpose, and only when asked (the UI's worktree dialog). They
// run git as the user would, with the package's neutral settings: no
// hook, filter, merge driver or signing program runs. Where that would
// change the result (a path with a filter or a custom merge driver in
// its attributes: git-lfs, say), they refuse and say to do it in a
// terminal instead of writing something else than git would.

// Committed is what CommitWorktree made.
type Committed struct {
	Commit string
	Branch string // "" when the worktree's HEAD is detached
	Files  int    // paths the commit changed
}

// CommitWorktree commits every change in the worktree at path (git add
// -A, then git commit) with message, as the user named by user.name and
// user.email in git's configuration (nexus <nexus@localhost> when unset).
// A worktree with nothing to commit gets ErrNothingToCommit.
func (m *Manager) CommitWorktree(ctx context.Context, path, message string) (Committed, error) {
	if strings.TrimSpace(message) == "" {
		return Committed{}, fmt.Errorf("checkpoint: the commit message is empty; write one")
	}
	w, unlock, err := m.open(ctx, path)
	if err != nil {
		return Committed{}, err
	}
	defer unlock()
	if w.Shadow {
		return Committed{}, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	changed, err := m.changedPaths(ctx, w)
	if err != nil {
		return Committed{}, err
	}
	if len(changed) == 0 {
		return Committed{}, fmt.Errorf("%w: %s", ErrNothingToCommit, w.Top)
	}
	if err := m.refuseAttrs(ctx, w, changed, false, "commit"); err != nil {
		return Committed{}, err
	}
	add := w.cmd("commit worktree", "", "add", "-A", "--", ".")
	add.dir = w.Top
	if _, err := m.run(ctx, add); err != nil {
		return Committed{}, err
	}
	c := w.cmd("commit worktree", "", "commit", "-q", "--no-verify", "--no-gpg-sign", "--cleanup=strip", "-F", "-")
	c.dir, c.stdin = w.Top, strings.NewReader(message)
	c.env = append(c.env, m.identity(ctx, w)...)
	if _, err := m.run(ctx, c); err != nil {
		return Committed{}, err
	}
	h, err := m.headOf(ctx, w, "commit worktree")
	if err != nil {
		return Committed{}, err
	}
	return Committed{Commit: h.commit, Branch: h.branch, Files: len(changed)}, nil
}

// changedPaths lists the paths git status reports in w (untracked ones
// too, ignored ones not), each once.
func (m *Manager) changedPaths(ctx context.Context, w *ws) ([]string, error) {
	var out []string
	status := w.cmd("check worktree", "", "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all")
	status.dir = w.Top
	err := m.scan(ctx, status, func(rec []byte) error {
		if len(rec) > 3 {
			out = append(out, string(rec[3:]))
		}
		return nil
	})
	return out, err
}

// identity is the environment that makes a commit the user's: git's
// user.name and user.email, read with the neutral settings. Without
// both, commits keep the package's own identity.
func (m *Manager) identity(ctx context.Context, w *ws) []string {
	get := func(key string) string {
		out, err := m.run(ctx, w.cmd("read identity", "", "config", "--get", key))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	name, email := get("user.name"), get("user.email")
	if name == "" || email == "" {
		return nil
	}
	return []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
}

// refuseAttrs refuses paths whose attributes would make git run a
// program the package switches off: a filter (clean or smudge) and, when
// merging, a custom merge driver.
func (m *Manager) refuseAttrs(ctx context.Context, w *ws, paths []string, merging bool, what string) error {
	if len(paths) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	c := w.cmd("check attributes", "", "check-attr", "-z", "--stdin", "filter", "merge")
	c.dir, c.stdin = w.Top, &in
	c.env = append(c.env, "GIT_LITERAL_PATHSPECS=0") // check-attr refuses pathspec magic
	var fields []string
	if err := m.scan(ctx, c, func(rec []byte) error { fields = append(fields, string(rec)); return nil }); err != nil {
		return err
	}
	for i := 0; i+2 < len(fields); i += 3 {
		path, attr, val := fields[i], fields[i+1], fields[i+2]
		switch {
		case val == "unspecified" || val == "unset":
		case attr == "filter":
			return &ProgramAttrError{Path: path, Attr: "filter=" + val, What: what, Dir: w.Top}
		case attr == "merge" && merging && val != "set" && val != "text" && val != "binary" && val != "union":
			return &ProgramAttrError{Path: path, Attr: "merge=" + val, What: what, Dir: w.Top}
		}
	}
	return nil
}

// Merged is what MergeWorktree did.
type Merged struct {
	Into   string // the branch merged into
	From   string // the worktree's branch, or its commit when detached
	Commit string // Into's new commit
	// FastForward: Into only moved to the worktree's commit.
	FastForward bool
	// UpToDate: Into already held everything; nothing changed.
	UpToDate bool
}

// MergeWorktree merges the worktree at path (its branch, or its commit
// when detached) into the branch checked out in repo's work tree, as
// `git merge --no-edit` run there would: a fast-forward when it can,
// else a merge commit. It refuses while the worktree has uncommitted
// work (commit it first), while repo's work tree has changes to tracked
// files (they are the user's), and when repo has no branch checked out.
// A conflict aborts the merge, so repo is as before, and returns a
// *MergeConflictError naming the paths.
func (m *Manager) MergeWorktree(ctx context.Context, repo, path string) (Merged, error) {
	wt, from, err := m.openHead(ctx, path, "merge worktree")
	if err != nil {
		return Merged{}, err
	}
	if reason, err := m.lockedDirty(ctx, path); err != nil || reason != "" {
		if err == nil {
			err = fmt.Errorf("checkpoint: the worktree %s holds %s; commit them first, then merge", wt.Top, reason)
		}
		return Merged{}, err
	}
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return Merged{}, err
	}
	defer unlock()
	if w.Shadow {
		return Merged{}, fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	into, err := m.headOf(ctx, w, "merge worktree")
	if err != nil {
		return Merged{}, err
	}
	res := Merged{Into: into.branch, From: from.name()}
	if into.branch == "" {
		return res, fmt.Errorf("checkpoint: %s has no branch checked out (detached HEAD at %s); check out the branch to merge into, then merge again", w.Top, shortID(into.commit))
	}
	if err := m.trackedClean(ctx, w); err != nil {
		return res, err
	}
	if _, err := m.run(ctx, w.cmd("merge worktree", "", "merge-base", "--is-ancestor", from.commit, into.commit)); err == nil {
		res.Commit, res.UpToDate = into.commit, true
		return res, nil
	} else if exitCode(err) != 1 {
		return res, err
	}
	if err := m.refuseMergeAttrs(ctx, w, wt, into.commit, from.commit); err != nil {
		return res, err
	}
	target := from.branch
	if target == "" {
		target = from.commit
	}
	c := w.cmd("merge worktree", "", "merge", "--no-edit", "--no-gpg-sign", "--no-verify", "--no-stat", "-q", target)
	c.dir = w.Top
	c.env = append(c.env, m.identity(ctx, w)...)
	if _, err := m.run(ctx, c); err != nil {
		return res, m.abortConflict(ctx, w, res, err)
	}
	now, err := m.headOf(ctx, w, "merge worktree")
	if err != nil {
		return res, err
	}
	res.Commit, res.FastForward = now.commit, now.commit == from.commit
	return res, nil
}

// lockedDirty is worktreeDirty on the worktree at path, under its lock.
func (m *Manager) lockedDirty(ctx context.Context, path string) (string, error) {
	w, unlock, err := m.open(ctx, path)
	if err != nil {
		return "", err
	}
	defer unlock()
	reason, err := m.worktreeDirty(ctx, w)
	if reason == "commits on no branch" {
		return "", err // a detached worktree's commits are what a merge takes
	}
	return reason, err
}

// trackedClean refuses a work tree with staged or unstaged changes to
// tracked files; untracked files are git merge's to judge.
func (m *Manager) trackedClean(ctx context.Context, w *ws) error {
	dirty := false
	status := w.cmd("merge worktree", "", "status", "--porcelain", "-z", "--untracked-files=no")
	status.dir = w.Top
	if err := m.scan(ctx, status, func([]byte) error { dirty = true; return errStop }); err != nil {
		return err
	}
	if dirty {
		return fmt.Errorf("checkpoint: %s has uncommitted changes to tracked files; commit or stash them, then merge again", w.Top)
	}
	return nil
}

// refuseMergeAttrs checks the attributes of every path the merge brings,
// as both work trees define them.
func (m *Manager) refuseMergeAttrs(ctx context.Context, w, wt *ws, into, from string) error {
	base, err := m.mergeBase(ctx, w, into, from)
	if err != nil {
		return err
	}
	var paths []string
	err = m.scan(ctx, w.cmd("merge worktree", "", "diff-tree", "-r", "-z", "--name-only", "--no-renames", base, from),
		func(rec []byte) error { paths = append(paths, string(rec)); return nil })
	if err != nil {
		return err
	}
	if err := m.refuseAttrs(ctx, w, paths, true, "merge"); err != nil {
		return err
	}
	return m.refuseAttrs(ctx, wt, paths, true, "merge")
}

// abortConflict turns a failed merge into a *MergeConflictError after
// aborting it, when it stopped on conflicts; any other failure is
// returned as it is (git left nothing half-done).
func (m *Manager) abortConflict(ctx context.Context, w *ws, res Merged, mergeErr error) error {
	var files []string
	list := w.cmd("merge worktree", "", "diff", "--name-only", "-z", "--diff-filter=U", "--no-ext-diff")
	list.dir = w.Top
	if err := m.scan(ctx, list, func(rec []byte) error { files = append(files, string(rec)); return nil }); err != nil {
		return err
	}
	if len(files) == 0 {
		return mergeErr
	}
	abort := w.cmd("merge worktree", "", "merge", "--abort")
	abort.dir = w.Top
	if _, err := m.run(ctx, abort); err != nil {
		return fmt.Errorf("checkpoint: merging %s into %s conflicts in %s and git merge --abort failed: %w; finish or abort the merge in %s by hand",
			res.From, res.Into, strings.Join(files, ", "), err, w.Top)
	}
	return &MergeConflictError{Into: res.Into, From: res.From, Dir: w.Top, Files: files}
}
