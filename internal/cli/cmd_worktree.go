package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// Per-thread git worktrees are made and removed at the edge, by the
// invocation that asks for them, before (or after) the kernel journals
// the thread: they live under the state dir, never in the user's tree.

func (a *app) checkpoints() (*checkpoint.Manager, string, error) {
	dir, err := a.resolveStateDir()
	if err != nil {
		return nil, "", err
	}
	return checkpoint.New(dir, checkpoint.Options{}), dir, nil
}

// addWorktree makes the worktree of a new thread (or fork) id from repo at
// a commit ("HEAD" for a new thread, a checkpoint for a fork).
func (a *app) addWorktree(ctx context.Context, id, repo, commit, branch string) (string, error) {
	m, dir, err := a.checkpoints()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "worktrees", id)
	if _, err := m.AddWorktree(ctx, repo, path, commit, branch); err != nil {
		return "", failErr("cannot make a worktree for %s from %s: %v", id, repo, err)
	}
	return path, nil
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

// removeWorktree removes an archived thread's worktree; a worktree with
// uncommitted work is kept unless force is set.
func (a *app) removeWorktree(ctx context.Context, th *core.Thread, force bool) error {
	m, _, err := a.checkpoints()
	if err != nil {
		return err
	}
	if err := m.RemoveWorktree(ctx, th.Repo, th.Worktree, force); err != nil {
		return failErr("thread %s is archived but its worktree %s stays: %v", th.ID, th.Worktree, err)
	}
	fmt.Fprintf(a.stdout, "removed worktree %s\n", th.Worktree)
	return nil
}

// worktreeDirty reports whether a thread's worktree holds uncommitted work.
func (a *app) worktreeDirty(ctx context.Context, th *core.Thread) (bool, error) {
	m, _, err := a.checkpoints()
	if err != nil {
		return false, err
	}
	return m.WorktreeDirty(ctx, th.Worktree)
}
