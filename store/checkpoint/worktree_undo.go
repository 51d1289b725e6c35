package checkpoint

import (
	"context"
	"fmt"
	"strings"
)

// UndoMerge moves the branch checked out in repo's work tree from
// merged, where MergeWorktree of branch from took it, back to where it
// was before: the first parent of the merge commit it made, or base for
// a fast-forward (merged is from's tip; the branch then was at base,
// which from started from). It is `git reset --keep` with the package's neutral
// settings: uncommitted changes the merge did not touch stay, and git
// refuses (nothing changes) when they would be lost. It refuses when
// the branch has moved on from merged; run again after it succeeded it
// finds the branch where it should be and does nothing.
func (m *Manager) UndoMerge(ctx context.Context, repo, merged, base, from string) (string, error) {
	if badRev(merged) || badRev(base) || badRev(from) {
		return "", fmt.Errorf("%w: %q %q %q", ErrNotFound, merged, base, from)
	}
	w, unlock, err := m.open(ctx, repo)
	if err != nil {
		return "", err
	}
	defer unlock()
	if w.Shadow {
		return "", fmt.Errorf("%w: %s", ErrNotGit, w.Path)
	}
	h, err := m.headOf(ctx, w, "undo merge")
	if err != nil {
		return "", err
	}
	if h.branch == "" {
		return "", fmt.Errorf("checkpoint: %s has no branch checked out (detached HEAD at %s); check out the branch the result went to, then roll back again", w.Top, shortID(h.commit))
	}
	out, err := m.run(ctx, w.cmd("undo merge", "", "rev-list", "--parents", "-n", "1", merged))
	if err != nil {
		return "", err
	}
	parents := strings.Fields(string(out))
	tip, err := m.commitOf(ctx, w, "undo merge", from)
	if err != nil {
		return "", err
	}
	var target string
	switch {
	case merged == tip:
		target = base // a fast-forward
	case len(parents) > 2 && parents[2] == tip:
		target = parents[1] // the merge commit: the branch was at its first parent
	default:
		return "", fmt.Errorf("checkpoint: %s is not a merge of %s: cannot tell where the branch was before", shortID(merged), from)
	}
	switch h.commit {
	case target:
		return target, nil // done before
	case merged:
	default:
		return "", fmt.Errorf("checkpoint: %s moved on from the merged result %s (it is at %s now); move it back by hand (git reset) if that is what you want", h.name(), shortID(merged), shortID(h.commit))
	}
	c := w.cmd("undo merge", "", "reset", "-q", "--keep", target)
	c.dir = w.Top
	if _, err := m.run(ctx, c); err != nil {
		return "", fmt.Errorf("checkpoint: git reset --keep %s in %s: %w; your uncommitted changes would be lost: commit or stash them first", shortID(target), w.Top, err)
	}
	return target, nil
}
