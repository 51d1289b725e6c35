package workers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// workspace confines every path of a worker to one directory tree.
//
// Invariant: root is absolute, clean and free of symlinks; fsys is an
// os.Root opened on it. resolve turns a request path into a path relative
// to root that has no symlink components, and every file operation then
// goes through fsys, which refuses any escape the check might have missed
// (a symlink swapped in between check and use).
type workspace struct {
	root  string // canonical: EvalSymlinks of the given directory
	given string // as given (cleaned, absolute), for absolute request paths
	fsys  *os.Root
	// deny are directories no step may touch even inside the workspace
	// (nexus's state dir: its journal, socket and checkpoints), canonical.
	deny []string
}

// openWorkspace opens dir, confining every path to it and refusing the
// directories in deny (they may lie inside it, or not exist yet).
func openWorkspace(dir string, deny ...string) (*workspace, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: the worker needs --workspace DIR", ErrUsage)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workers: workspace %q: %w", dir, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workers: workspace %q: %w", dir, err)
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("workers: workspace %q: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workers: workspace %q is not a directory", dir)
	}
	fsys, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("workers: workspace %q: %w", dir, err)
	}
	w := &workspace{root: root, given: abs, fsys: fsys}
	for _, d := range deny {
		if d == "" {
			continue
		}
		d, err := filepath.Abs(d)
		if err != nil {
			fsys.Close()
			return nil, fmt.Errorf("workers: denied directory %q: %w", d, err)
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		// Only a directory inside the workspace needs refusing: the rest
		// is outside anyway. (A workspace inside it, such as a worktree
		// the host made in its state dir, is the workspace.)
		if d != root && within(root, d) {
			w.deny = append(w.deny, d)
		}
	}
	return w, nil
}

// denied returns the denied directory that holds the canonical path
// full, or "".
func (w *workspace) denied(full string) string {
	for _, d := range w.deny {
		if within(d, full) {
			return d
		}
	}
	return ""
}

// hasGitDir reports whether a workspace-relative path has a .git
// component (compared without case, as a case-insensitive file system
// would).
func hasGitDir(rel string) bool {
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}

// resolveWrite is resolve for a step that writes: on top of resolve's
// rules it refuses any path with a .git component, resolved, so neither
// an existing repository's config, hooks or attributes nor a new
// repository can be planted (git runs what its config names, and nexus
// runs git on the workspace).
func (w *workspace) resolveWrite(p string) (string, error) {
	rel, err := w.resolve(p)
	if err != nil {
		return "", err
	}
	if hasGitDir(rel) {
		return "", refusef("refused path %q: it is inside a .git directory (%s); an agent may not write a repository's own files", p, display(rel))
	}
	return rel, nil
}

func (w *workspace) close() error { return w.fsys.Close() }

// within reports whether p is dir or below it; both are clean and absolute.
func within(dir, p string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// resolve confines p (relative to the workspace, or absolute inside it)
// and returns it relative to the canonical root, with symlinks resolved.
// Refusals (status refused) say what was refused and why; other errors
// (status error) are ordinary failures such as a file in the middle of a
// path.
func (w *workspace) resolve(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", refusef("refused path %q: it contains a NUL byte", p)
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
		switch {
		case within(w.root, abs):
		case within(w.given, abs):
			rel, _ := filepath.Rel(w.given, abs)
			abs = filepath.Join(w.root, rel)
		default:
			return "", refusef("refused path %q: absolute path outside the workspace %s", p, w.root)
		}
	} else {
		abs = filepath.Join(w.root, p)
		if !within(w.root, abs) {
			return "", refusef("refused path %q: it leaves the workspace through \"..\"", p)
		}
	}
	// Resolve symlinks on the longest prefix that exists; the rest does
	// not exist yet (a new file or directory) and so holds no symlink.
	existing, rest := abs, ""
	for existing != w.root {
		_, err := os.Lstat(existing)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path %q: %w", p, err)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", refusef("refused path %q: it goes through a symlink whose target does not exist", p)
		}
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	if !within(w.root, real) {
		return "", refusef("refused path %q: a symlink on it leads outside the workspace (to %s)", p, real)
	}
	full := filepath.Join(real, rest)
	if d := w.denied(full); d != "" {
		return "", refusef("refused path %q: it is inside nexus's state dir %s", p, d)
	}
	rel, err := filepath.Rel(w.root, full)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	return rel, nil
}

// display is how results name a workspace-relative path.
func display(rel string) string { return filepath.ToSlash(rel) }
