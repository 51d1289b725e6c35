package checkpoint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The checkpoint's trees are built from the temporary index by the
// package itself, as `git write-tree` builds them, to save a git process
// and its rewrite of the whole index on every capture. The index's
// cache-tree extension ("TREE") names the tree of every directory that
// has not changed since that tree was written, so only the directories
// update-index touched, and their parents, are built: their entries are
// serialized in index order ("<octal mode> <name>\0<raw id>", which is
// git's tree order), hashed, and written unless the repository already
// has them as loose objects. Entries git leaves out of trees are left
// out the same way: intent-to-add entries, and a directory that holds
// nothing else.
//
// Like `git write-tree --missing-ok`, it does not check that the objects
// the index names exist: each was in the user's index or was just
// written by update-index. Whatever it does not handle goes to git
// (errIndexFormat): an index this package does not read (split or
// sparse), unmerged entries, a path that is both a file and a directory,
// a cache-tree that does not match the entries, and more than
// maxBuiltTrees trees to write (no cache-tree; git knows which trees the
// packs hold).
//
// The same pass counts the checkpoint's changes: the entries under the
// workspace that differ from the index the thread's previous checkpoint
// was written from (tips.go keeps it). Those are the files
// `git diff-tree -r` lists between the two trees.

// maxBuiltTrees bounds the trees buildTree writes; past it git builds
// them.
const maxBuiltTrees = 64

// cachedTree is a directory of the cache-tree extension.
type cachedTree struct {
	entries int // index entries below the directory; -1 if invalid
	id      []byte
}

// dirFrame is a directory whose tree is being built.
type dirFrame struct {
	base []byte // its path with a trailing '/', nil for the root
	body []byte
	ita  bool // it holds intent-to-add entries
}

type treeBuilder struct {
	w       *ws
	cache   map[string]cachedTree // by directory path with its trailing '/', "" for the root
	stack   []*dirFrame
	pending map[string][]byte // trees to write, by id
	tooMany bool
}

// buildTree writes into q the trees of the index file at path that the
// repository lacks and returns the root's id. If kept names an index
// file (still the one kept), changes counts the entries under the
// workspace that differ from it; else it is -1. errIndexFormat means git
// must build the tree.
func buildTree(w *ws, q *quarantine, path string, kept keptIndex) (tree string, changes int, err error) {
	r, err := openIndexFile(path, idLen(w))
	if errors.Is(err, fs.ErrNotExist) {
		return "", -1, errIndexFormat // no index at all: an empty workspace's first capture
	}
	if err != nil {
		return "", -1, err
	}
	defer r.close()
	exts, err := r.extensions()
	if err != nil {
		return "", -1, err
	}
	t := &treeBuilder{w: w, pending: map[string][]byte{}, stack: []*dirFrame{{}}}
	if t.cache, err = parseCacheTree(exts["TREE"], idLen(w)); err != nil {
		return "", -1, err
	}
	var old *indexReader
	if kept.path != "" {
		if old, err = openIndex(kept.path, idLen(w), &kept.id); err == nil {
			defer old.close()
			if _, err := old.extensions(); err != nil {
				old = nil
			}
		} else {
			old = nil
		}
	}
	cmp := changeCounter{r: old, prefix: []byte(w.Prefix)}
	if old != nil {
		cmp.next()
	}

	var prev []byte // the previous entry's path
	skip := 0       // entries left in a directory whose tree the cache-tree names
	var skipBase []byte
	var root []byte
	if c, ok := t.cache[""]; ok && c.entries > 0 && c.entries == r.left {
		// Nothing changed since the whole tree was written: read on only
		// to count.
		root, skip, skipBase = c.id, c.entries, []byte{}
	}
	for {
		e, err := r.next()
		if err != nil {
			return "", -1, err
		}
		if e.path == nil {
			break
		}
		if e.flags&flagStage != 0 {
			return "", -1, errIndexFormat // unmerged: git's writeTree resolves it
		}
		if prev != nil && (bytes.Compare(prev, e.path) >= 0 ||
			len(prev) < len(e.path) && e.path[len(prev)] == '/' && bytes.HasPrefix(e.path, prev)) {
			return "", -1, errIndexFormat // unsorted, or a file and a directory at once
		}
		prev = append(prev[:0], e.path...)
		cmp.add(e)
		if skip > 0 {
			if !bytes.HasPrefix(e.path, skipBase) {
				return "", -1, errIndexFormat // the cache-tree does not match the entries
			}
			skip--
			continue
		}
		if skipBase != nil && bytes.HasPrefix(e.path, skipBase) {
			return "", -1, errIndexFormat
		}
		skipBase = nil
		t.enter(e.path, &skip, &skipBase)
		if skip > 0 {
			skip-- // this entry is the directory's first
			continue
		}
		top := t.stack[len(t.stack)-1]
		if e.ext&extIntentToAdd != 0 {
			top.ita = true
			continue
		}
		top.body = strconv.AppendUint(top.body, uint64(e.mode), 8)
		top.body = append(append(append(top.body, ' '), e.path[len(top.base):]...), 0)
		top.body = append(top.body, e.id...)
	}
	if skip > 0 {
		return "", -1, errIndexFormat
	}
	if root == nil {
		for len(t.stack) > 1 {
			t.pop()
		}
		root = t.finish(t.stack[0])
	}
	if t.tooMany {
		return "", -1, errIndexFormat
	}
	for id, body := range t.pending {
		if err := q.stage(w, "tree", id, body); err != nil {
			return "", -1, err
		}
	}
	changes = -1
	if old != nil {
		if n, ok := cmp.done(); ok {
			changes = n
		}
	}
	return hex.EncodeToString(root), changes, nil
}

// enter makes the stack the directories of path: it closes the ones path
// is not in and opens the ones it is. A directory the cache-tree names
// is not opened: its tree goes into its parent and *skip is set to its
// entry count, *skipBase to its path.
func (t *treeBuilder) enter(path []byte, skip *int, skipBase *[]byte) {
	for len(t.stack) > 1 && !bytes.HasPrefix(path, t.stack[len(t.stack)-1].base) {
		t.pop()
	}
	for {
		top := t.stack[len(t.stack)-1]
		slash := bytes.IndexByte(path[len(top.base):], '/')
		if slash < 0 {
			return
		}
		base := path[:len(top.base)+slash+1]
		if c, ok := t.cache[string(base)]; ok && c.entries > 0 {
			top.body = append(append(append(top.body, "40000 "...), base[len(top.base):len(base)-1]...), 0)
			top.body = append(top.body, c.id...)
			*skip, *skipBase = c.entries, bytes.Clone(base)
			return
		}
		t.stack = append(t.stack, &dirFrame{base: bytes.Clone(base)})
	}
}

// pop closes the innermost directory and adds its tree to its parent,
// unless it holds only intent-to-add entries (git leaves that empty
// tree out).
func (t *treeBuilder) pop() {
	d := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	parent := t.stack[len(t.stack)-1]
	if d.ita {
		parent.ita = true
		if len(d.body) == 0 {
			return
		}
	}
	id := t.finish(d)
	parent.body = append(append(append(parent.body, "40000 "...), d.base[len(parent.base):len(d.base)-1]...), 0)
	parent.body = append(parent.body, id...)
}

// finish hashes a directory's tree and queues it to be written unless
// this capture already queued it or the repository has it as a loose
// object. As git does, an object found is freshened (its time set to
// now, so git gc does not prune it as old garbage before the new
// checkpoint names it), and written again if that fails; the empty tree
// is written like any other.
func (t *treeBuilder) finish(d *dirFrame) []byte {
	id := hashObject(t.w.format, "tree", d.body)
	hexID := hex.EncodeToString(id)
	if _, ok := t.pending[hexID]; ok || t.tooMany {
		return id
	}
	if now := time.Now(); os.Chtimes(filepath.Join(t.w.objects, hexID[:2], hexID[2:]), now, now) == nil {
		return id
	}
	if len(t.pending) == maxBuiltTrees {
		t.tooMany = true
		return id
	}
	t.pending[hexID] = d.body
	return id
}

// changeCounter merges the entries of two indexes under a prefix and
// counts those in one only or with another mode or id.
type changeCounter struct {
	r      *indexReader // the old index; nil when not counting
	prefix []byte
	old    indexEntry // the old index's next entry in a tree under prefix
	err    error
	n      int
}

func (c *changeCounter) next() {
	for c.err == nil {
		if c.old, c.err = c.r.next(); c.err != nil || c.old.path == nil {
			return
		}
		if c.old.inTree() && bytes.HasPrefix(c.old.path, c.prefix) {
			return
		}
	}
}

// add takes the new index's next entry.
func (c *changeCounter) add(e indexEntry) {
	if c.r == nil || c.err != nil || !e.inTree() || !bytes.HasPrefix(e.path, c.prefix) {
		return
	}
	for c.err == nil && c.old.path != nil && bytes.Compare(c.old.path, e.path) < 0 {
		c.n++ // gone
		c.next()
	}
	if c.err == nil && c.old.path != nil && bytes.Equal(c.old.path, e.path) {
		if c.old.mode != e.mode || !bytes.Equal(c.old.id, e.id) {
			c.n++ // changed
		}
		c.next()
		return
	}
	c.n++ // new
}

// done counts the old entries left over and returns the count.
func (c *changeCounter) done() (int, bool) {
	for c.err == nil && c.old.path != nil {
		c.n++
		c.next()
	}
	return c.n, c.err == nil
}

// parseCacheTree reads the cache-tree extension: for each directory, in
// pre-order, its path component, NUL, its entry count (-1 if invalid), a
// space, its subtree count, a newline, and its tree id if valid.
func parseCacheTree(b []byte, idLen int) (map[string]cachedTree, error) {
	cache := map[string]cachedTree{}
	if len(b) == 0 {
		return cache, nil
	}
	var walk func(prefix string) error
	walk = func(prefix string) error {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return errIndexFormat
		}
		nl := bytes.IndexByte(b[nul:], '\n')
		if nl < 0 {
			return errIndexFormat
		}
		nl += nul
		name := string(b[:nul])
		counts := bytes.Fields(b[nul+1 : nl])
		b = b[nl+1:]
		if len(counts) != 2 {
			return errIndexFormat
		}
		entries, err1 := strconv.Atoi(string(counts[0]))
		subtrees, err2 := strconv.Atoi(string(counts[1]))
		if err1 != nil || err2 != nil || subtrees < 0 {
			return errIndexFormat
		}
		dir := prefix
		if prefix != "" || name != "" {
			dir = prefix + name + "/"
		}
		c := cachedTree{entries: -1}
		if entries >= 0 {
			if len(b) < idLen {
				return errIndexFormat
			}
			c = cachedTree{entries: entries, id: b[:idLen]}
			b = b[idLen:]
		}
		cache[dir] = c
		for i := 0; i < subtrees; i++ {
			if err := walk(dir); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(""); err != nil || len(b) != 0 {
		return nil, errIndexFormat
	}
	return cache, nil
}
