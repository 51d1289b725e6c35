package powerloss

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FS is one mount of a backing directory that remembers every change not
// yet fsynced. Its methods are safe for concurrent use; the FUSE server
// runs on goroutines of the calling process, so that process must not be
// the one killed.
type FS struct {
	backing, mountpoint string
	server              *fuse.Server

	// ns is held across every change to a directory's entries (with
	// the bookkeeping before it) and every FsyncDir, and by Cut and
	// Unmount; it comes before mu and any tracked.mu.
	ns        sync.Mutex
	dirs      map[fileKey]*dirState // directories whose entries changed
	stashPath string                // keeps unlinked inodes alive until Cut
	stashFd   int                   // -1 once closed

	mu    sync.Mutex
	files map[fileKey]*tracked
	err   error // the first failure of the layer itself
	done  bool  // unmounted

	fsyncs    atomic.Int64
	dirFsyncs atomic.Int64
	onWrite   atomic.Pointer[func(rel string)]
}

// Check tells whether this process can mount FUSE file systems, and if
// not, what to do about it.
func Check() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("powerloss: cannot open /dev/fuse (%w): load the fuse module (modprobe fuse), "+
			"or in a container pass the device (docker run --device /dev/fuse --cap-add SYS_ADMIN)", err)
	}
	f.Close()
	if os.Geteuid() == 0 {
		return nil
	}
	for _, name := range []string{"fusermount3", "fusermount"} {
		if _, err := exec.LookPath(name); err == nil {
			return nil
		}
	}
	return errors.New("powerloss: mounting FUSE needs root (or CAP_SYS_ADMIN) or the setuid fusermount3 helper " +
		"(apt-get install fuse3); run the test as root or install it")
}

// Mount serves the backing directory at mountpoint (both must exist).
// Everything written through the mount reaches the backing directory at
// once, and is remembered until the file is fsynced.
func Mount(backing, mountpoint string) (*FS, error) {
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, fmt.Errorf("powerloss: backing dir: %w", err)
	}
	m := &FS{backing: backing, mountpoint: mountpoint, files: map[fileKey]*tracked{}, dirs: map[fileKey]*dirState{}}
	if err := m.makeStash(uint64(st.Dev)); err != nil {
		return nil, err
	}
	root := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	root.NewNode = func(r *fs.LoopbackRoot, _ *fs.Inode, _ string, _ *syscall.Stat_t) fs.InodeEmbedder {
		return &node{LoopbackNode: fs.LoopbackNode{RootData: r}, m: m}
	}
	rootNode := root.NewNode(root, nil, "", &st)
	root.RootNode = rootNode
	// Short caches: the mount is private to one test, but a restarted
	// process must see sizes the way the file has them.
	sec := time.Second
	opts := &fs.Options{
		EntryTimeout: &sec,
		AttrTimeout:  &sec,
		MountOptions: fuse.MountOptions{
			FsName:            "powerloss",
			Name:              "powerloss",
			DirectMountStrict: os.Geteuid() == 0,
			// Without these the kernel keeps every write going through
			// Write, which is what the undo log relies on: no
			// passthrough to the backing file, no writeback cache that
			// would turn writes into delayed page flushes.
			DisabledCapabilities: fuse.CAP_PASSTHROUGH | fuse.CAP_WRITEBACK_CACHE,
		},
	}
	server, err := fs.Mount(mountpoint, rootNode, opts)
	if err != nil {
		m.closeEntries()
		if cerr := Check(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("powerloss: mount FUSE at %s: %w; the test needs /dev/fuse and root (or CAP_SYS_ADMIN)", mountpoint, err)
	}
	m.server = server
	return m, nil
}

// makeStash creates the stash: a private dir next to the backing dir,
// outside the mounted tree, on the same file system so that unlinked
// files can be hard-linked into it.
func (m *FS) makeStash(dev uint64) error {
	m.stashFd = -1
	dir, err := os.MkdirTemp(filepath.Dir(m.backing), ".powerloss-stash-")
	if err != nil {
		return fmt.Errorf("powerloss: cannot create the stash next to %s: %w; the backing dir's parent must be writable", m.backing, err)
	}
	m.stashPath = dir
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return fmt.Errorf("powerloss: open the stash: %w", err)
	}
	m.stashFd = fd
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || uint64(st.Dev) != dev {
		m.closeEntries()
		return fmt.Errorf("powerloss: the stash %s is not on the backing dir's file system (%v); "+
			"the backing dir must not be a mount point", dir, err)
	}
	return nil
}

// track returns the undo log of the backing file at rel (relative to the
// backing dir), opening our own descriptor of it the first time. With
// open false it returns nil for a file that has no log yet.
func (m *FS) track(rel string, open bool) (*tracked, error) {
	path := filepath.Join(m.backing, rel)
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return nil, fmt.Errorf("powerloss: stat %s: %w", rel, err)
	}
	key := fileKey{uint64(st.Dev), st.Ino}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.files[key]; t != nil || !open {
		return t, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("powerloss: open %s to track it: %w", rel, err)
	}
	t := &tracked{name: rel, f: f}
	m.files[key] = t
	return t, nil
}

// fail keeps the first failure of the layer; Cut and Unmount return it,
// so a test never passes on a model that stopped recording.
func (m *FS) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// OnWrite sets fn to run after every write through the mount, with the
// file's path relative to the backing dir. It runs on the FUSE server
// while the writer waits for its write to return, so it must not block;
// a test uses it to kill the writer right after a chosen write, before
// the fsync that would have followed. nil removes it.
func (m *FS) OnWrite(fn func(rel string)) {
	if fn == nil {
		m.onWrite.Store(nil)
		return
	}
	m.onWrite.Store(&fn)
}

// Fsyncs counts the fsync and fdatasync calls of files served so far.
func (m *FS) Fsyncs() int64 { return m.fsyncs.Load() }

// DirFsyncs counts the fsync calls of directories served so far.
func (m *FS) DirFsyncs() int64 { return m.dirFsyncs.Load() }

// Loss is what a Cut took back.
type Loss struct {
	// Entries are the names (relative to the backing dir, sorted) that
	// the cut removed or brought back because their directory was not
	// fsynced after the change.
	Entries []string
	Files   []string // backing files that lost changes, sorted
	Changes int      // writes, truncates and allocations undone
	Bytes   int64    // old bytes written back
}

// Cut is the power failure. Call it after every process that used the
// mount is dead: it unmounts, then undoes every change that was not
// fsynced: directory entries back to what each directory held at its
// last fsync, and each file's changes newest first, so the backing
// directory holds exactly what was durable. The FS is done afterwards;
// Mount again to go on.
func (m *FS) Cut() (Loss, error) {
	var loss Loss
	if err := m.unmount(); err != nil {
		return loss, err
	}
	m.ns.Lock()
	defer m.ns.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs == nil {
		return loss, m.err // cut or unmounted before
	}
	// The file logs write through our own descriptors, so they apply
	// to the inodes whatever names the entries pass gives them.
	entries, err := m.revertEntries()
	if err != nil && m.err == nil {
		m.err = err
	}
	loss.Entries = entries
	for _, t := range m.files {
		n, b, err := t.revert()
		t.f.Close()
		if err != nil && m.err == nil {
			m.err = err
		}
		if n > 0 {
			loss.Files = append(loss.Files, t.name)
			loss.Changes += n
			loss.Bytes += b
		}
	}
	m.files = nil
	if err := m.closeEntries(); err != nil && m.err == nil {
		m.err = err
	}
	sort.Strings(loss.Files)
	return loss, m.err
}

// Unmount ends the mount and keeps every write, as an orderly shutdown
// would. It is safe to call after Cut, and more than once.
func (m *FS) Unmount() error {
	if err := m.unmount(); err != nil {
		return err
	}
	m.ns.Lock()
	defer m.ns.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.files {
		t.f.Close()
	}
	m.files = nil
	if m.dirs != nil {
		if err := m.closeEntries(); err != nil && m.err == nil {
			m.err = err
		}
	}
	return m.err
}

// unmount retries while the kernel still counts files of just-killed
// processes as open.
func (m *FS) unmount() error {
	m.mu.Lock()
	done := m.done
	m.mu.Unlock()
	if done {
		return nil
	}
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err = m.server.Unmount(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("powerloss: unmount %s: %w; a process still has files open under it", m.mountpoint, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.mu.Lock()
	m.done = true
	m.mu.Unlock()
	return nil
}
