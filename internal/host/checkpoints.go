package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// checkpointer runs the kernel's checkpoint and restore effects with the
// git-plumbing checkpoint manager and reports back as observations.
// Effects on one workspace run one at a time in the order the kernel
// issued them, so a subagent node's capture is done before its run's.
type checkpointer struct {
	m    *checkpoint.Manager
	sink interface {
		Observe(ctx context.Context, o core.Observation) error
	}
	ctx context.Context
	wg  sync.WaitGroup

	mu     sync.Mutex
	queues map[string][]core.Effect // workspace -> effects waiting, the first one running
}

// exec queues an effect behind the workspace's earlier ones; it never
// blocks the Runner.
func (c *checkpointer) exec(e core.Effect) {
	if e.Kind != core.EffCheckpoint && e.Kind != core.EffRestore {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.queues == nil {
		c.queues = map[string][]core.Effect{}
	}
	q, busy := c.queues[e.Workspace]
	c.queues[e.Workspace] = append(q, e)
	if busy {
		return
	}
	c.wg.Add(1)
	go c.drain(e.Workspace)
}

// drain runs a workspace's queued effects until none is left.
func (c *checkpointer) drain(ws string) {
	defer c.wg.Done()
	for {
		c.mu.Lock()
		q := c.queues[ws]
		if len(q) == 0 {
			delete(c.queues, ws)
			c.mu.Unlock()
			return
		}
		e := q[0]
		c.mu.Unlock()
		var o core.Observation
		if e.Kind == core.EffCheckpoint {
			o = c.capture(e)
		} else {
			o = c.restore(e)
		}
		_ = c.sink.Observe(c.ctx, o)
		c.mu.Lock()
		c.queues[ws] = c.queues[ws][1:]
		c.mu.Unlock()
	}
}

func (c *checkpointer) capture(e core.Effect) core.Observation {
	o := core.Observation{Kind: core.ObsCheckpoint, Thread: e.Thread, Run: e.Run, Key: e.Scope}
	failpoint.Hit("checkpoint.capture")
	if core.IsSafetyScope(e.Scope) {
		failpoint.Hit("rollback.safety")
	}
	cp, err := c.m.Capture(c.ctx, e.Workspace, e.Thread, e.Scope)
	if err != nil {
		o.CheckpointStatus, o.Error = core.CkError, err.Error()
		return o
	}
	o.CheckpointStatus, o.Commit, o.Ref = core.CkReady, cp.Commit, cp.Ref
	if e.Scope != core.ScopeBase && !core.IsSafetyScope(e.Scope) {
		c.stats(e, &cp, &o)
	}
	return o
}

// stats fills in the files a run's checkpoint changed against the parent
// the kernel named in the effect (the empty tree when it named none, as
// `nexus diff` does). The checkpoint is captured already: a failure here
// must not lose it, so it is recorded ready without files and the failure
// goes in its reason.
func (c *checkpointer) stats(e core.Effect, cp *checkpoint.Checkpoint, o *core.Observation) {
	o.Own = e.Own
	if e.Commit != "" && cp.Parent == e.Commit && cp.Changed == 0 {
		return // Capture counted no change against that same parent
	}
	d, err := c.m.Stats(c.ctx, e.Workspace, e.Commit, cp.Commit)
	if err != nil {
		o.Own = false
		o.Error = "checkpoint captured, but its file list is not recorded: " + err.Error()
		return
	}
	own := map[string]bool{}
	for _, p := range e.Paths {
		own[p] = true
	}
	for _, f := range d.Files {
		fc := core.FileChange{Path: f.Path, Status: f.Status, Added: f.Added, Deleted: f.Deleted, Binary: f.Binary}
		if e.Own {
			switch {
			case own[f.Path]:
				fc.By = core.ByAgent
			case changedDuring(filepath.Join(e.Workspace, filepath.FromSlash(f.Path)), f.Status, e.Windows):
				fc.By = core.ByCommand
			default:
				o.Outside++ // by hand or by another thread
				continue
			}
		}
		o.Files = append(o.Files, fc)
	}
}

// windowSlack widens a command's window for file systems that keep
// modification times coarsely.
const windowSlack = 10 * time.Millisecond

// changedDuring reports whether a file changed while one of windows
// ran: its modification time falls in one; a deleted file, which has
// none, counts when there is any window at all.
func changedDuring(path, status string, windows []core.Window) bool {
	if len(windows) == 0 {
		return false
	}
	if status == "D" {
		return true
	}
	st, err := os.Lstat(path)
	if err != nil {
		return true // gone since: as for a deleted file
	}
	t := st.ModTime().UnixNano()
	for _, w := range windows {
		if t >= w.From-int64(windowSlack) && t <= w.To+int64(windowSlack) {
			return true
		}
	}
	return false
}

func (c *checkpointer) restore(e core.Effect) core.Observation {
	o := core.Observation{Kind: core.ObsRestored, Thread: e.Thread, Key: e.Scope}
	failpoint.Hit("rollback.files.before")
	var r checkpoint.Restored
	var err error
	if e.From != "" {
		only := e.Only // nil means every path to RestoreOnly
		if e.AllPaths {
			only = nil
		} else if only == nil {
			only = []string{}
		}
		r, err = c.m.RestoreOnly(c.ctx, e.Workspace, e.Thread, e.Commit, e.From, only, e.Force)
	} else {
		r, err = c.m.Restore(c.ctx, e.Workspace, e.Thread, e.Commit)
	}
	failpoint.Hit("rollback.files.after")
	if err != nil {
		o.EffectStatus, o.Error = core.EffFailed, err.Error()
		return o
	}
	o.EffectStatus = core.EffCompleted
	o.Text = fmt.Sprintf("%d file(s) restored, %d removed", len(r.Written), len(r.Removed))
	o.Paths = append(append([]string(nil), r.Written...), r.Removed...)
	if len(o.Paths) > maxRestoredPaths {
		o.Paths, o.PathsAll = nil, true
	}
	o.Kept = r.Kept
	if len(r.Skipped) > 0 {
		o.Text += fmt.Sprintf(", %d left alone (%v)", len(r.Skipped), r.Skipped)
	}
	if e.Since != "" {
		dirty, err := c.m.Dirty(c.ctx, e.Workspace, e.Since)
		if err != nil {
			o.Text += "; whether the files still differ from the run's checkpoint is unknown: " + err.Error()
		}
		o.Dirty = dirty || err != nil
	}
	return o
}

// maxRestoredPaths bounds the paths a restore reports (the operation
// journals them, for its undo); beyond it the undo restores every path
// that differs.
const maxRestoredPaths = 1000

// wait blocks until running effects have reported.
func (c *checkpointer) wait() { c.wg.Wait() }
