package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A capture needs two refs: HEAD (the base) and the thread's tip (the
// parent). Looking them up costs a git process, so the Manager keeps
// what it last wrote or saw, and checks it on every use:
//
//   - The tip is remembered after each capture. It is checked by the
//     capture's own ref transaction, which moves the tip only if it still
//     holds the remembered value; when another process moved it, the
//     transaction fails, and the capture looks the tip up and commits
//     again with the right parent.
//   - HEAD is read from the repository's files on every capture (HEAD,
//     then the branch's loose ref or packed-refs: what git reads), and
//     used as is only when git itself has shown it to be a commit before.
//     Anything else (a new commit, an unborn branch, a ref format we do
//     not read) is looked up with git.
//
// A restart, a Restore or DeleteThread forgets a thread's tip; the next
// capture looks it up.

// tip is a thread's tip as a capture needs it.
type tip struct {
	id              string // the ref's value; "" when the thread has no tip
	tree            string // of the tip commit; "" if it is not a commit
	scope, previous string // its Nexus-Scope and Nexus-Previous ("" for none)
}

func tipOf(o object) tip {
	t := tip{id: o.id}
	if o.typ == "commit" {
		t.tree = o.tree
		t.scope = o.trailer("Nexus-Scope")
		t.previous = strings.TrimPrefix(o.trailer("Nexus-Previous"), "none")
	}
	return t
}

// refState is what a capture reads from the refs.
type refState struct {
	base string // HEAD's commit, "" in a shadow repository or before the first commit
	tip  tip
	// remembered is true when the tip came from memory: the ref
	// transaction checks it, and a failed one is retried after a lookup.
	remembered bool
}

// lookup is a refState being read in the background.
type lookup struct {
	done chan struct{}
	st   refState
	err  error
}

func (l *lookup) wait() (refState, error) {
	<-l.done
	return l.st, l.err
}

// lookupRefs returns the refs a capture of thread needs: from memory
// when it holds, else from git in the background while the files are
// scanned. The caller waits for the result before it returns.
func (m *Manager) lookupRefs(ctx context.Context, w *ws, thread string) *lookup {
	l := &lookup{done: make(chan struct{})}
	if st, ok := m.remembered(w, thread); ok {
		l.st = st
		close(l.done)
		return l
	}
	go func() {
		defer close(l.done)
		l.st, l.err = m.readRefs(ctx, w, thread)
	}()
	return l
}

// readRefs looks HEAD and the tip up with git and remembers HEAD's
// commit as verified.
func (m *Manager) readRefs(ctx context.Context, w *ws, thread string) (refState, error) {
	objs, err := m.objects(ctx, w, "capture", "HEAD", tipName(thread))
	if err != nil {
		return refState{}, err
	}
	st := refState{base: baseOf(w, objs[0]), tip: tipOf(objs[1])}
	if st.base != "" {
		m.mu.Lock()
		m.heads[w.GitDir] = st.base
		m.mu.Unlock()
	}
	return st, nil
}

func baseOf(w *ws, head object) string {
	if head.typ == "commit" && !w.Shadow {
		return head.id
	}
	return ""
}

// remembered returns the refs from memory, if the tip is known and HEAD
// still names a commit git has shown us.
func (m *Manager) remembered(w *ws, thread string) (refState, bool) {
	m.mu.Lock()
	t, ok := m.tips[tipKey(w, thread)]
	verified := m.heads[w.GitDir]
	m.mu.Unlock()
	if !ok {
		return refState{}, false
	}
	if w.Shadow {
		return refState{tip: t, remembered: true}, true
	}
	head, ok := readHead(w)
	if !ok || head != verified {
		return refState{}, false
	}
	return refState{base: head, tip: t, remembered: true}, true
}

func (m *Manager) rememberTip(w *ws, thread string, t tip) {
	m.mu.Lock()
	m.tips[tipKey(w, thread)] = t
	m.mu.Unlock()
}

// forgetTip drops what the Manager knows of a thread's tip and of the
// index its last checkpoint was written from.
func (m *Manager) forgetTip(w *ws, thread string) {
	key := tipKey(w, thread)
	m.mu.Lock()
	delete(m.tips, key)
	k, ok := m.kept[key]
	delete(m.kept, key)
	m.mu.Unlock()
	if ok && !w.Shadow {
		os.Remove(k.path)
	}
}

// tipKey names a thread in a repository: linked worktrees share refs, and
// with them the objects directory.
func tipKey(w *ws, thread string) string { return w.objects + "\x00" + thread }

// readHead reads HEAD's commit id from the repository's files, as git's
// files ref backend stores it: HEAD in the git dir holds an id or
// "ref: refs/heads/<branch>"; the branch is a loose ref file in the
// common dir or a line of its packed-refs. ok is false for anything
// else (an unborn branch, a symbolic ref to elsewhere, the reftable
// format): git looks those up.
func readHead(w *ws) (string, bool) {
	b, err := os.ReadFile(filepath.Join(w.GitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	s := strings.TrimSuffix(string(b), "\n")
	if isID(w, s) {
		return s, true // detached
	}
	ref, ok := strings.CutPrefix(s, "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") || strings.HasSuffix(ref, ".invalid") {
		return "", false // reftable keeps "ref: refs/heads/.invalid" in HEAD
	}
	b, err = os.ReadFile(filepath.Join(w.common, filepath.FromSlash(ref)))
	if err == nil {
		id := strings.TrimSuffix(string(b), "\n")
		return id, isID(w, id)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	// git packs refs by writing packed-refs before deleting the loose
	// file, so a branch missing here is in packed-refs if it exists.
	packed, err := os.ReadFile(filepath.Join(w.common, "packed-refs"))
	if err != nil {
		return "", false
	}
	n := len(w.emptyTree())
	pat := []byte(" " + ref + "\n")
	for off := 0; ; {
		i := bytes.Index(packed[off:], pat)
		if i < 0 {
			return "", false
		}
		i += off
		if start := i - n; start >= 0 && (start == 0 || packed[start-1] == '\n') {
			if id := string(packed[start:i]); isID(w, id) {
				return id, true
			}
		}
		off = i + 1
	}
}

// isID reports whether s is a full object id in w's format.
func isID(w *ws, s string) bool {
	if len(s) != len(w.emptyTree()) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// keptIndex is the index a thread's last checkpoint was written from,
// kept so the next capture can count its changes while it reads its own
// index (trees.go) instead of running git diff-tree. The file is ours:
// <stateDir>/checkpoints/last/<key>.index, or the shadow repository's
// own index. It is used only while its tree is the new checkpoint's
// parent's and the file is the one we kept (same inode, size and
// modification time); anything else counts with git.
type keptIndex struct {
	tree string
	path string
	id   fileID
}

type fileID struct {
	ino, size int64
	mtime     time.Time
}

func statID(path string) (fileID, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	return idOf(st)
}

func idOf(st fs.FileInfo) (fileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{ino: int64(sys.Ino), size: st.Size(), mtime: st.ModTime()}, true
}

// keptOf returns the thread's kept index, if any.
func (m *Manager) keptOf(w *ws, thread string) (keptIndex, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.kept[tipKey(w, thread)]
	return k, ok
}

// keepIndex keeps index, the temporary index tree was just written from,
// for the thread's next capture. In a shadow repository index has
// already become the shadow's own index. Failing to keep it costs only
// speed.
func (m *Manager) keepIndex(w *ws, thread, tree, index string) {
	key := tipKey(w, thread)
	path := index
	if !w.Shadow {
		sum := sha256.Sum256([]byte(key))
		path = filepath.Join(m.stateDir, "checkpoints", "last", hex.EncodeToString(sum[:16])+".index")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return
		}
		if st, err := os.Stat(index); err != nil {
			return
		} else if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Nlink != 1 {
			// Nothing changed the index since it was seeded: it is still
			// the user's file, which we must not keep a link to.
			os.Remove(path + ".tmp") // left by a crash
			if _, err := copyIndex(index, path+".tmp"); err != nil {
				os.Remove(path + ".tmp")
				return
			}
			index = path + ".tmp"
		}
		if err := os.Rename(index, path); err != nil {
			return
		}
	}
	id, ok := statID(path)
	if !ok {
		return
	}
	m.mu.Lock()
	m.kept[key] = keptIndex{tree: tree, path: path, id: id}
	m.mu.Unlock()
}

// sweepKept removes kept indexes a previous process left and no capture
// has used for a day.
func sweepKept(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
