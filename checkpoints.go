package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// checkpointer runs the kernel's checkpoint and restore effects with the
// git-plumbing checkpoint manager and reports back as observations.
type checkpointer struct {
	m    *checkpoint.Manager
	sink interface {
		Observe(ctx context.Context, o core.Observation) error
	}
	ctx context.Context
	wg  sync.WaitGroup
}

// exec starts an effect on its own goroutine; it never blocks the Runner.
func (c *checkpointer) exec(e core.Effect) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		var o core.Observation
		switch e.Kind {
		case core.EffCheckpoint:
			o = c.capture(e)
		case core.EffRestore:
			o = c.restore(e)
		default:
			return
		}
		_ = c.sink.Observe(c.ctx, o)
	}()
}

func (c *checkpointer) capture(e core.Effect) core.Observation {
	o := core.Observation{Kind: core.ObsCheckpoint, Thread: e.Thread, Run: e.Run, Key: e.Scope}
	failpoint.Hit("checkpoint.capture")
	cp, err := c.m.Capture(c.ctx, e.Workspace, e.Thread, e.Scope)
	if err != nil {
		o.Status, o.Error = core.CkError, err.Error()
		return o
	}
	o.Status, o.Hash, o.Title = core.CkReady, cp.Commit, cp.Ref
	if e.Scope != core.ScopeBase {
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
	if e.Commit != "" && cp.Parent == e.Commit && cp.Changed == 0 {
		return // Capture counted no change against that same parent
	}
	d, err := c.m.Stats(c.ctx, e.Workspace, e.Commit, cp.Commit)
	if err != nil {
		o.Error = "checkpoint captured, but its file list is not recorded: " + err.Error()
		return
	}
	o.Files = make([]core.FileChange, len(d.Files))
	for i, f := range d.Files {
		o.Files[i] = core.FileChange{Path: f.Path, Status: f.Status, Added: f.Added, Deleted: f.Deleted, Binary: f.Binary}
	}
}

func (c *checkpointer) restore(e core.Effect) core.Observation {
	o := core.Observation{Kind: core.ObsRestored, Thread: e.Thread, Key: e.Scope}
	failpoint.Hit("rollback.files.before")
	r, err := c.m.Restore(c.ctx, e.Workspace, e.Thread, e.Commit)
	failpoint.Hit("rollback.files.after")
	if err != nil {
		o.Status, o.Error = "failed", err.Error()
		return o
	}
	o.Status = "completed"
	o.Text = fmt.Sprintf("%d file(s) restored, %d removed", len(r.Written), len(r.Removed))
	if len(r.Skipped) > 0 {
		o.Text += fmt.Sprintf(", %d left alone (%v)", len(r.Skipped), r.Skipped)
	}
	return o
}

// wait blocks until running effects have reported.
func (c *checkpointer) wait() { c.wg.Wait() }
