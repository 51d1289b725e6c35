package agentproc

import (
	"path/filepath"
	"slices"
	"strings"
)

// MaxPaths bounds the paths an adapter reports on one node, as the
// kernel does (it keeps 64): an agent that names thousands of files costs
// no more than that.
const MaxPaths = 64

// maxPathLen bounds one reported path; the kernel drops longer ones.
const maxPathLen = 4096

// WorkspacePaths names the files an agent says it wrote as the kernel
// records them on a node (core.Observation.Paths): relative to the
// workspace ws, slash-separated. An absolute path inside ws is made
// relative, first as written, then with symlinks resolved in both (an
// agent may name the workspace by its real path: Claude Code and Codex
// take theirs from getcwd); a relative one is relative to the agent's
// working directory, which is ws. Paths outside ws are dropped, and so
// is everything when there is no workspace (no workspace, no checkpoint
// to attribute the files to). At most MaxPaths are kept, without
// duplicates; at most MaxPaths paths have their symlinks resolved, so
// thousands outside the workspace cost no more I/O than that.
//
// The paths are the agent's word: they decide which changed files a
// run's checkpoint lists as the agent's, and nothing else. Nothing is
// read or written through them; only symlinks are resolved, and only
// for a path that is not inside ws as written.
func WorkspacePaths(ws string, paths ...string) []string {
	if ws == "" {
		return nil
	}
	ws = filepath.Clean(ws)
	real, resolved := "", 0
	var out []string
	for _, p := range paths {
		if p == "" || len(p) > maxPathLen || strings.ContainsRune(p, 0) {
			continue
		}
		rel, ok := within(ws, p)
		if !ok && filepath.IsAbs(p) && resolved < MaxPaths {
			resolved++
			if real == "" {
				real = resolve(ws)
			}
			rel, ok = within(real, resolve(p))
		}
		if ok && !slices.Contains(out, rel) {
			out = append(out, rel)
			if len(out) == MaxPaths {
				break
			}
		}
	}
	return out
}

// within is p relative to root, slash-separated, when p is a file inside
// root (root itself is not).
func within(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolve is p with its symlinks resolved: the file's, else its
// directory's (a file deleted since, or not yet written), else p as it
// is.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}
