package agentproc

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Confine resolves a path an agent wants to write (or read) and refuses
// it when it is outside the workspace ws: the path with its symlinks
// resolved, as far as it exists, so that neither ".." nor a symlink in
// the workspace leads out. A relative path is relative to the agent's
// working directory, which is ws. The workspace itself counts as inside.
// With no workspace there is nothing to confine to, and every path is
// allowed, cleaned.
//
// The check is nexus's answer to a request, made before the agent
// writes: a symlink created between the answer and the write is the
// agent's own sandbox's business (ACP writes go through an os.Root on
// the workspace besides).
func Confine(ws, path string) (string, error) {
	if strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("nexus: path %q has a NUL byte", path)
	}
	if ws == "" {
		return filepath.Clean(path), nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(ws, path)
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		root = filepath.Clean(ws)
	}
	p := resolveExisting(filepath.Clean(path))
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fmt.Errorf("nexus: %s is outside the workspace %s", path, ws)
	}
	return p, nil
}

// resolveExisting resolves the symlinks of the deepest existing ancestor
// of p (p itself when it exists) and appends the rest as written.
func resolveExisting(p string) string {
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
