package checkpoint

import (
	"context"
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
func newQuarantine(w *ws) (string, func(), error) {
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
	q, err := os.MkdirTemp(w.objects, quarantinePrefix)
	if err != nil {
		return "", nil, fmt.Errorf("checkpoint: cannot write objects into %s: %w; check the repository's permissions", w.objects, err)
	}
	return q, func() { os.RemoveAll(q) }, nil
}

// quarantined makes c write new objects into q, reading existing ones
// from the repository. They need no fsync: publish makes them durable.
func quarantined(c cmd, w *ws, q string) cmd {
	c.env = append(c.env, "GIT_OBJECT_DIRECTORY="+q, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+quoteAlternate(w.objects))
	c.args = append([]string{"-c", "core.fsync=none"}, c.args...)
	return c
}

// publish moves the objects in quarantine q into the repository durably.
func (m *Manager) publish(ctx context.Context, w *ws, q string) error {
	var objs, packs []string // "xx/rest" object files; pack base names
	dirs, err := os.ReadDir(q)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		name := d.Name()
		ents, _ := os.ReadDir(filepath.Join(q, name))
		for _, e := range ents {
			switch {
			case name == "pack" && strings.HasSuffix(e.Name(), ".pack"):
				// Files over core.bigFileThreshold are streamed into a pack.
				packs = append(packs, strings.TrimSuffix(e.Name(), ".pack"))
			case len(name) == 2 && !strings.HasPrefix(e.Name(), "tmp_"):
				objs = append(objs, name+"/"+e.Name())
			}
		}
	}
	for _, p := range packs {
		objs = append(objs, "pack/"+p+".pack", "pack/"+p+".idx")
	}
	if err := parallel(ctx, objs, func(o string) error { return syncFile(filepath.Join(q, o)) }); err != nil {
		return fmt.Errorf("checkpoint: cannot sync new objects: %w; check the disk", err)
	}
	changed := map[string]bool{}
	for _, o := range objs {
		// The pack before its index: git only reads packs that have one.
		dir := filepath.Join(w.objects, filepath.Dir(o))
		dst := filepath.Join(w.objects, o)
		err := os.Link(filepath.Join(q, o), dst)
		if errors.Is(err, os.ErrNotExist) {
			if err = os.Mkdir(dir, 0o777); err == nil || errors.Is(err, os.ErrExist) {
				changed[w.objects] = true
				err = os.Link(filepath.Join(q, o), dst)
			}
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("checkpoint: cannot add objects to %s: %w; check the repository's permissions", w.objects, err)
		}
		changed[dir] = true
	}
	var list []string
	for d := range changed {
		list = append(list, d)
	}
	if err := parallel(ctx, list, syncDir); err != nil {
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
