package checkpoint

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A capture writes its objects into a quarantine object directory inside
// the repository's objects directory, named like git's own temporary
// object directories so `git gc` prunes one a crash left behind: the
// blobs (update-index, or write-tree's trees when git builds them) and
// the commit. The trees the package builds itself are staged instead
// straight in their object directories under temporary names
// (objects/xx/tmp_obj_*), as git writes its own objects: that saves a
// directory per tree, and a new directory costs as much as a file.
// Nothing of either is visible to the repository. When the commit is
// complete, publish fsyncs every new object file (in parallel, so the
// file system can commit them together), hard-links or renames each into
// its place in objects/, and fsyncs the directories that changed. Only
// then does the ref move. That is the order core.fsync=loose-object
// gives (content synced before the name appears), plus the directory
// sync git leaves out, at the cost of about two journal commits instead
// of one per object. A capture stopped at its bound leaves nothing in the
// repository at all.
const quarantinePrefix = "tmp_objdir-nexus-"

// newQuarantine makes a quarantine object directory for w and returns
// its path and a cleanup. It first removes quarantines a crash left
// behind more than an hour ago.
func newQuarantine(w *ws) (*quarantine, func(), error) {
	if ents, err := os.ReadDir(w.objects); err == nil {
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), quarantinePrefix) {
				continue
			}
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(w.objects, e.Name()))
			}
		}
	}
	dir, err := os.MkdirTemp(w.objects, quarantinePrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint: cannot write objects into %s: %w; check the repository's permissions", w.objects, err)
	}
	q := &quarantine{dir: dir, synced: map[string]bool{}}
	return q, q.remove, nil
}

// remove deletes the quarantine and the staged objects publish did not
// rename into place.
func (q *quarantine) remove() {
	os.RemoveAll(q.dir)
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, o := range q.staged {
		os.Remove(o.tmp)
	}
}

// quarantined makes c write new objects into q, reading existing ones
// from the repository. They need no fsync: publish makes them durable.
func quarantined(c cmd, w *ws, q *quarantine) cmd {
	c.env = append(c.env, "GIT_OBJECT_DIRECTORY="+q.dir, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+quoteAlternate(w.objects))
	c.args = append([]string{"-c", "core.fsync=none"}, c.args...)
	return c
}

// quarantine is a capture's quarantine object directory and which of
// its files are already synced. sync is not safe for concurrent use: the
// capture runs it in the background and waits for it before publish.
type quarantine struct {
	dir    string
	synced map[string]bool // paths relative to dir, or absolute for staged objects

	mu sync.Mutex // guards staged and newDirs: trees are staged while blobs sync
	// staged are the trees the package writes itself (trees.go): not in
	// dir but straight into the repository's object directories, under
	// temporary names (objects/xx/tmp_obj_*) that git ignores, as git
	// writes its own objects. That saves a directory for each of them.
	// publish syncs and renames them; git prune removes any a crash
	// leaves behind.
	staged    []stagedObject
	published []string // directories of the staged objects publish renamed
	newDirs   []string // object directories staging created
}

type stagedObject struct{ tmp, path string }

// files lists the quarantine's object files as "xx/rest" and any packs
// as "pack/<name>.pack" followed by its ".idx".
func (q *quarantine) files() ([]string, error) {
	var objs, packs []string
	dirs, err := os.ReadDir(q.dir)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		name := d.Name()
		ents, _ := os.ReadDir(filepath.Join(q.dir, name))
		for _, e := range ents {
			switch {
			case name == "pack" && strings.HasSuffix(e.Name(), ".pack"):
				// Files over core.bigFileThreshold are streamed into a pack.
				p := strings.TrimSuffix(e.Name(), ".pack")
				packs = append(packs, "pack/"+p+".pack", "pack/"+p+".idx")
			case len(name) == 2 && !strings.HasPrefix(e.Name(), "tmp_"):
				objs = append(objs, name+"/"+e.Name())
			}
		}
	}
	return append(objs, packs...), nil
}

// sync fsyncs the object files not synced yet, in parallel. The capture
// syncs the blobs while write-tree runs, and the rest at publish.
func (q *quarantine) sync(ctx context.Context) ([]string, error) {
	all, err := q.files()
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, f := range all {
		if !q.synced[f] {
			todo = append(todo, f)
		}
	}
	q.mu.Lock()
	for _, o := range q.staged {
		if !q.synced[o.tmp] {
			todo = append(todo, o.tmp)
		}
	}
	q.mu.Unlock()
	if err := parallel(ctx, todo, func(f string) error {
		if !filepath.IsAbs(f) {
			f = filepath.Join(q.dir, f)
		}
		return syncFile(f)
	}); err != nil {
		return nil, fmt.Errorf("checkpoint: cannot sync new objects: %w; check the disk", err)
	}
	for _, f := range todo {
		q.synced[f] = true
	}
	return all, nil
}

// publish moves the quarantined objects into the repository durably.
func (m *Manager) publish(ctx context.Context, w *ws, q *quarantine) error {
	all, err := q.sync(ctx)
	if err != nil {
		return err
	}
	changed := map[string]bool{}
	for _, o := range all {
		// A pack before its index: git only reads packs that have one.
		dir := filepath.Join(w.objects, filepath.Dir(o))
		dst := filepath.Join(w.objects, o)
		err := os.Link(filepath.Join(q.dir, o), dst)
		if errors.Is(err, os.ErrNotExist) {
			if err = os.Mkdir(dir, 0o777); err == nil || errors.Is(err, os.ErrExist) {
				changed[w.objects] = true
				err = os.Link(filepath.Join(q.dir, o), dst)
			}
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("checkpoint: cannot add objects to %s: %w; check the repository's permissions", w.objects, err)
		}
		changed[dir] = true
	}
	if err := q.rename(w, changed); err != nil {
		return fmt.Errorf("checkpoint: cannot add objects to %s: %w; check the repository's permissions", w.objects, err)
	}
	var dirs []string
	for d := range changed {
		dirs = append(dirs, d)
	}
	if err := parallel(ctx, dirs, syncDir); err != nil {
		return fmt.Errorf("checkpoint: cannot sync %s: %w; check the disk", w.objects, err)
	}
	return nil
}

// parallel runs fn on every item, at most 16 at a time, and returns the
// first error.
func parallel(ctx context.Context, items []string, fn func(string) error) error {
	errs := make(chan error, len(items))
	sem := make(chan struct{}, 16)
	for _, it := range items {
		if ctx.Err() != nil {
			errs <- ctx.Err()
			break
		}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- fn(it)
		}()
	}
	for i := 0; i < cap(sem); i++ {
		sem <- struct{}{} // wait for the last ones
	}
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path) // object files are read-only; fsync works on any descriptor
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// quoteAlternate quotes a path for GIT_ALTERNATE_OBJECT_DIRECTORIES,
// whose entries are separated by ':' and may be C-quoted.
func quoteAlternate(p string) string {
	if !strings.ContainsAny(p, ":\"\\") {
		return p
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`
}

// writeCommit writes a commit object into the quarantine and returns its
// id. It is what `git commit-tree` would write for our fixed identity
// (nexus <nexus@localhost>, UTC), done here to save a process on every
// capture: the commit format is a few text lines (tree, parents, author,
// committer, blank line, message). Tests check the result with git fsck
// --strict.
func (q *quarantine) writeCommit(format, tree string, parents []string, msg string, when time.Time) (string, error) {
	var body bytes.Buffer
	fmt.Fprintf(&body, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&body, "parent %s\n", p)
	}
	sig := fmt.Sprintf("nexus <nexus@localhost> %d +0000", when.Unix())
	fmt.Fprintf(&body, "author %s\ncommitter %s\n\n%s", sig, sig, msg)
	id := hex.EncodeToString(hashObject(format, "commit", body.Bytes()))
	if err := q.writeObject("commit", id, body.Bytes()); err != nil {
		return "", fmt.Errorf("checkpoint: cannot write the checkpoint commit: %w; check the repository's permissions", err)
	}
	return id, nil
}

// hashObject is the id of an object: the SHA-1 or SHA-256 of its header
// ("<type> <size>\0") and body.
func hashObject(format, typ string, body []byte) []byte {
	h := sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	fmt.Fprintf(h, "%s %d\x00", typ, len(body))
	h.Write(body)
	return h.Sum(nil)
}

// writeObject writes a loose object with the given id into the
// quarantine: header and body, zlib-compressed, in a file made read-only
// and renamed into place, as git writes them.
func (q *quarantine) writeObject(typ, id string, body []byte) error {
	dir := filepath.Join(q.dir, id[:2])
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	tmp, err := writeLoose(dir, typ, body)
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, id[2:]))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// rename renames the staged objects into place and marks their
// directories changed (and the objects directory, if staging made one).
func (q *quarantine) rename(w *ws, changed map[string]bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.newDirs) > 0 {
		changed[w.objects] = true
	}
	for len(q.staged) > 0 {
		o := q.staged[0]
		if err := os.Rename(o.tmp, o.path); err != nil {
			return err
		}
		q.staged = q.staged[1:]
		q.published = append(q.published, filepath.Dir(o.path))
	}
	for _, d := range q.published {
		changed[d] = true
	}
	return nil
}

// stage writes a loose object into its directory of the repository
// under a temporary name; publish syncs it and renames it into place.
func (q *quarantine) stage(w *ws, typ, id string, body []byte) error {
	dir := filepath.Join(w.objects, id[:2])
	err := os.Mkdir(dir, 0o777)
	if err == nil {
		q.mu.Lock()
		q.newDirs = append(q.newDirs, dir)
		q.mu.Unlock()
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	tmp, err := writeLoose(dir, typ, body)
	if err != nil {
		os.Remove(tmp)
		return err
	}
	q.mu.Lock()
	q.staged = append(q.staged, stagedObject{tmp: tmp, path: filepath.Join(dir, id[2:])})
	q.mu.Unlock()
	return nil
}

// writeLoose writes a loose object into a new temporary file in dir:
// header and body, zlib-compressed, the file made read-only, as git
// writes them. It returns the file's path, also on error.
func writeLoose(dir, typ string, body []byte) (string, error) {
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(f)
	fmt.Fprintf(zw, "%s %d\x00", typ, len(body))
	zw.Write(body)
	err = zw.Close()
	zlibWriters.Put(zw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	return f.Name(), err
}

// zlibWriters reuses compressors: each holds a few hundred kilobytes.
// Level 1 is what git uses for loose objects (core.looseCompression).
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return zw
}}
