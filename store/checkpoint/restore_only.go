package checkpoint

import (
	"context"
	"sort"
)

// RestoreOnly puts back, of the paths that differ between from (the
// state the thread left the workspace in) and commit (where it goes
// back to), commit's version; when only is not nil, just the paths in
// it. Every other path is left alone: what another thread or a person
// changed elsewhere in the directory stays. A path whose file now
// differs from both from and commit was changed since by someone else:
// it is kept and listed in Kept, unless force, which overwrites it.
// A path already equal to commit counts as written, so running it again
// after a crash finishes the job and reports the same outcome. With a
// thread, the thread's tip moves to commit afterwards, as with Restore.
func (m *Manager) RestoreOnly(ctx context.Context, workspace, thread, commit, from string, only []string, force bool) (Restored, error) {
	return m.restoreWith(ctx, workspace, thread, func(ctx context.Context, w *ws) (Restored, error) {
		return m.restoreOnly(ctx, w, commit, from, only, force)
	})
}

func (m *Manager) restoreOnly(ctx context.Context, w *ws, commit, from string, only []string, force bool) (Restored, error) {
	ids, err := m.commitsOf(ctx, w, "restore", commit, from)
	if err != nil {
		return Restored{}, err
	}
	r := Restored{Commit: ids[0]}
	// The candidates: what differs between the two, and whether commit
	// has each (written back) or not (removed).
	present := map[string]bool{}
	var allowed map[string]bool
	if only != nil {
		allowed = make(map[string]bool, len(only))
		mark(allowed, only)
	}
	var status string
	wantPath := false
	err = m.scan(ctx, w.cmd("restore", "", "diff-tree", "-r", "-z", "--no-renames", "--raw", "--relative", ids[1], ids[0]),
		func(rec []byte) error {
			if !wantPath {
				if len(rec) > 0 && rec[0] == ':' {
					status, wantPath = string(rec[len(rec)-1:]), true
				}
				return nil
			}
			wantPath = false
			p := string(rec)
			if allowed == nil || allowed[p] {
				present[p] = status != "D"
			}
			return nil
		})
	if err != nil || len(present) == 0 {
		return r, err
	}
	toTarget, cleanupT, err := m.targetIndex(ctx, w, ids[0], "restore")
	if err != nil {
		return r, err
	}
	defer cleanupT()
	notTarget, err := m.differing(ctx, w, toTarget)
	if err != nil {
		return r, err
	}
	toFrom, cleanupF, err := m.targetIndex(ctx, w, ids[1], "restore")
	if err != nil {
		return r, err
	}
	defer cleanupF()
	notFrom, err := m.differing(ctx, w, toFrom)
	if err != nil {
		return r, err
	}
	var write, remove []string
	for p, has := range present {
		switch {
		case !notTarget[p] && has: // already as commit has it
			r.Written = append(r.Written, p)
		case !notTarget[p]:
			r.Removed = append(r.Removed, p)
		case notFrom[p] && !force:
			r.Kept = append(r.Kept, p)
		case has:
			write = append(write, p)
		default:
			remove = append(remove, p)
		}
	}
	sort.Strings(write)
	sort.Strings(remove)
	if len(write) > 0 {
		if err := m.checkout(ctx, w, toTarget, write); err != nil {
			return r, err
		}
		r.Written = append(r.Written, write...)
	}
	removed, below, err := removeFiles(w.Path, remove)
	r.Removed = append(r.Removed, removed...)
	r.Skipped = append(r.Skipped, below...)
	sort.Strings(r.Written)
	sort.Strings(r.Removed)
	sort.Strings(r.Kept)
	sort.Strings(r.Skipped)
	return r, err
}

// differing is the set of paths whose files differ from index (changed,
// deleted or untracked; ignored files aside).
func (m *Manager) differing(ctx context.Context, w *ws, index string) (map[string]bool, error) {
	changed, others, err := m.differences(ctx, w, index, "restore", false)
	set := make(map[string]bool, len(changed)+len(others))
	mark(set, changed)
	mark(set, others)
	return set, err
}
