package powerloss

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose files record their unsynced changes. The
// embedded LoopbackNode does every operation on the backing dir as it
// is; node wraps what changes file contents or size, what changes a
// directory's entries (see entries.go) and fsync.
type node struct {
	fs.LoopbackNode
	m *FS
	t atomic.Pointer[tracked] // cached m.track result
}

var (
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeCreater   = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeFsyncer   = (*node)(nil)
)

// tracked returns the undo log of the node's backing file, created on
// first use.
func (n *node) tracked() (*tracked, syscall.Errno) {
	if t := n.t.Load(); t != nil {
		return t, 0
	}
	t, err := n.m.track(n.Path(nil), true)
	if err != nil {
		n.m.fail(err)
		return nil, syscall.EIO
	}
	n.t.Store(t)
	return t, 0
}

// existing returns the undo log of the node's backing file, or nil if
// nothing was ever written through the mount.
func (n *node) existing() *tracked {
	if t := n.t.Load(); t != nil {
		return t
	}
	t, err := n.m.track(n.Path(nil), false)
	if err != nil {
		n.m.fail(err)
	}
	return t
}

// Open wraps the loopback file handle, after recording a truncation that
// O_TRUNC implies (the kernel normally sends that as a separate Setattr;
// this covers kernels that pass O_TRUNC through).
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.IsDir() {
		return n.LoopbackNode.Open(ctx, flags)
	}
	if flags&syscall.O_TRUNC != 0 {
		t, errno := n.tracked()
		if errno != 0 {
			return nil, 0, errno
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if err := t.before(0, 1<<62); err != nil {
			n.m.fail(err)
			return nil, 0, syscall.EIO
		}
	}
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &handle{inner: fh, n: n}, fuseFlags, 0
}

// Create makes the file through the loopback node and wraps its handle.
// The new entry is durable once n is fsynced.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	unlock, errno := n.changing(n.Path(nil))
	if errno != 0 {
		return nil, nil, 0, errno
	}
	defer unlock()
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags&^syscall.O_TRUNC, mode, out)
	if errno != 0 {
		return ch, fh, fuseFlags, errno
	}
	child, ok := ch.Operations().(*node)
	if !ok {
		// NewNode makes every node; a handle we could not wrap would
		// write unrecorded, so refuse rather than serve it.
		fh.(fs.FileReleaser).Release(ctx)
		n.m.fail(fmt.Errorf("powerloss: %s was created as a %T, not a recording node", name, ch.Operations()))
		return nil, nil, 0, syscall.EIO
	}
	if flags&syscall.O_TRUNC != 0 {
		// Creating an existing file with O_TRUNC empties it. The child
		// is not linked to n yet, so its path comes from n.
		t, err := n.m.track(filepath.Join(n.Path(nil), name), true)
		if err != nil {
			n.m.fail(err)
			fh.(fs.FileReleaser).Release(ctx)
			return nil, nil, 0, syscall.EIO
		}
		child.t.Store(t)
		t.mu.Lock()
		err = t.before(0, 1<<62)
		if err == nil {
			err = t.f.Truncate(0)
		}
		t.mu.Unlock()
		if err != nil {
			n.m.fail(err)
			fh.(fs.FileReleaser).Release(ctx)
			return nil, nil, 0, syscall.EIO
		}
	}
	return ch, &handle{inner: fh, n: child}, fuseFlags, 0
}

// Tmpfile is refused: an O_TMPFILE handle would bypass the wrapper, and
// nexus does not use it; programs fall back to a named file.
func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// Setattr records a size change (truncate or ftruncate) before the
// loopback node makes it.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*handle); ok {
		f = h.inner
	}
	sz, ok := in.GetSize()
	if !ok || n.IsDir() {
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	t, errno := n.tracked()
	if errno != 0 {
		return errno
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.before(int64(sz), 1<<62); err != nil {
		n.m.fail(err)
		return syscall.EIO
	}
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

// Fsync (and fdatasync, which arrives with flags 1) makes every change
// to the file so far durable: its undo log is dropped. It does not make
// the file's own name durable: that takes an fsync of its directory. The
// backing file is not fsynced: the model, not the backing disk, decides
// what survives. A directory's fsync normally arrives at its dirHandle;
// this serves one that comes without a handle.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if n.IsDir() {
		if h, ok := f.(*dirHandle); ok {
			return h.Fsyncdir(ctx, flags)
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(n.m.backing, n.Path(nil)), &st); err != nil {
			return fs.ToErrno(err)
		}
		return n.m.fsyncDir(fileKey{uint64(st.Dev), st.Ino})
	}
	n.m.fsyncs.Add(1)
	if t := n.existing(); t != nil {
		t.mu.Lock()
		t.synced()
		t.mu.Unlock()
	}
	return 0
}

// handle wraps a loopback file handle. It implements only what it can
// vouch for: reads, recorded writes and allocations, and attributes. It
// has no PassthroughFd (the kernel would then write to the backing file
// without asking us), no locks (the kernel keeps flock locks itself) and
// no ioctl.
type handle struct {
	inner fs.FileHandle
	n     *node
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileWritever  = (*handle)(nil)
	_ fs.FileAllocater = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
	_ fs.FileStatxer   = (*handle)(nil)
	_ fs.FileLseeker   = (*handle)(nil)
)

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.inner.(fs.FileReader).Read(ctx, dest, off)
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	t, errno := h.n.tracked()
	if errno != 0 {
		return 0, errno
	}
	t.mu.Lock()
	if err := t.before(off, int64(len(data))); err != nil {
		t.mu.Unlock()
		h.n.m.fail(err)
		return 0, syscall.EIO
	}
	n, errno := h.inner.(fs.FileWriter).Write(ctx, data, off)
	t.mu.Unlock()
	if fn := h.n.m.onWrite.Load(); fn != nil && errno == 0 {
		(*fn)(t.name)
	}
	return n, errno
}

func (h *handle) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	var all []byte
	for _, d := range data {
		all = append(all, d...)
	}
	return h.Write(ctx, all, off)
}

func (h *handle) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	t, errno := h.n.tracked()
	if errno != 0 {
		return errno
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.before(int64(off), int64(size)); err != nil {
		h.n.m.fail(err)
		return syscall.EIO
	}
	return h.inner.(fs.FileAllocater).Allocate(ctx, off, size, mode)
}

func (h *handle) Flush(ctx context.Context) syscall.Errno {
	return h.inner.(fs.FileFlusher).Flush(ctx)
}

func (h *handle) Release(ctx context.Context) syscall.Errno {
	return h.inner.(fs.FileReleaser).Release(ctx)
}

func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return h.inner.(fs.FileGetattrer).Getattr(ctx, out)
}

func (h *handle) Statx(ctx context.Context, flags, mask uint32, out *fuse.StatxOut) syscall.Errno {
	return h.inner.(fs.FileStatxer).Statx(ctx, flags, mask, out)
}

func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.inner.(fs.FileLseeker).Lseek(ctx, off, whence)
}
