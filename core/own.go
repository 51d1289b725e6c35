package core

import (
	"path"
	"slices"
	"strings"
)

// A run's own changes. A rollback changes only what its thread changed,
// so every run's checkpoint lists the paths its own agent changed: exact
// for the writes the agent reported (Node.Paths: the built-in agent's
// write and edit steps, the paths an external agent's tool calls
// report), and for commands and tool calls that report no path, the
// paths whose files were modified while one of them ran (FileChange.By =
// ByCommand; a deleted file, which has no modification time, counts as
// the run's when the run ran a command). Every other change in the
// directory during the run is counted in Checkpoint.Outside, not listed.

// maxNodePaths bounds the paths one node records.
const maxNodePaths = 64

// cleanPaths normalises reported paths: slash-separated, relative to the
// workspace, without "." segments; absolute paths and paths that leave
// the workspace are dropped. At most maxNodePaths are kept.
func cleanPaths(ps []string) []string {
	var out []string
	for _, p := range ps {
		p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if p == "." || p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || len(p) > 4096 {
			continue
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
		if len(out) == maxNodePaths {
			break
		}
	}
	return out
}

// sameNode reports whether two nodes say the same thing, Paths aside.
func sameNode(a, b *Node) bool {
	type fields struct {
		id, attempt, run, thread, parent, title, text, key, action, hash string
		kind                                                             NodeKind
		status                                                           NodeStatus
		started, ended, dur                                              int64
		in, out, exit                                                    int
		cost                                                             float64
	}
	f := func(n *Node) fields {
		return fields{n.ID, n.Attempt, n.Run, n.Thread, n.Parent, n.Title, n.Text, n.Key, n.Action, n.Hash,
			n.Kind, n.Status, n.StartedAt, n.EndedAt, n.DurationMS, n.TokensIn, n.TokensOut, n.Exit, n.CostUSD}
	}
	return f(a) == f(b)
}

// ownOf is what a run's capture needs to list only the run's own
// changes: the paths its nodes reported writing, and the time windows of
// its commands and of its tool calls that reported no path.
func (st *State) ownOf(r *Run, now int64) (paths []string, windows []Window) {
	for _, a := range st.AttemptsOf(r.ID) {
		for _, n := range st.NodesOf(a.ID) {
			switch {
			case len(n.Paths) > 0:
				for _, p := range n.Paths {
					if !slices.Contains(paths, p) {
						paths = append(paths, p)
					}
				}
			case n.Kind == NodeWorkerStep && !readOnlyActions[n.Action], n.Kind == NodeToolCall:
				end := n.EndedAt
				if end == 0 {
					end = now
				}
				windows = append(windows, Window{From: n.StartedAt, To: end})
			}
		}
	}
	slices.Sort(paths)
	return paths, windows
}

// ownPaths are the paths the runs of a thread after run n changed (and
// run n's own too when within: a rollback to a point inside run n), as
// their checkpoints list them, with the paths of the marks taken after
// run n (numbered above afterMark: a rollback to mark k keeps what the
// marks up to k hold); all when any of them does not list them
// all (captured before checkpoints listed a run's own changes, or more
// than MaxCheckpointFiles): a rollback then changes every path that
// differs.
func (st *State) ownPaths(thread string, n int, within bool, afterMark int) (paths []string, all bool) {
	for _, r := range st.RunsOf(thread) {
		if r.Ordinal < n || r.Ordinal == n && !within || r.Status == RunRolledBack {
			continue
		}
		cp := st.Checkpoints[CheckpointID(thread, RunScope(r.Ordinal))]
		if cp == nil && (r.Status == RunQueued || r.Status == RunCancelled) {
			continue // it never ran
		}
		if cp == nil || !cp.Own || cp.MoreFiles > 0 {
			return nil, true
		}
		for _, f := range cp.Files {
			if !slices.Contains(paths, f.Path) {
				paths = append(paths, f.Path)
			}
		}
	}
	// What a person marked after that point is the thread's too: a mark
	// takes the files as they are into the thread's history.
	for k := afterMark + 1; k <= st.MarkCount(thread); k++ {
		cp := st.Checkpoints[CheckpointID(thread, MarkScope(k))]
		if cp == nil || cp.Status != CkReady || cp.Run < n {
			continue
		}
		if cp.MoreFiles > 0 {
			return nil, true
		}
		for _, f := range cp.Files {
			if !slices.Contains(paths, f.Path) {
				paths = append(paths, f.Path)
			}
		}
	}
	slices.Sort(paths)
	return paths, false
}

// maxOpPaths bounds the paths an operation records (Changed, Kept).
const maxOpPaths = 1000

// capPaths is a sorted copy of at most maxOpPaths paths.
func capPaths(ps []string) []string {
	if len(ps) == 0 {
		return nil
	}
	out := slices.Clone(ps)
	slices.Sort(out)
	if len(out) > maxOpPaths {
		out = out[:maxOpPaths]
	}
	return out
}
