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
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A capture writes its objects (blobs, trees, the commit) into a
// quarantine object directory inside the repository's objects directory,
// named like git's own temporary object directories so `git gc` prunes
// one a crash left behind. Nothing there is visible to the repository.
// When the commit is complete, publish fsyncs every new object file (in
// parallel, so the file system can commit them together), hard-links
// each into its place in objects/, and fsyncs the directories that
// changed. Only then does the ref move. That is the order
// core.fsync=loose-object gives (content synced before the name appears),
// plus the directory sync git leaves out, at the cost of about two
// journal commits instead of one per object. A capture stopped at its
// bound leaves nothing in the repository at all.
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
	return &quarantine{dir: dir, synced: map[string]bool{}}, func() { os.RemoveAll(dir) }, nil
}

// quarantined makes c write new objects into q, reading existing ones
// from the repository. They need no fsync: publish makes them durable.
func quarantined(c cmd, w *ws, q *quarantine) cmd {
	c.env = append(c.env, "GIT_OBJECT_DIRECTORY="+q.dir, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+quoteAlternate(w.objects))
	c.args = append([]string{"-c", "core.fsync=none"}, c.args...)
	return c
}

// quarantine is a capture's quarantine object directory and which of
// its files are already synced. Not safe for concurrent use: the
// capture runs sync in the background and waits for it before publish.
type quarantine struct {
	dir    string
	synced map[string]bool
}

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
	if err := parallel(ctx, todo, func(f string) error { return syncFile(filepath.Join(q.dir, f)) }); err != nil {
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
// committer, blank line, message), stored zlib-compressed under its
// SHA-1 or SHA-256. Tests check the result with git fsck --strict.
func (q *quarantine) writeCommit(format, tree string, parents []string, msg string, when time.Time) (string, error) {
	var body bytes.Buffer
	fmt.Fprintf(&body, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&body, "parent %s\n", p)
	}
	sig := fmt.Sprintf("nexus <nexus@localhost> %d +0000", when.Unix())
	fmt.Fprintf(&body, "author %s\ncommitter %s\n\n%s", sig, sig, msg)
	hdr := fmt.Sprintf("commit %d\x00", body.Len())
	h := sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	h.Write([]byte(hdr))
	h.Write(body.Bytes())
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(q.dir, id[:2])
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	zw := zlib.NewWriter(f)
	zw.Write([]byte(hdr))
	zw.Write(body.Bytes())
	err = zw.Close()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, id[2:]))
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("checkpoint: cannot write the checkpoint commit: %w; check the repository's permissions", err)
	}
	return id, nil
}
