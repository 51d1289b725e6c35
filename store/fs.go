package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// File names inside the state dir. Part of the on-disk format.
const (
	JournalFile = "journal.db" // the bbolt journal; part of the on-disk format
	PIDFile     = "host.pid"   // pid of the process holding the journal lock; part of the on-disk format
)

// prepareDir creates the state dir 0700 if it is missing and refuses one
// that is a symlink, not a directory, owned by another user, or writable
// by its group or by others: whoever can write it can plant a journal, a
// socket or checkpoints the host trusts. An existing dir is never changed
// (tightening a directory the user chose would surprise): the error says
// what to run.
func prepareDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("store: create state dir: %w; check the permissions of its parent", err)
		}
		// MkdirAll's mode passes through the umask; set it exactly.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("store: chmod state dir: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: state dir: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w (%s)", ErrSymlink, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("store: state dir %s is not a directory; use another --state-dir", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("store: state dir %s belongs to user %d, not to you; use a state dir of your own (--state-dir)", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("store: state dir %s is writable by others; fix with chmod 700 %s", dir, dir)
	}
	return nil
}

// checkJournalFile refuses a journal path that is a symlink, not a regular
// file, or hard-linked elsewhere. A missing file is fine (Open creates it).
func checkJournalFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: journal file: %w", err)
	}
	return checkFileInfo(path, fi)
}

func checkFileInfo(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w (%s)", ErrSymlink, path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotJournal, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && uint64(st.Nlink) > 1 {
		return fmt.Errorf("%w (%s has %d links)", ErrHardLink, path, st.Nlink)
	}
	return nil
}

// openJournalFile is bbolt's OpenFile hook. It opens without following a
// symlink and checks the opened file itself, so a path swapped between
// checkJournalFile and the open is still refused; it also tightens a file
// that was created or copied with a wider mode.
func openJournalFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w (%s)", ErrSymlink, name)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkFileInfo(name, fi)
	}
	if err == nil && fi.Mode().Perm() != 0o600 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writePID records the lock holder's pid. It is written right after the
// lock is taken and read by a process that cannot take it, only to name
// the holder in an error; it is never trusted for anything else.
func writePID(dir string) error {
	path := filepath.Join(dir, PIDFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	_, err = fmt.Fprintf(f, "%d\n", os.Getpid())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	return nil
}

// readPID returns the pid in host.pid, or 0 if it is missing or garbled.
func readPID(dir string) int {
	f, err := os.OpenFile(filepath.Join(dir, PIDFile), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 32))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// copyFile copies src to a new file dst (0600, refusing to overwrite) and
// makes it durable, so the original survives whatever Repair does next.
func copyFile(src, dst string) (err error) {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err = io.Copy(out, in); err != nil {
		return err
	}
	if err = out.Sync(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dst))
}

// syncNewDir makes a new entry in dir durable: dir itself, then its
// parent (which names dir when dir was created with the journal).
func syncNewDir(dir string) error {
	if err := syncDir(dir); err != nil {
		return err
	}
	return syncDir(filepath.Dir(filepath.Clean(dir)))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
