package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// Per-thread git worktrees are made and removed at the edge, by the
// invocation that asks for them, before (or after) the kernel journals
// the thread: they live under the state dir (STATE_DIR/worktrees), or
// under the config file's [worktree] dir, never in the user's tree.

// worktrees are the worktree operations of one invocation: a checkpoint
// manager on the state dir and the directory worktrees go in. Safe for
// concurrent use: the UI calls them from its Cmds.
type worktrees struct {
	m    *checkpoint.Manager
	root string // each thread's worktree is root/<thread id>
}

// worktrees binds the operations to this invocation's state dir and
// config file (read once, before any goroutine may call them).
func (a *app) worktrees() (*worktrees, error) {
	if err := a.edgeRefused("a thread's git worktree"); err != nil {
		return nil, err
	}
	dir, err := a.resolveStateDir()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "worktrees")
	if cfg.WorktreeDir != "" {
		home, herr := os.UserHomeDir()
		if herr != nil && cfg.WorktreeDir[0] == '~' {
			return nil, usageErr("config %s: worktree.dir %q starts with ~ but the home directory is unknown: %v; set HOME or write an absolute path", cfg.Path, cfg.WorktreeDir, herr)
		}
		root = cfg.WorktreeRoot(home)
	}
	return &worktrees{m: checkpoint.New(dir, checkpoint.Options{}), root: root}, nil
}

// add makes the worktree of a new thread (or fork) id from repo at a
// commit ("HEAD" for a new thread, a checkpoint for a fork).
func (w *worktrees) add(ctx context.Context, id, repo, commit, branch string) (string, error) {
	path := filepath.Join(w.root, id)
	if _, err := w.m.AddWorktree(ctx, repo, path, commit, branch); err != nil {
		return "", failErr("cannot make a worktree for %s from %s: %v", id, repo, err)
	}
	return path, nil
}

// freeBranch is name, or name-2, name-3... when it is taken in repo: a
// suggested branch name must not fail the creation.
func (w *worktrees) freeBranch(ctx context.Context, repo, name string) (string, error) {
	for i := 1; i < 100; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s-%d", name, i)
		}
		taken, err := w.m.BranchExists(ctx, repo, try)
		if err != nil || !taken {
			return try, err
		}
	}
	return "", failErr("branches %s to %s-99 all exist; name the branch yourself", name, name)
}

// forkCommit is the checkpoint a fork of run n starts from: the latest
// completed run at or before n that has a ready checkpoint.
func forkCommit(st *core.State, th *core.Thread, n int) (string, error) {
	if n == 0 {
		n = th.Runs
	}
	for i := n; i >= 1; i-- {
		r := st.RunByOrdinal(th.ID, i)
		if r == nil || r.Status != core.RunCompleted {
			continue
		}
		if c := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(i))]; c != nil && c.Status == core.CkReady {
			return c.Commit, nil
		}
	}
	if c := st.Checkpoints[core.CheckpointID(th.ID, core.ScopeBase)]; c != nil && c.Status == core.CkReady {
		return c.Commit, nil
	}
	return "", failErr("thread %s has no checkpoint to fork a worktree from", th.ID)
}

// forkRepo is the repository a fork's worktree is made from: the
// source's own repository when it has a worktree, else its workspace.
func forkRepo(src *core.Thread) string {
	if src.Repo != "" {
		return src.Repo
	}
	return src.Workspace
}

// remove removes an archived thread's worktree; a worktree with
// uncommitted work is kept unless force is set.
func (w *worktrees) remove(ctx context.Context, th *core.Thread, force bool) error {
	if err := w.m.RemoveWorktree(ctx, th.Repo, th.Worktree, force); err != nil {
		return failErr("thread %s is archived but its worktree %s stays: %v", th.ID, th.Worktree, err)
	}
	return nil
}

// dirty reports whether a thread's worktree holds uncommitted work.
func (w *worktrees) dirty(ctx context.Context, th *core.Thread) (bool, error) {
	return w.m.WorktreeDirty(ctx, th.Worktree)
}
