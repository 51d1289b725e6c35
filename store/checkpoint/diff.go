package checkpoint

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
)

// FileStat is one file of a Diff.
type FileStat struct {
	Path string // slash-separated, relative to the workspace
	// Status is A (added), M (modified), D (deleted) or T (type changed:
	// file, symbolic link or submodule).
	Status         string
	Added, Deleted int  // lines; zero for binary files
	Binary         bool // the stats and patch do not count its lines
}

// Diff is the difference between two checkpoints of a workspace.
type Diff struct {
	From, To       string // commits; From is the empty tree's id for a diff from nothing
	Files          []FileStat
	Added, Deleted int // total lines
	// Patch is the unified diff text (no colour, no rename detection).
	// Truncated is set when it was cut at Options.MaxPatchBytes; Files
	// always covers every file.
	Patch     string
	Truncated bool
}

// Diff compares two checkpoint commits (or refs) of a workspace, limited
// to the files under the workspace. from "" means the empty tree, so
// Diff(ws, "", c) lists everything in c. For `nexus diff T --run N` the
// kernel passes run N-1's checkpoint (the baseline for run 1) and run N's.
func (m *Manager) Diff(ctx context.Context, workspace, from, to string) (Diff, error) {
	return m.diff(ctx, workspace, from, to, true, nil)
}

// DiffOnly is Diff limited to paths (a run's own changes): the others
// that changed between the two are left out. No paths: an empty diff.
func (m *Manager) DiffOnly(ctx context.Context, workspace, from, to string, paths []string) (Diff, error) {
	if paths == nil {
		paths = []string{}
	}
	return m.diff(ctx, workspace, from, to, true, paths)
}

// Stats is Diff without the patch (Patch is empty): the files and line
// counts only, which the kernel records with each run's checkpoint. It
// costs two git processes (cat-file to resolve both revisions, one
// diff-tree), where Diff costs three.
func (m *Manager) Stats(ctx context.Context, workspace, from, to string) (Diff, error) {
	return m.diff(ctx, workspace, from, to, false, nil)
}

// diff is the diff between two commits; only, when not nil, limits it
// to those paths (literal pathspecs).
func (m *Manager) diff(ctx context.Context, workspace, from, to string, withPatch bool, only []string) (Diff, error) {
	w, unlock, err := m.open(ctx, workspace)
	if err != nil {
		return Diff{}, err
	}
	defer unlock()
	revs := []string{to}
	if from != "" {
		revs = append(revs, from)
	}
	ids, err := m.commitsOf(ctx, w, "diff checkpoints", revs...)
	if err != nil {
		return Diff{}, err
	}
	d := Diff{From: w.emptyTree(), To: ids[0]}
	if from != "" {
		d.From = ids[1]
	}
	if only != nil && len(only) == 0 {
		return d, nil
	}
	var spec []string
	if only != nil {
		spec = append([]string{"--"}, only...)
	}
	if err := m.diffStats(ctx, w, &d, spec...); err != nil {
		return Diff{}, err
	}
	if !withPatch {
		return d, nil
	}
	if err := m.patch(ctx, w, &d, spec...); err != nil {
		return Diff{}, err
	}
	return d, nil
}

// patch fills d.Patch with the unified diff from d.From to d.To (commits
// or trees), limited by the pathspec spec, cut at Options.MaxPatchBytes.
func (m *Manager) patch(ctx context.Context, w *ws, d *Diff, spec ...string) error {
	patch := &capBuffer{max: m.opts.MaxPatchBytes}
	err := m.exec(ctx, w.cmd("diff checkpoints", "", append([]string{"diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff",
		"--no-textconv", "--no-color", "--relative", d.From, d.To}, spec...)...), func(r io.Reader) error {
		_, err := io.Copy(patch, r)
		return err
	})
	if err != nil && err != errPatchFull {
		return err
	}
	d.Patch, d.Truncated = patch.String(), err == errPatchFull
	return nil
}

// diffStats fills d.Files from one diff-tree listing both the raw status
// records (":modes ids status\0path\0") and numstat records
// ("added\tdeleted\tpath\0", "-\t-\tpath\0" for binary files).
func (m *Manager) diffStats(ctx context.Context, w *ws, d *Diff, spec ...string) error {
	index := map[string]int{}
	wantPath := false
	var status string
	return m.scan(ctx, w.cmd("diff checkpoints", "", append([]string{"diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--raw", "--numstat",
		"--relative", d.From, d.To}, spec...)...), func(rec []byte) error {
		switch {
		case wantPath:
			wantPath = false
			index[string(rec)] = len(d.Files)
			d.Files = append(d.Files, FileStat{Path: string(rec), Status: status})
		case len(rec) > 0 && rec[0] == ':':
			f := bytes.Fields(rec)
			status, wantPath = string(f[len(f)-1]), true
		default:
			parts := bytes.SplitN(rec, []byte{'\t'}, 3)
			if len(parts) != 3 {
				return nil
			}
			i, ok := index[string(parts[2])]
			if !ok {
				return nil
			}
			f := &d.Files[i]
			if string(parts[0]) == "-" {
				f.Binary = true
				return nil
			}
			f.Added, _ = strconv.Atoi(string(parts[0]))
			f.Deleted, _ = strconv.Atoi(string(parts[1]))
			d.Added += f.Added
			d.Deleted += f.Deleted
		}
		return nil
	})
}

var errPatchFull = &GitError{Op: "diff checkpoints", Stderr: "patch truncated"}

// capBuffer keeps the first max bytes, then reports errPatchFull so git
// is stopped instead of producing text nobody will read.
type capBuffer struct {
	max int
	b   strings.Builder
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - c.b.Len()
	if len(p) > room {
		c.b.Write(p[:room])
		return room, errPatchFull
	}
	return c.b.Write(p)
}

func (c *capBuffer) String() string { return c.b.String() }
