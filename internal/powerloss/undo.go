package powerloss

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// undo is what one write, truncate or fallocate replaced: the bytes that
// were at off before it (only those inside the old size) and the old size.
// Writing old back at off and truncating to size restores the file as it
// was just before the change.
type undo struct {
	off  int64
	old  []byte
	size int64
}

// fileKey names a backing file by device and inode, so every FUSE node
// that ever stood for the same file shares one undo log.
type fileKey struct{ dev, ino uint64 }

// tracked is the undo log of one backing file.
type tracked struct {
	name string // path relative to the backing dir when first seen, for reports

	// mu is held across recording a change and making it, and across an
	// fsync, so the log and the file always agree.
	mu sync.Mutex
	f  *os.File // our own read-write descriptor of the backing file
	// Invariant: undoing log in reverse turns the backing file into what
	// it was at its last fsync (or when first seen, if never fsynced).
	log []undo
}

// before records what [off, off+n) and the file size are now, just before
// a change to them. The caller holds t.mu and makes the change right
// after.
func (t *tracked) before(off, n int64) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(t.f.Fd()), &st); err != nil {
		return fmt.Errorf("powerloss: stat %s: %w", t.name, err)
	}
	u := undo{off: off, size: st.Size}
	if end := min(off+n, st.Size); off < end {
		u.old = make([]byte, end-off)
		if _, err := t.f.ReadAt(u.old, off); err != nil {
			return fmt.Errorf("powerloss: read %s at %d before a write: %w", t.name, off, err)
		}
	}
	t.log = append(t.log, u)
	return nil
}

// synced forgets the log: everything written so far is durable.
func (t *tracked) synced() {
	t.log = nil
}

// revert undoes every change since the last fsync, newest first, and
// reports how many changes and bytes it took back.
func (t *tracked) revert() (changes int, bytes int64, err error) {
	for i := len(t.log) - 1; i >= 0; i-- {
		u := t.log[i]
		if len(u.old) > 0 {
			if _, err := t.f.WriteAt(u.old, u.off); err != nil {
				return changes, bytes, fmt.Errorf("powerloss: restore %s at %d: %w", t.name, u.off, err)
			}
		}
		if err := t.f.Truncate(u.size); err != nil {
			return changes, bytes, fmt.Errorf("powerloss: restore the size of %s: %w", t.name, err)
		}
		changes++
		bytes += int64(len(u.old))
	}
	t.log = nil
	return changes, bytes, nil
}
