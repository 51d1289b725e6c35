package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// Checkpoint is one captured snapshot of a workspace.
type Checkpoint struct {
	Ref    string // refs/nexus/checkpoints/<thread>/<scope>
	Commit string
	Tree   string
	// Parent is the thread's previous checkpoint ("" for its first), Base
	// the workspace's HEAD commit at capture ("" in a shadow repository or
	// before the first commit). Both are parents of Commit.
	Parent, Base string
	Files        int64 // entries in the snapshot (the whole repository's tree)
	// Changed counts files under the workspace that differ from Parent,
	// or from Base when there is no Parent, or all of them when neither;
	// -1 if counting failed (the checkpoint is complete regardless).
	Changed int
	Bytes   int64 // size of the changed and new files hashed for this capture
}

// Capture snapshots the workspace's files (tracked and untracked, minus
// ignored ones) into a commit and points refs/nexus/checkpoints/<thread>/<scope>
// and the thread's tip at it. The user's index, HEAD, branches and stash
// are never touched. Capturing a scope again replaces it: the new commit
// takes the old one's parent, so the kernel may redo a capture after a
// crash. Past Options.CaptureTimeout, MaxFiles or MaxBytes it stops, writes
// no ref and returns a *BoundError.
func (m *Manager) Capture(ctx context.Context, workspace, thread, scope string) (Checkpoint, error) {
	if err := checkName(thread, false); err != nil {
		return Checkpoint{}, err
	}
	if err := checkName(scope, true); err != nil {
		return Checkpoint{}, err
	}
	if err := m.gitFound(); err != nil {
		return Checkpoint{}, err
	}
	path, err := canonical(workspace)
	if err != nil {
		return Checkpoint{}, err
	}
	unlock, err := m.lock(ctx, path)
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	cctx, cancel := context.WithTimeoutCause(ctx, m.opts.CaptureTimeout, errTimeBound)
	defer cancel()
	cp, err := m.capture(cctx, path, thread, scope)
	if err != nil && ctx.Err() == nil && context.Cause(cctx) == errTimeBound {
		return Checkpoint{}, &BoundError{Workspace: path, Kind: BoundTime, Limit: int64(m.opts.CaptureTimeout)}
	}
	if err == nil {
		// Outside the capture's time bound: the checkpoint is done.
		if w, rerr := m.resolve(ctx, path); rerr == nil {
			m.maybePack(ctx, w)
		}
	}
	return cp, err
}

var errTimeBound = errors.New("checkpoint: capture time bound")

func (m *Manager) capture(ctx context.Context, path, thread, scope string) (Checkpoint, error) {
	w, err := m.resolve(ctx, path)
	if err != nil {
		return Checkpoint{}, err
	}
	// HEAD and the tip are needed at commit time: from memory, or looked
	// up while the files are scanned.
	look := m.lookupRefs(ctx, w, thread)
	defer look.wait()
	index, seeded, cleanup, err := m.tempIndex(w)
	if err != nil {
		return Checkpoint{}, err
	}
	defer cleanup()
	q, cleanupQ, err := newQuarantine(w)
	if err != nil {
		return Checkpoint{}, err
	}
	defer cleanupQ()
	if !seeded {
		// No index to copy (a fresh clone without one, a shadow
		// repository's first capture): start from HEAD's tree.
		refs, err := look.wait()
		if err != nil {
			return Checkpoint{}, err
		}
		if refs.base != "" {
			if _, err := m.run(ctx, w.cmd("capture", index, "read-tree", refs.base)); err != nil {
				return Checkpoint{}, err
			}
		}
	}
	size, err := m.stage(ctx, w, index, q)
	if err != nil {
		return Checkpoint{}, err
	}
	// update-ref starts while the trees are built.
	rt := m.startRefTx(ctx, w, q)
	defer rt.abort()
	tree, counted, err := m.trees(ctx, w, q, thread, index)
	if err != nil {
		return Checkpoint{}, err
	}
	files, err := indexEntries(index)
	if err != nil {
		return Checkpoint{}, err
	}
	refs, err := look.wait()
	if err != nil {
		return Checkpoint{}, err
	}
	cp, err := m.commitChecked(ctx, w, q, rt, thread, scope, tree, refs, counted)
	if err != nil {
		return Checkpoint{}, err
	}
	cp.Files, cp.Bytes = files, size
	if cp.Changed == noBase {
		cp.Changed = int(files) // nothing to compare with: all of it is new
	}
	if w.Shadow {
		// The shadow index is ours: keep the fresh stat data for next time.
		// Losing it in a crash costs only speed.
		if os.Rename(index, w.index) != nil {
			return cp, nil
		}
		index = w.index
	}
	m.keepIndex(w, thread, tree, index)
	return cp, nil
}

// trees writes the checkpoint's trees from the temporary index, by the
// package itself (trees.go) or, when it cannot, with git write-tree,
// while the new blobs are synced. The count of changes it returns is
// against the thread's kept index.
func (m *Manager) trees(ctx context.Context, w *ws, q *quarantine, thread, index string) (string, countedChanges, error) {
	var serr error
	synced := make(chan struct{})
	go func() {
		defer close(synced)
		_, serr = q.sync(ctx)
	}()
	kept, _ := m.keptOf(w, thread)
	tree, n, err := buildTree(w, q, index, kept)
	if errors.Is(err, errIndexFormat) {
		n = -1
		tree, err = m.writeTree(ctx, w, index, q)
	}
	if <-synced; err == nil {
		err = serr
	}
	return tree, countedChanges{tree: kept.tree, n: n}, err
}

// stage makes the temporary index match the workspace's files under its
// prefix, like `git add -A`, with the bounds checked before anything is
// hashed. One `ls-files -t -m -o` lists changed, deleted and untracked
// files (ignored ones left out). update-index starts alongside, loading
// the index meanwhile, and hashes each path as it arrives: changed ones
// at once, untracked ones after the listing (a tracked file that became
// a directory must leave the index before the files inside it come in).
// It returns the bytes of content staged.
func (m *Manager) stage(ctx context.Context, w *ws, index string, q *quarantine) (int64, error) {
	have, err := indexEntries(index)
	if err != nil {
		return 0, err
	}
	if have > m.opts.MaxFiles {
		return 0, &BoundError{Workspace: w.Path, Kind: BoundFiles, Limit: m.opts.MaxFiles, Seen: have}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	paths, pw := io.Pipe()
	upd := quarantined(w.cmd("capture", index, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"), w, q)
	upd.stdin = paths
	updated := make(chan error, 1)
	go func() {
		_, err := m.run(sctx, upd)
		paths.CloseWithError(errors.New("update-index ended")) // unblock a writer
		updated <- err
	}()

	var size atomic.Int64
	count := func(p string) error {
		if st, err := os.Lstat(filepath.Join(w.Path, p)); err == nil && !st.IsDir() {
			if n := size.Add(st.Size()); n > m.opts.MaxBytes {
				return &BoundError{Workspace: w.Path, Kind: BoundBytes, Limit: m.opts.MaxBytes, Seen: n, Path: p}
			}
		}
		return nil
	}
	args := []string{"ls-files", "-z", "-t", "-m", "-o", "--exclude-standard"}
	if w.exclude != "" {
		args = append(args, "-x", w.exclude)
	}
	var untracked bytes.Buffer
	var files int64
	lerr := m.scan(sctx, w.cmd("capture", index, args...), func(rec []byte) error {
		if len(rec) < 3 || rec[1] != ' ' {
			return nil
		}
		tag, p := rec[0], string(rec[2:])
		if tag != '?' {
			if err := count(p); err != nil {
				return err
			}
			_, err := pw.Write(append(append(make([]byte, 0, len(p)+1), p...), 0))
			return err
		}
		if strings.HasSuffix(p, "/") {
			return nil // an untracked nested repository: left out (see doc.go)
		}
		if !w.Shadow && secretFile(p) {
			return nil // never into the user's refs (secrets.go)
		}
		if files++; have+files > m.opts.MaxFiles {
			return &BoundError{Workspace: w.Path, Kind: BoundFiles, Limit: m.opts.MaxFiles, Seen: have + files, Path: p}
		}
		untracked.WriteString(p)
		untracked.WriteByte(0)
		return count(p)
	})
	if lerr != nil {
		cancel()
	}
	var werr error
	if lerr == nil {
		_, werr = pw.Write(untracked.Bytes())
	}
	pw.Close() // update-index writes the index and exits
	perr := <-updated
	var be *BoundError
	switch {
	case errors.As(lerr, &be):
		return 0, be
	case ctx.Err() != nil:
		return 0, ctx.Err()
	}
	for _, err := range []error{perr, lerr, werr} {
		if err != nil {
			return 0, err
		}
	}
	return size.Load(), nil
}

// writeTree writes the temporary index as a tree. An index copied from a
// repository in the middle of a merge may hold conflicted entries, which
// write-tree refuses: those paths then take the work tree's content (what
// `git add` would do) and the tree is written again.
func (m *Manager) writeTree(ctx context.Context, w *ws, index string, q *quarantine) (string, error) {
	out, err := m.run(ctx, quarantined(w.cmd("capture", index, "write-tree"), w, q))
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "unmerged") {
		var paths bytes.Buffer
		seen := map[string]bool{}
		top := w.cmd("capture", index, "ls-files", "-z", "-u")
		top.dir = w.Top
		err = m.scan(ctx, top, func(rec []byte) error {
			if _, p, ok := bytes.Cut(rec, []byte{'\t'}); ok && !seen[string(p)] {
				seen[string(p)] = true
				paths.Write(p)
				paths.WriteByte(0)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		up := quarantined(w.cmd("capture", index, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"), w, q)
		up.dir, up.stdin = w.Top, &paths
		if _, err := m.run(ctx, up); err != nil {
			return "", err
		}
		out, err = m.run(ctx, quarantined(w.cmd("capture", index, "write-tree"), w, q))
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// object is one answer of `git cat-file --batch`.
type object struct {
	id, typ string // typ "" when missing
	tree    string // of a commit
	body    string // of a commit: its message
}

func (o object) trailer(key string) string {
	for _, l := range strings.Split(o.body, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// objects looks up revisions in one git process.
func (m *Manager) objects(ctx context.Context, w *ws, op string, revs ...string) ([]object, error) {
	c := w.cmd(op, "", "cat-file", "--batch")
	c.stdin = strings.NewReader(strings.Join(revs, "\n") + "\n")
	out, err := m.run(ctx, c)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	objs := make([]object, len(revs))
	for i := range revs {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %s: short git cat-file output; check the git installation", op)
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			continue // "<rev> missing" or "ambiguous"
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %s: bad git cat-file output %q", op, line)
		}
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("checkpoint: %s: short git cat-file output; check the git installation", op)
		}
		objs[i] = object{id: f[0], typ: f[1]}
		if f[1] == "commit" {
			hdr, body, _ := strings.Cut(string(data[:n]), "\n\n")
			objs[i].body = body
			if t, ok := strings.CutPrefix(hdr, "tree "); ok {
				objs[i].tree, _, _ = strings.Cut(t, "\n")
			}
		}
	}
	return objs, nil
}
