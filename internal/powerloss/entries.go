package powerloss

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"golang.org/x/sys/unix"
)

// entry is what a directory entry names: an inode, and whether it is a
// directory (which cannot be hard-linked, only moved).
type entry struct {
	key fileKey
	dir bool
}

// dirState is one directory whose entries changed since the mount.
type dirState struct {
	name string // path relative to the backing dir when first changed, for reports
	fd   int    // our descriptor of it, so Cut finds it wherever it went
	// Invariant: durable is the directory's entries at its last FsyncDir
	// through the mount, or at the mount if it was never fsynced.
	durable map[string]entry
}

// stashName is the name under which the stash keeps an inode alive.
func stashName(k fileKey) string { return fmt.Sprintf("%x-%x", k.dev, k.ino) }

// listDir reads the entries of the directory open as fd.
func listDir(fd int) (map[string]entry, error) {
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dfd), ".")
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entry, len(names))
	for _, name := range names {
		e, err := entryAt(fd, name)
		if err != nil {
			return nil, err
		}
		out[name] = e
	}
	return out, nil
}

// entryAt says what name in the directory fd names.
func entryAt(fd int, name string) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entry{}, err
	}
	return entry{key: fileKey{uint64(st.Dev), st.Ino}, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}, nil
}

// changing records the entries of the directories at rels (relative to
// the backing dir) before the first change to each since the mount: that
// is what they durably hold until they are fsynced. The caller holds
// m.ns and makes the change right after.
func (m *FS) changing(rels ...string) error {
	for _, rel := range rels {
		path := filepath.Join(m.backing, rel)
		var st syscall.Stat_t
		if err := syscall.Lstat(path, &st); err != nil {
			return fmt.Errorf("powerloss: stat dir %s: %w", rel, err)
		}
		key := fileKey{uint64(st.Dev), st.Ino}
		if m.dirs[key] != nil {
			continue
		}
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("powerloss: open dir %s to track it: %w", rel, err)
		}
		durable, err := listDir(fd)
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("powerloss: list dir %s: %w", rel, err)
		}
		m.dirs[key] = &dirState{name: rel, fd: fd, durable: durable}
	}
	return nil
}

// stash keeps the inode that rel names alive in the stash dir, so Cut
// can bring its name back. It is called before an unlink or a rename
// over rel; a missing rel or a directory is left to the change itself
// (which fails, or is handled by the caller). The caller holds m.ns.
func (m *FS) stash(rel string) error {
	e, err := entryAt(unix.AT_FDCWD, filepath.Join(m.backing, rel))
	if errors.Is(err, unix.ENOENT) || err == nil && e.dir {
		return nil
	}
	if err != nil {
		return fmt.Errorf("powerloss: stat %s: %w", rel, err)
	}
	err = unix.Linkat(unix.AT_FDCWD, filepath.Join(m.backing, rel), m.stashFd, stashName(e.key), 0)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("powerloss: keep %s in the stash: %w", rel, err)
	}
	return nil
}

// stashDir moves the empty directory rel into the stash instead of
// removing it, so Cut can move it back with the entries it durably
// holds. The caller holds m.ns.
func (m *FS) stashDir(rel string) syscall.Errno {
	path := filepath.Join(m.backing, rel)
	e, err := entryAt(unix.AT_FDCWD, path)
	if errno := (syscall.Errno(0)); errors.As(err, &errno) {
		return errno
	} else if err != nil {
		return syscall.EIO
	}
	if !e.dir {
		return syscall.ENOTDIR
	}
	f, err := os.Open(path)
	if err != nil {
		return syscall.EIO
	}
	names, _ := f.Readdirnames(1)
	f.Close()
	if len(names) > 0 {
		return syscall.ENOTEMPTY
	}
	if err := unix.Renameat(unix.AT_FDCWD, path, m.stashFd, stashName(e.key)); err != nil {
		m.fail(fmt.Errorf("powerloss: move dir %s into the stash: %w", rel, err))
		return syscall.EIO
	}
	return 0
}

// syncDir makes the current entries of the directory key durable. A
// directory that never changed holds what it held at the mount, which
// is durable already. The caller holds m.ns.
func (m *FS) syncDir(key fileKey) error {
	d := m.dirs[key]
	if d == nil {
		return nil
	}
	durable, err := listDir(d.fd)
	if err != nil {
		return fmt.Errorf("powerloss: list dir %s: %w", d.name, err)
	}
	d.durable = durable
	return nil
}

// place is where an inode has a durable name after Cut's first pass.
type place struct {
	d    *dirState
	name string
}

// revertEntries makes every changed directory hold its durable entries
// again and returns the names it removed or brought back. A first pass
// moves every name that is not durable into the stash (a file whose
// inode the stash keeps already is just unlinked); a second pass brings
// back every durable name that is missing, as a hard link to the stash
// or to another durable name of the same inode, or by moving a directory
// out of the stash. The caller holds m.ns; the mount is gone.
func (m *FS) revertEntries() ([]string, error) {
	var changed []string
	durableAt := map[fileKey]place{}
	inStash := func(k fileKey) bool {
		_, err := entryAt(m.stashFd, stashName(k))
		return err == nil
	}
	for _, d := range m.dirs {
		cur, err := listDir(d.fd)
		if err != nil {
			return changed, fmt.Errorf("powerloss: list dir %s: %w", d.name, err)
		}
		for name, e := range cur {
			if de, ok := d.durable[name]; ok && de == e {
				if _, seen := durableAt[e.key]; !seen {
					durableAt[e.key] = place{d, name}
				}
				continue
			}
			if !e.dir && inStash(e.key) {
				err = unix.Unlinkat(d.fd, name, 0)
			} else {
				err = unix.Renameat(d.fd, name, m.stashFd, stashName(e.key))
			}
			if err != nil {
				return changed, fmt.Errorf("powerloss: remove %s from %s: %w", name, d.name, err)
			}
			changed = append(changed, filepath.Join(d.name, name))
		}
	}
	for _, d := range m.dirs {
		for name, e := range d.durable {
			if _, err := entryAt(d.fd, name); err == nil {
				continue
			}
			var err error
			switch p, elsewhere := durableAt[e.key]; {
			case inStash(e.key) && e.dir:
				err = unix.Renameat(m.stashFd, stashName(e.key), d.fd, name)
				durableAt[e.key] = place{d, name}
			case inStash(e.key):
				err = unix.Linkat(m.stashFd, stashName(e.key), d.fd, name, 0)
			case elsewhere && !e.dir:
				err = unix.Linkat(p.d.fd, p.name, d.fd, name, 0)
			case elsewhere:
				// A directory renamed with only its new parent fsynced
				// is durable in two places; it stays at the new one.
				continue
			default:
				err = errors.New("its inode is gone")
			}
			if err != nil {
				return changed, fmt.Errorf("powerloss: bring back %s in %s: %w", name, d.name, err)
			}
			changed = append(changed, filepath.Join(d.name, name))
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// closeEntries forgets the directory model and deletes the stash, which
// completes every unlink and rmdir made through the mount. The caller
// holds m.ns.
func (m *FS) closeEntries() error {
	for _, d := range m.dirs {
		unix.Close(d.fd)
	}
	m.dirs = nil
	if m.stashFd < 0 {
		return nil
	}
	unix.Close(m.stashFd)
	m.stashFd = -1
	if err := os.RemoveAll(m.stashPath); err != nil {
		return fmt.Errorf("powerloss: remove the stash %s: %w", m.stashPath, err)
	}
	return nil
}

// unstashDir moves the directory key back from the stash to rel, after
// the change it was moved aside for failed. The caller holds m.ns.
func (m *FS) unstashDir(key fileKey, rel string) {
	if err := unix.Renameat(m.stashFd, stashName(key), unix.AT_FDCWD, filepath.Join(m.backing, rel)); err != nil {
		m.fail(fmt.Errorf("powerloss: move dir %s back from the stash: %w", rel, err))
	}
}
