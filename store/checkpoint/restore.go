package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Restored reports what a Restore changed. Paths are slash-separated and
// relative to the workspace.
type Restored struct {
	Commit  string
	Written []string // files rewritten or re-created with the checkpoint's content
	Removed []string // files not in the checkpoint, deleted
	// Skipped are paths that still differ and were left alone: untracked
	// nested repositories, submodules, paths below a symbolic link.
	Skipped []string
	// Kept (RestoreOnly): paths changed since by someone else, left as
	// they are.
	Kept []string
}

// maxPasses bounds the restore loop; two passes are the common case.
const maxPasses = 5

// Restore makes the workspace's files equal a checkpoint: files that
// differ are rewritten, files that the checkpoint does not have (and that
// its ignore rules do not ignore) are removed, and directories emptied by
// removals are pruned. HEAD, the user's index and branches are untouched.
// Everything is computed from the files on disk, so running Restore again
// after a crash or a timeout finishes the job, and running it on a
// restored workspace changes nothing. With a thread, the thread's tip
// moves to commit afterwards, so its next capture counts changes from
// the restored state.
func (m *Manager) Restore(ctx context.Context, workspace, thread, commit string) (Restored, error) {
	return m.restoreWith(ctx, workspace, thread, func(ctx context.Context, w *ws) (Restored, error) {
		return m.restore(ctx, w, commit)
	})
}

// restoreWith runs a restore of a workspace under its lock and the
// restore time bound, then moves the thread's tip (when there is a
// thread) to the commit restored, as Restore and RestoreOnly do.
func (m *Manager) restoreWith(ctx context.Context, workspace, thread string, do func(context.Context, *ws) (Restored, error)) (Restored, error) {
	if thread != "" {
		if err := checkName(thread, false); err != nil {
			return Restored{}, err
		}
	}
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return Restored{}, err
	}
	defer unlock()
	rctx, cancel := context.WithTimeout(ctx, m.opts.RestoreTimeout)
	defer cancel()
	r, err := do(rctx, w)
	if err == nil && thread != "" {
		m.forgetTip(w, thread)
		_, err = m.run(rctx, w.cmd("restore", "", "update-ref", tipName(thread), r.Commit))
	}
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		err = fmt.Errorf("checkpoint: restore of %s stopped after %s; run it again to finish (it resumes where it stopped): %w",
			w.Path, m.opts.RestoreTimeout, rctx.Err())
	}
	return r, err
}

func (m *Manager) restore(ctx context.Context, w *ws, commit string) (Restored, error) {
	target, err := m.commitOf(ctx, w, "restore", commit)
	if err != nil {
		return Restored{}, err
	}
	r := Restored{Commit: target}
	index, cleanup, err := m.targetIndex(ctx, w, target, "restore")
	if err != nil {
		return r, err
	}
	defer cleanup()
	tried := map[string]bool{}
	skipped := map[string]bool{}
	for pass := 0; ; pass++ {
		changed, others, err := m.differences(ctx, w, index, "restore", false)
		if err != nil {
			return r, err
		}
		var write, remove []string
		for _, p := range changed {
			if tried[p] {
				skipped[p] = true
			} else {
				write = append(write, p)
			}
		}
		for _, p := range others {
			if tried[p] || strings.HasSuffix(p, "/") {
				skipped[p] = true
			} else {
				remove = append(remove, p)
			}
		}
		if len(write)+len(remove) == 0 {
			break
		}
		if pass == maxPasses {
			for _, p := range append(write, remove...) {
				skipped[p] = true
			}
			break
		}
		if len(write) > 0 {
			if err := m.checkout(ctx, w, index, write); err != nil {
				return r, err
			}
			r.Written = append(r.Written, write...)
			mark(tried, write)
			if hasIgnoreFile(write) || overlaps(write, remove) {
				// List again before removing: under the checkpoint's ignore
				// rules, and after files and directories swapped places.
				continue
			}
		}
		removed, below, err := removeFiles(w.Path, remove)
		r.Removed = append(r.Removed, removed...)
		mark(tried, remove)
		mark(skipped, below)
		if err != nil {
			return r, err
		}
	}
	for p := range skipped {
		r.Skipped = append(r.Skipped, p)
	}
	sort.Strings(r.Skipped)
	if w.Shadow {
		// The temporary index now matches the files: a good seed for the
		// next capture.
		_ = os.Rename(index, w.index)
	}
	return r, nil
}

// Dirty reports whether the workspace's files differ from a checkpoint
// (ignored files aside). It writes nothing: the kernel uses it to say
// that restoring a child scope left the parent's workspace changed, and
// before removing a worktree.
func (m *Manager) Dirty(ctx context.Context, workspace, since string) (bool, error) {
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return false, err
	}
	defer unlock()
	target, err := m.commitOf(ctx, w, "check workspace", since)
	if err != nil {
		return false, err
	}
	index, cleanup, err := m.targetIndex(ctx, w, target, "check workspace")
	if err != nil {
		return false, err
	}
	defer cleanup()
	changed, others, err := m.differences(ctx, w, index, "check workspace", true)
	n := len(changed)
	for _, p := range others {
		if !strings.HasSuffix(p, "/") { // untracked nested repositories are never captured
			n++
		}
	}
	return n > 0, err
}

// targetIndex makes a temporary index holding target's tree. Seeded with
// the workspace's index, `read-tree -m` keeps the stat data of every entry
// whose content matches, so comparing with the files hashes only what
// differs. An index read-tree -m refuses (a conflicted one) is replaced.
func (m *Manager) targetIndex(ctx context.Context, w *ws, target, op string) (string, func(), error) {
	index, seeded, cleanup, err := m.tempIndex(w)
	if err != nil {
		return "", nil, err
	}
	if seeded {
		_, err = m.run(ctx, w.cmd(op, index, "read-tree", "-m", target))
	}
	if !seeded || err != nil {
		if ctx.Err() == nil {
			_, err = m.run(ctx, w.cmd(op, index, "read-tree", target))
		}
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return index, cleanup, nil
}

// differences lists the workspace's files that differ from index
// (changed or deleted) and the untracked ones, ignored files aside.
// Untracked nested repositories come as "dir/". With first it stops at
// the first difference.
func (m *Manager) differences(ctx context.Context, w *ws, index, op string, first bool) (changed, others []string, err error) {
	args := []string{"ls-files", "-z", "-t", "-m", "-o", "--exclude-standard"}
	if w.exclude != "" {
		args = append(args, "-x", w.exclude)
	}
	seen := map[string]bool{}
	err = m.scan(ctx, w.cmd(op, index, args...), func(rec []byte) error {
		if len(rec) < 3 || rec[1] != ' ' {
			return nil
		}
		p := string(rec[2:])
		if rec[0] == '?' {
			if !w.Shadow && secretFile(p) {
				return nil // never captured, so never restored or removed
			}
			others = append(others, p)
		} else if !seen[p] {
			// ls-files -m names a conflicted path once per stage.
			seen[p] = true
			changed = append(changed, p)
		}
		if first && !strings.HasSuffix(p, "/") {
			return errStop
		}
		return nil
	})
	return changed, others, err
}

// checkout writes paths from index into the work tree, replacing what is
// there, and refreshes their stat data in the (temporary) index.
func (m *Manager) checkout(ctx context.Context, w *ws, index string, paths []string) error {
	c := w.cmd("restore", index, "checkout-index", "-z", "-f", "-u", "--stdin")
	c.stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	_, err := m.run(ctx, c)
	return err
}

// removeFiles deletes untracked files under root and prunes directories
// the deletions emptied (never root). It refuses paths below a symbolic
// link, which it returns as below, so a link swapped in cannot aim a
// deletion outside the workspace.
func removeFiles(root string, paths []string) (removed, below []string, err error) {
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if !underRealDirs(root, full) {
			below = append(below, p)
			continue
		}
		if st, err := os.Lstat(full); err == nil && st.IsDir() {
			below = append(below, p) // never remove a directory with what is in it
			continue
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, below, fmt.Errorf("checkpoint: restore cannot remove %s: %w; fix its permissions and restore again", full, err)
		}
		removed = append(removed, p)
		for dir := filepath.Dir(full); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
	}
	return removed, below, nil
}

// underRealDirs reports whether every directory between root and full
// is a real directory, not a symbolic link.
func underRealDirs(root, full string) bool {
	rel, err := filepath.Rel(root, filepath.Dir(full))
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	if rel == "." {
		return true
	}
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		st, err := os.Lstat(dir)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// overlaps reports whether a path to remove is, contains or lies inside a
// path just written: a file that became a directory or the reverse.
func overlaps(written, remove []string) bool {
	files, dirs := map[string]bool{}, map[string]bool{}
	for _, p := range written {
		files[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, p := range remove {
		if files[p] || dirs[p] {
			return true
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if files[d] {
				return true
			}
		}
	}
	return false
}

func hasIgnoreFile(paths []string) bool {
	for _, p := range paths {
		if path.Base(p) == ".gitignore" {
			return true
		}
	}
	return false
}

func mark(set map[string]bool, paths []string) {
	for _, p := range paths {
		set[p] = true
	}
}
