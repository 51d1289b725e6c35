package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// runDiff is the text `nexus diff THREAD --run N [--stat]` prints: one
// line per changed file with its line counts, a total, and unless stat
// the unified patch of run N (against the newest ready checkpoint before
// it, State.ParentCommit), "[diff truncated]" after a patch cut at the
// checkpoint manager's limit. run 0 is the thread's latest run with a
// ready checkpoint. The CLI prints it and the TUI's diff view shows it
// (tui.Options.Diff), so both say the same.
//
// It only reads: git plumbing against the workspace's repository and the
// shadow git dir under stateDir, never the journal, so a TUI that is a
// client of a host computes it in its own process from a copy of the
// state. Errors are failErr (exit 1) and read as one line.
func runDiff(ctx context.Context, st *core.State, stateDir, thread string, run int, stat bool) (string, error) {
	th := st.Threads[thread]
	if th == nil {
		return "", failErr("unknown thread %q: list threads with `nexus thread list`", thread)
	}
	n := run
	if n == 0 {
		for _, r := range st.RunsOf(th.ID) {
			if c := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(r.Ordinal))]; c != nil && c.Status == core.CkReady {
				n = r.Ordinal
			}
		}
		if n == 0 {
			return "", failErr("thread %s has no run with a checkpoint yet", th.ID)
		}
	}
	to := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(n))]
	if to == nil || to.Status != core.CkReady {
		return "", failErr("run %d of %s has no ready checkpoint (%s)", n, th.ID, checkpointState(to))
	}
	var only []string
	if to.Own && to.MoreFiles == 0 {
		// The run's own changes; the others in the directory are counted.
		only = []string{}
		for _, f := range to.Files {
			only = append(only, f.Path)
		}
	}
	out, err := diffText(ctx, stateDir, th.Workspace, st.ParentCommit(th.ID, n), to.Commit, stat, fmt.Sprintf("run %d", n), only)
	if err == nil && to.Own && to.Outside > 0 {
		out += fmt.Sprintf(" (%d other change(s) in the directory during the run, by hand or by another thread, are not this thread's and not shown)\n", to.Outside)
	}
	return out, err
}

// checkpointDiff is the text of `nexus diff THREAD --from A --to B`: the
// changes from one checkpoint of the thread to another, each named by a
// run number, base, a scope (mark/1, node/2/a1/n3) or a checkpoint id.
func checkpointDiff(ctx context.Context, st *core.State, stateDir, thread, fromName, toName string, stat bool) (string, error) {
	th := st.Threads[thread]
	if th == nil {
		return "", failErr("unknown thread %q: list threads with `nexus thread list`", thread)
	}
	from, err := namedCheckpoint(st, th.ID, fromName)
	if err != nil {
		return "", err
	}
	to, err := namedCheckpoint(st, th.ID, toName)
	if err != nil {
		return "", err
	}
	return diffText(ctx, stateDir, th.Workspace, from.Commit, to.Commit, stat, from.Scope+".."+to.Scope, nil)
}

// namedCheckpoint finds a thread's checkpoint by run number, base, scope
// or id. Stale ones are fine: their commits stay under their refs.
func namedCheckpoint(st *core.State, thread, name string) (*core.Checkpoint, error) {
	id := name
	if n, err := strconv.Atoi(name); err == nil && n >= 0 {
		id = core.CheckpointID(thread, core.RunScope(n))
		if n == 0 {
			id = core.CheckpointID(thread, core.ScopeBase)
		}
	} else if !strings.Contains(name, "/cp/") {
		id = core.CheckpointID(thread, name)
	}
	c := st.Checkpoints[id]
	switch {
	case c == nil || c.Thread != thread:
		return nil, failErr("thread %s has no checkpoint %q: name a run number, base, a scope such as mark/1, or an id from `nexus thread show %s`", thread, name, thread)
	case c.Commit == "":
		return nil, failErr("checkpoint %s has no commit (%s)", c.ID, checkpointState(c))
	}
	return c, nil
}

// diffText prints a diff between two commits as `nexus diff` does, of
// only those paths when only is not nil; what names it in an error.
func diffText(ctx context.Context, stateDir, workspace, from, to string, stat bool, what string, only []string) (string, error) {
	m := checkpoint.New(stateDir, checkpoint.Options{})
	var d checkpoint.Diff
	var err error
	if only != nil {
		d, err = m.DiffOnly(ctx, workspace, from, to, only)
	} else {
		d, err = m.Diff(ctx, workspace, from, to)
	}
	if err != nil {
		return "", failErr("diff of %s: %v", what, err)
	}
	var b strings.Builder
	for _, f := range d.Files {
		fmt.Fprintf(&b, " %s %s | +%d -%d\n", f.Status, f.Path, f.Added, f.Deleted)
	}
	fmt.Fprintf(&b, " %d file(s) changed, %d insertion(s), %d deletion(s)\n", len(d.Files), d.Added, d.Deleted)
	if !stat {
		b.WriteString("\n" + strings.TrimRight(d.Patch, "\n") + "\n")
		if d.Truncated {
			b.WriteString("[diff truncated]\n")
		}
	}
	return b.String(), nil
}
