package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Workspace says where a workspace's checkpoints live.
type Workspace struct {
	Path string // canonical workspace directory
	// Shadow is true for a workspace outside any git repository: its
	// checkpoints live in the shadow repository GitDir under the state dir.
	Shadow bool
	GitDir string // the git directory commands use (GIT_DIR)
	Top    string // root of the work tree (Path, or an ancestor of it)
	// Prefix is Path relative to Top with a trailing slash, "" at the
	// root. Checkpoints hold the whole tree, but Capture, Restore, Diff
	// and Dirty only look at and touch files under Prefix.
	Prefix string
}

// ws is a resolved workspace with what the commands need.
type ws struct {
	Workspace
	index   string // the index a temporary index is seeded from
	objects string // the repository's object directory
	common  string // the common git dir (refs, packed-refs); GitDir but in a linked worktree
	format  string // object format: sha1 or sha256
	exclude string // -x pattern hiding the state dir, "" if it is not inside
}

// env points git at the workspace's repository and work tree, with index
// as the index file ("" for git's default, which we never write).
func (w *ws) env(index string) []string {
	e := []string{"GIT_DIR=" + w.GitDir, "GIT_WORK_TREE=" + w.Top}
	if index != "" {
		e = append(e, "GIT_INDEX_FILE="+index)
	}
	return e
}

func (w *ws) cmd(op, index string, args ...string) cmd {
	return cmd{op: op, dir: w.Path, env: w.env(index), args: args}
}

// emptyTree is the id of the empty tree, which git knows without storing it.
func (w *ws) emptyTree() string {
	if w.format == "sha256" {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

// Info resolves a workspace: whether it is in a git repository or uses a
// shadow repository, and where. It creates the shadow repository of a
// non-git workspace on first use.
func (m *Manager) Info(ctx context.Context, workspace string) (Workspace, error) {
	path, err := canonical(workspace)
	if err != nil {
		return Workspace{}, err
	}
	unlock, err := m.lock(ctx, path)
	if err != nil {
		return Workspace{}, err
	}
	defer unlock()
	w, err := m.resolve(ctx, path)
	if err != nil {
		return Workspace{}, err
	}
	return w.Workspace, nil
}

// canonical is the absolute, symlink-free path of an existing directory.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrWorkspace, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrWorkspace, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%w: %s is not a directory", ErrWorkspace, abs)
	}
	return abs, nil
}

// shadowDir is the shadow repository of a workspace path: named by a hash
// of the canonical path so it never collides and never lives inside it.
func (m *Manager) shadowDir(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(m.stateDir, "checkpoints", "shadow", hex.EncodeToString(sum[:16])+".git")
}

// resolve finds the repository of a canonical workspace path, from
// memory when it still holds (see find).
func (m *Manager) resolve(ctx context.Context, path string) (*ws, error) {
	m.mu.Lock()
	w := m.resolved[path]
	m.mu.Unlock()
	if w != nil && w.valid() {
		return w, nil
	}
	w, err := m.find(ctx, path)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.resolved[path] = w
	m.mu.Unlock()
	return w, nil
}

// valid reports whether a remembered resolution still holds: its
// repository exists. (A repository that appears in the workspace later
// changes nothing: the workspace is pinned to the one it started with.)
func (w *ws) valid() bool {
	_, err := os.Stat(filepath.Join(w.GitDir, "HEAD"))
	return err == nil
}

// find resolves a workspace path with git. A workspace keeps a shadow
// repository once it has one, even if it later becomes a git
// repository, so its checkpoints stay in one place. A directory inside a
// repository but ignored there (a scratch dir under an ignored tmp/)
// gets a shadow repository too, or nothing in it would be captured.
func (m *Manager) find(ctx context.Context, path string) (*ws, error) {
	shadow := m.shadowDir(path)
	if _, err := os.Stat(filepath.Join(shadow, "HEAD")); err == nil {
		return m.shadowWS(path, shadow), nil
	}
	lines, err := m.readPin(path)
	if err != nil {
		return nil, err
	}
	pinned := lines != nil
	if !pinned {
		out, err := m.run(ctx, cmd{op: "open workspace", dir: path, args: []string{"rev-parse",
			"--show-toplevel", "--show-prefix", "--absolute-git-dir", "--show-object-format", "--git-path", "index", "--git-path", "objects",
			"--git-common-dir"}})
		if err != nil {
			var ge *GitError
			if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
				return m.initShadow(ctx, path, shadow)
			}
			return nil, err
		}
		lines = strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) != 7 {
			return nil, fmt.Errorf("checkpoint: unexpected git rev-parse output %q; check the git installation", out)
		}
	}
	w := &ws{Workspace: Workspace{Path: path, Top: lines[0], Prefix: lines[1], GitDir: lines[2]}, format: lines[3], index: lines[4], objects: lines[5], common: lines[6]}
	for _, p := range []*string{&w.index, &w.objects, &w.common} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(path, *p)
		}
	}
	if w.Prefix != "" {
		// Exit 0: the directory is ignored and holds no tracked file.
		c := w.cmd("open workspace", "", "check-ignore", "-q", "./")
		c.env = append(c.env, "GIT_LITERAL_PATHSPECS=0") // check-ignore refuses pathspec magic
		_, err := m.run(ctx, c)
		if err == nil {
			return m.initShadow(ctx, path, shadow)
		}
		if exitCode(err) != 1 {
			return nil, err
		}
	}
	w.exclude = excludePattern(w.Top, w.Prefix, m.stateDir)
	if !pinned {
		if err := m.writePin(path, []string{w.Top, w.Prefix, w.GitDir, w.format, w.index, w.objects, w.common}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (m *Manager) shadowWS(path, dir string) *ws {
	return &ws{
		Workspace: Workspace{Path: path, Shadow: true, GitDir: dir, Top: path},
		index:     filepath.Join(dir, "index"),
		objects:   filepath.Join(dir, "objects"),
		common:    dir,
		format:    "sha1",
		exclude:   excludePattern(path, "", m.stateDir),
	}
}

// initShadow creates the shadow repository of a non-git workspace: a bare
// repository made in a temporary directory and renamed into place, so a
// crash never leaves a half-made one. Commands use it with GIT_DIR and
// GIT_WORK_TREE; nothing is written inside the workspace.
func (m *Manager) initShadow(ctx context.Context, path, dir string) (*ws, error) {
	if err := mkdirDurable(filepath.Dir(dir)); err != nil {
		return nil, fmt.Errorf("checkpoint: cannot create the shadow repository for %s: %w; check the state dir", path, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".init-")
	if err != nil {
		return nil, fmt.Errorf("checkpoint: cannot create the shadow repository for %s: %w; check the state dir", path, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := m.run(ctx, cmd{op: "create shadow repository", dir: tmp,
		args: []string{"init", "--quiet", "--bare", "--object-format=sha1", tmp}}); err != nil {
		return nil, err
	}
	if _, err := m.run(ctx, cmd{op: "create shadow repository", dir: tmp, env: []string{"GIT_DIR=" + tmp},
		args: []string{"config", "core.bare", "false"}}); err != nil {
		return nil, err
	}
	// A note for people who find the directory.
	note := "nexus shadow repository: workspace checkpoints of\n" + path + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "nexus-workspace"), []byte(note), 0o600); err != nil {
		return nil, err
	}
	// git init writes HEAD, config and its directories without fsync:
	// make all of it durable before the repository gets its name.
	if err := syncTree(tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) && !isNotEmpty(err) {
		return nil, fmt.Errorf("checkpoint: cannot create the shadow repository for %s: %w; check the state dir", path, err)
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	return m.shadowWS(path, dir), nil
}

func isNotEmpty(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && strings.Contains(le.Err.Error(), "not empty")
}

// mkdirDurable is os.MkdirAll (0700) whose new directories survive a
// power cut: each one's parent is fsynced once it is made.
func mkdirDurable(dir string) error {
	dir = filepath.Clean(dir)
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := syncDir(filepath.Dir(missing[i])); err != nil {
			return err
		}
	}
	return nil
}

// syncTree fsyncs every file and directory under root, root included.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// syncRefDirs fsyncs the directories that name a thread's checkpoint ref
// of scope and its tip, and the ones above them up to refs/: a scope with
// slashes (node/2/a1/n3) lives in directories of its own, which git made
// and did not sync. A directory that does not exist (its refs are packed)
// is skipped.
func syncRefDirs(common, thread, scope string) error {
	var dirs []string
	for d := path.Dir(scope); d != "." && d != "/"; d = path.Dir(d) {
		dirs = append(dirs, filepath.Join(common, filepath.FromSlash(CheckpointRefs), thread, filepath.FromSlash(d)))
	}
	dirs = append(dirs,
		filepath.Join(common, filepath.FromSlash(CheckpointRefs), thread),
		filepath.Join(common, filepath.FromSlash(CheckpointRefs)),
		filepath.Join(common, filepath.FromSlash(TipRefs)),
		filepath.Join(common, "refs", "nexus"),
		filepath.Join(common, "refs"),
	)
	for _, d := range dirs {
		if err := syncDir(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// excludePattern is an ls-files -x pattern hiding the state dir when it
// lies inside the work tree, so a capture never holds the journal and a
// restore never deletes it.
func excludePattern(top, prefix, stateDir string) string {
	sd, err := filepath.Abs(stateDir)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(sd); err == nil {
		sd = r
	}
	rel, err := filepath.Rel(filepath.Join(top, prefix), sd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return "/" + filepath.ToSlash(rel) + "/"
}

// tempIndex makes a temporary index for w and returns its path and a
// cleanup. It is seeded with a copy of the workspace's index (the user's
// own, or the shadow's) so git can trust its stat data and hash only the
// files that changed; the copy keeps the original's mtime, because git
// judges "racily clean" entries against the index file's mtime. seeded
// is false when there was no index to copy. The state dir and the
// repository are usually on one file system, where the copy is a link.
func (m *Manager) tempIndex(w *ws) (path string, seeded bool, cleanup func(), err error) {
	root := filepath.Join(m.stateDir, "checkpoints", "tmp")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", false, nil, fmt.Errorf("checkpoint: cannot make a temporary index: %w; check the state dir", err)
	}
	m.sweep.Do(func() {
		sweepTemp(root)
		sweepKept(filepath.Join(m.stateDir, "checkpoints", "last"))
	})
	dir, err := os.MkdirTemp(root, "idx-")
	if err != nil {
		return "", false, nil, fmt.Errorf("checkpoint: cannot make a temporary index: %w; check the state dir", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "index")
	seeded, err = seedIndex(w.index, path)
	if err != nil {
		cleanup()
		return "", false, nil, fmt.Errorf("checkpoint: cannot copy the index %s: %w", w.index, err)
	}
	return path, seeded, cleanup, nil
}

// sweepTemp removes temporary indexes left by a crash.
func sweepTemp(root string) {
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// seedIndex makes dst a copy of the index src: a hard link when it can
// (no bytes to copy, and the mtime is the original's by construction).
// That is safe because git never writes an index in place: it writes
// index.lock and renames it over, so the first write to dst replaces
// the link and the user's file is never modified.
func seedIndex(src, dst string) (bool, error) {
	st, err := os.Lstat(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err == nil && st.Mode().IsRegular() && os.Link(src, dst) == nil {
		return true, nil
	}
	return copyIndex(src, dst) // a symbolic link, another file system, links refused
}

func copyIndex(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return false, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	if err := out.Close(); err != nil {
		return false, err
	}
	return true, os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// indexEntries reads the entry count from an index file's header
// ("DIRC", version, count), 0 if there is no index.
func indexEntries(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h [12]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != "DIRC" {
		return 0, fmt.Errorf("checkpoint: %s is not a git index; run git status to rebuild it", path)
	}
	return int64(binary.BigEndian.Uint32(h[8:])), nil
}
