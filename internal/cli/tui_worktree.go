package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
	"github.com/nexus-tui/nexus/tui"
)

// tuiWorktrees are the UI's worktree operations (tui.Options.Worktrees):
// the same as the command line's, in this process (a client's too), on a
// fresh copy of the state for each call. The UI calls them off its event
// loop.
func tuiWorktrees(b core.Backend, w *worktrees) *tui.Worktrees {
	thread := func(ctx context.Context, id string) (*core.State, *core.Thread, error) {
		st, err := b.State(ctx)
		if err != nil {
			return nil, nil, err
		}
		th := st.Threads[id]
		switch {
		case th == nil:
			return nil, nil, failErr("unknown thread %q", id)
		case th.Worktree == "":
			return nil, nil, failErr("thread %s works in %s, not in a worktree of its own", id, th.Workspace)
		}
		return st, th, nil
	}
	return &tui.Worktrees{
		Repo: func(ctx context.Context, dir string) (string, error) {
			top, err := w.m.RepoTop(ctx, dir)
			if err != nil || top == "" {
				return top, err
			}
			// A repository with no commit yet cannot give a worktree.
			if _, err := w.m.Resolve(ctx, top, "HEAD"); errors.Is(err, checkpoint.ErrNotFound) {
				return "", errors.New("the repository has no commit yet: commit once to give threads worktrees of their own")
			}
			return top, nil
		},
		Add: func(ctx context.Context, spec tui.WorktreeSpec) (tui.WorktreeMade, error) {
			return w.addFor(ctx, b, spec)
		},
		Diff: func(ctx context.Context, id string) (string, error) {
			_, th, err := thread(ctx, id)
			if err != nil {
				return "", err
			}
			return w.diffText(ctx, th)
		},
		Commit: func(ctx context.Context, id, message string) (string, error) {
			_, th, err := thread(ctx, id)
			if err != nil {
				return "", err
			}
			c, err := w.m.CommitWorktree(ctx, th.Worktree, message)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("committed %s on %s (%d file(s))", shortCommit(c.Commit), branchOrDetached(c.Branch), c.Files), nil
		},
		Merge: func(ctx context.Context, id string) (string, error) {
			_, th, err := thread(ctx, id)
			if err != nil {
				return "", err
			}
			mg, err := w.m.MergeWorktree(ctx, th.Repo, th.Worktree)
			switch {
			case err != nil:
				return "", err
			case mg.UpToDate:
				return fmt.Sprintf("%s already holds everything on %s", mg.Into, mg.From), nil
			case mg.FastForward:
				return fmt.Sprintf("merged %s into %s (fast-forward to %s)", mg.From, mg.Into, shortCommit(mg.Commit)), nil
			}
			return fmt.Sprintf("merged %s into %s (merge commit %s)", mg.From, mg.Into, shortCommit(mg.Commit)), nil
		},
		Dirty: func(ctx context.Context, id string) (bool, error) {
			_, th, err := thread(ctx, id)
			if err != nil {
				return false, err
			}
			return w.dirty(ctx, th)
		},
		Remove: func(ctx context.Context, id string, force bool) error {
			_, th, err := thread(ctx, id)
			if err != nil {
				return err
			}
			return w.remove(ctx, th, force)
		},
	}
}

// addFor makes the worktree a new thread or fork of the UI asks for, as
// `thread new --worktree` and `thread fork --worktree` do.
func (w *worktrees) addFor(ctx context.Context, b core.Backend, spec tui.WorktreeSpec) (tui.WorktreeMade, error) {
	repo, commit := spec.Dir, "HEAD"
	if spec.From != "" {
		st, err := b.State(ctx)
		if err != nil {
			return tui.WorktreeMade{}, err
		}
		src := st.Threads[spec.From]
		if src == nil {
			return tui.WorktreeMade{}, failErr("unknown thread %q", spec.From)
		}
		if commit, err = forkCommit(st, src, spec.Run); err != nil {
			return tui.WorktreeMade{}, err
		}
		repo = forkRepo(src)
	}
	branch := spec.Branch
	if branch != "" && spec.AutoBranch {
		var err error
		if branch, err = w.freeBranch(ctx, repo, branch); err != nil {
			return tui.WorktreeMade{}, err
		}
	}
	path, err := w.add(ctx, spec.Thread, repo, commit, branch)
	if err != nil {
		return tui.WorktreeMade{}, err
	}
	return tui.WorktreeMade{Path: path, Repo: repo, Branch: branch}, nil
}

// diffText is the diff view's text for a worktree thread: what its
// worktree holds against the branch of its repository, in the shape of
// `nexus diff` after a line that names both.
func (w *worktrees) diffText(ctx context.Context, th *core.Thread) (string, error) {
	d, err := w.m.WorktreeDiff(ctx, th.Repo, th.Worktree)
	if err != nil {
		return "", failErr("diff of the worktree %s: %v", th.Worktree, err)
	}
	from, base := d.Branch, d.Base
	if from == "" {
		from = "detached " + shortCommit(d.Head)
	}
	if base == "" {
		base = "detached " + shortCommit(d.BaseCommit)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s against %s (since %s), uncommitted work included\n", from, base, shortCommit(d.MergeBase))
	for _, f := range d.Files {
		fmt.Fprintf(&b, " %s %s | +%d -%d\n", f.Status, f.Path, f.Added, f.Deleted)
	}
	fmt.Fprintf(&b, " %d file(s) changed, %d insertion(s), %d deletion(s)\n", len(d.Files), d.Added, d.Deleted)
	b.WriteString("\n" + strings.TrimRight(d.Patch, "\n") + "\n")
	if d.Truncated {
		b.WriteString("[diff truncated]\n")
	}
	return b.String(), nil
}
