package main

import (
	"context"
	"fmt"
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
	from := st.ParentCommit(th.ID, n)
	d, err := checkpoint.New(stateDir, checkpoint.Options{}).Diff(ctx, th.Workspace, from, to.Commit)
	if err != nil {
		return "", failErr("diff of run %d: %v", n, err)
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
