package powerloss

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// The node methods in this file change a directory's entries. Each
// holds m.ns across the change and what must be recorded before it: the
// entries of the directories it changes, as they were at their last
// fsync (entries.go), and, for an entry about to go, its inode, kept in
// the stash so Cut can bring the name back.

var (
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
)

// changing locks the directory model and records the entries of the
// directories at rels before their first change. The caller makes its
// change and then calls unlock.
func (n *node) changing(rels ...string) (unlock func(), errno syscall.Errno) {
	n.m.ns.Lock()
	if err := n.m.changing(rels...); err != nil {
		n.m.ns.Unlock()
		n.m.fail(err)
		return nil, syscall.EIO
	}
	return n.m.ns.Unlock, 0
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	unlock, errno := n.changing(n.Path(nil))
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	return n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	unlock, errno := n.changing(n.Path(nil))
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	return n.LoopbackNode.Mkdir(ctx, name, mode, out)
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	unlock, errno := n.changing(n.Path(nil))
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	return n.LoopbackNode.Symlink(ctx, target, name, out)
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	unlock, errno := n.changing(n.Path(nil))
	if errno != 0 {
		return nil, errno
	}
	defer unlock()
	return n.LoopbackNode.Link(ctx, target, name, out)
}

// Unlink keeps the file's inode in the stash first.
func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	dir := n.Path(nil)
	unlock, errno := n.changing(dir)
	if errno != 0 {
		return errno
	}
	defer unlock()
	if err := n.m.stash(filepath.Join(dir, name)); err != nil {
		n.m.fail(err)
		return syscall.EIO
	}
	return n.LoopbackNode.Unlink(ctx, name)
}

// Rmdir moves the empty directory into the stash instead of removing
// it, so Cut can put it back.
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	dir := n.Path(nil)
	unlock, errno := n.changing(dir)
	if errno != 0 {
		return errno
	}
	defer unlock()
	return n.m.stashDir(filepath.Join(dir, name))
}

// Rename records both directories and keeps a file it replaces in the
// stash. An empty directory it replaces is moved into the stash first,
// and back if the rename then fails. RENAME_WHITEOUT (overlayfs only) is
// refused.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	const renameExchange, renameWhiteout = 2, 4
	if flags&renameWhiteout != 0 {
		return syscall.EINVAL
	}
	from, to := n.Path(nil), newParent.EmbeddedInode().Path(nil)
	unlock, errno := n.changing(from, to)
	if errno != 0 {
		return errno
	}
	defer unlock()
	if flags&renameExchange != 0 {
		// Both inodes keep a name; Cut finds them where they are.
		return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	}
	victim := filepath.Join(to, newName)
	var src, dst syscall.Stat_t
	srcErr := syscall.Lstat(filepath.Join(n.m.backing, from, name), &src)
	dstErr := syscall.Lstat(filepath.Join(n.m.backing, victim), &dst)
	if srcErr == nil && dstErr == nil && src.Ino != dst.Ino &&
		src.Mode&syscall.S_IFMT == syscall.S_IFDIR && dst.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		if errno := n.m.stashDir(victim); errno != 0 {
			return errno
		}
		errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
		if errno != 0 {
			n.m.unstashDir(fileKey{uint64(dst.Dev), dst.Ino}, victim)
		}
		return errno
	}
	if srcErr == nil {
		if err := n.m.stash(victim); err != nil {
			n.m.fail(err)
			return syscall.EIO
		}
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

// OpendirHandle wraps the loopback dir handle so that its fsync reaches
// the directory model.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(n.m.backing, n.Path(nil)), &st); err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	fh, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{inner: fh, m: n.m, key: fileKey{uint64(st.Dev), st.Ino}}, fuseFlags, 0
}

// dirHandle is an open directory. It knows its directory by inode, so
// an fsync through it reaches the right one even after a rename.
type dirHandle struct {
	inner fs.FileHandle
	m     *FS
	key   fileKey
}

var (
	_ fs.FileReaddirenter = (*dirHandle)(nil)
	_ fs.FileSeekdirer    = (*dirHandle)(nil)
	_ fs.FileReleasedirer = (*dirHandle)(nil)
	_ fs.FileFsyncdirer   = (*dirHandle)(nil)
)

func (h *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return h.inner.(fs.FileReaddirenter).Readdirent(ctx)
}

func (h *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return h.inner.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (h *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	h.inner.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

// Fsyncdir makes the directory's current entries durable. The backing
// dir is not fsynced (see node.Fsync).
func (h *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	return h.m.fsyncDir(h.key)
}

// fsyncDir serves an fsync of the directory key.
func (m *FS) fsyncDir(key fileKey) syscall.Errno {
	m.dirFsyncs.Add(1)
	m.ns.Lock()
	defer m.ns.Unlock()
	if err := m.syncDir(key); err != nil {
		m.fail(err)
		return syscall.EIO
	}
	return 0
}
