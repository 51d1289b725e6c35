package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"
)

// opener is bbolt's OpenFile hook for a journal. It takes the journal
// lock itself, so that the file is judged under the lock before bbolt
// maps it (bbolt locks the same open file again, which succeeds at
// once): an empty file is refused where an earlier journal left traces
// (HistoryError), and a non-empty one must pass preflight.
type opener struct {
	dir     string
	timeout time.Duration
	// acceptEmpty takes an empty file as a new journal whatever the
	// state dir holds (Options.AcceptEmpty, and Repair's new file).
	acceptEmpty bool
	file        *os.File // the file handed to bbolt
}

func (o *opener) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := openJournalFile(name, flag, perm)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f, o.timeout); err != nil {
			f.Close()
			return nil, err
		}
		// A repair replaces journal.db while holding the lock on the old
		// file: a process that waited for that lock holds the old one.
		if same, err := samePath(f, name); err != nil || !same {
			f.Close()
			if err == nil && attempt < 3 {
				continue
			}
			return nil, fmt.Errorf("store: %s was replaced while opening it; open it again", name)
		}
		if err := o.check(f, name); err != nil {
			f.Close()
			return nil, err
		}
		o.file = f
		return f, nil
	}
}

func (o *opener) check(f *os.File, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: journal file: %w", err)
	}
	if fi.Size() > 0 {
		return preflight(f, name)
	}
	if found := earlierJournal(o.dir); !o.acceptEmpty && len(found) > 0 {
		return &HistoryError{Path: name, Found: found}
	}
	return nil
}

// lockFile takes an exclusive flock on f, retrying until timeout; then it
// returns bbolt's ErrTimeout, as bbolt's own lock would.
func lockFile(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("store: lock the journal: %w", err)
		}
		if time.Now().After(deadline) {
			return berrors.ErrTimeout
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// samePath reports whether the open file f is still the file at path.
func samePath(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false, nil
	}
	return os.SameFile(a, b), nil
}
