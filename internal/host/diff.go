package host

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// DiffQuery names a diff of a thread: run Run's changes (0: the latest
// run with a ready checkpoint), or with From and To the changes between
// two of its checkpoints (a run number, base, a scope such as mark/1, or
// an id). Stat keeps only the file list and counts.
type DiffQuery struct {
	Thread   string
	Run      int
	From, To string
	Stat     bool
}

// Diff is the text `nexus diff` prints for q: one line per changed file
// with its line counts, a total, and unless q.Stat the unified patch,
// "[diff truncated]" after a patch cut at the checkpoint manager's
// limit. The CLI prints it, the UI's diff view shows it, and a host in
// team mode answers it for the hub's other machines (its checkpoints are
// on its own disk), so all say the same.
//
// It only reads: git plumbing against the workspace's repository and the
// shadow git dir under stateDir, never the journal. Errors read as one
// line.
func Diff(ctx context.Context, st *core.State, stateDir string, q DiffQuery) (string, error) {
	th := st.Threads[q.Thread]
	if th == nil {
		return "", fmt.Errorf("unknown thread %q: list threads with `nexus thread list`", q.Thread)
	}
	if q.From != "" || q.To != "" {
		return checkpointDiff(ctx, st, stateDir, th, q)
	}
	n := q.Run
	if n == 0 {
		for _, r := range st.RunsOf(th.ID) {
			if c := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(r.Ordinal))]; c != nil && c.Status == core.CkReady {
				n = r.Ordinal
			}
		}
		if n == 0 {
			return "", fmt.Errorf("thread %s has no run with a checkpoint yet", th.ID)
		}
	}
	to := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(n))]
	if to == nil || to.Status != core.CkReady {
		return "", fmt.Errorf("run %d of %s has no ready checkpoint (%s)", n, th.ID, CheckpointState(to))
	}
	var only []string
	if to.Own && to.MoreFiles == 0 {
		// The run's own changes; the others in the directory are counted.
		only = []string{}
		for _, f := range to.Files {
			only = append(only, f.Path)
		}
	}
	out, err := diffText(ctx, stateDir, th.Workspace, st.ParentCommit(th.ID, n), to.Commit, q.Stat, fmt.Sprintf("run %d", n), only)
	if err == nil && to.Own && to.Outside > 0 {
		out += fmt.Sprintf(" (%d other change(s) in the directory during the run, by hand or by another thread, are not this thread's and not shown)\n", to.Outside)
	}
	return out, err
}

// checkpointDiff is Diff between two named checkpoints of th.
func checkpointDiff(ctx context.Context, st *core.State, stateDir string, th *core.Thread, q DiffQuery) (string, error) {
	if q.From == "" || q.To == "" || q.Run != 0 {
		return "", errors.New("give --from and --to together, or --run N")
	}
	from, err := namedCheckpoint(st, th.ID, q.From)
	if err != nil {
		return "", err
	}
	to, err := namedCheckpoint(st, th.ID, q.To)
	if err != nil {
		return "", err
	}
	return diffText(ctx, stateDir, th.Workspace, from.Commit, to.Commit, q.Stat, from.Scope+".."+to.Scope, nil)
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
		return nil, fmt.Errorf("thread %s has no checkpoint %q: name a run number, base, a scope such as mark/1, or an id from `nexus thread show %s`", thread, name, thread)
	case c.Commit == "":
		return nil, fmt.Errorf("checkpoint %s has no commit (%s)", c.ID, CheckpointState(c))
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
		if errors.Is(err, checkpoint.ErrNotFound) {
			// In team mode, not damage: a host that took a project over
			// has none of the checkpoints made on its predecessor's disk.
			return "", fmt.Errorf("diff of %s: %w; a project taken over from another machine has none of the checkpoints made there", what, err)
		}
		return "", fmt.Errorf("diff of %s: %w", what, err)
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

// CheckpointState says where a checkpoint stands: "none", or its status
// and why.
func CheckpointState(c *core.Checkpoint) string {
	if c == nil {
		return "none"
	}
	return string(c.Status) + " " + c.Reason
}
