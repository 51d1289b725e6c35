package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"
)

// RepairResult is the outcome of Repair.
type RepairResult struct {
	// Before is the verdict on the original: Verify's, or for a file
	// too damaged to open, Damaged and the reason. After is Verify's on
	// the rebuilt journal.
	Before, After Report
	// Backup is the original journal, kept under a new name; "" if
	// nothing needed repair.
	Backup string
	// Kept counts the events copied with their original bytes.
	Kept uint64
	// Lost are the seqs below the last intact event whose events are
	// not intact; each now holds a journal.repaired event.
	Lost []SeqRange
	// Dropped counts the events known to have followed the last intact
	// one, by meta/last or an event found past it that is not intact.
	Dropped uint64
	// DroppedAtLeast says meta/last could not be read (the file is cut
	// short, or its tree is damaged there), so the journal may have
	// ended later than anything left in the file says: Dropped is a
	// lower bound, from an older copy of meta/last or an event found.
	DroppedAtLeast bool
}

// rebuildSuffix names the journal Repair writes before it takes the
// original's place.
const rebuildSuffix = ".rebuild"

// Repair makes the journal of dir verify again. A healthy journal is
// left alone. Otherwise it reads every intact event out of the file with
// preads (salvage.go: the rule for "intact"), writes them into a new
// file with their original bytes, a journal.repaired event at each lost
// seq below the last intact one (so seqs stay gapless, and the chain is
// computed afresh from the first loss on) and one snapshot of the
// replay, verifies that file, and only then puts it in place: the
// original is kept as journal.db.corrupt-<unix time> (a hard link made
// before the new file is renamed over journal.db, so journal.db always
// exists). Events after the last intact one are gone (Dropped).
func Repair(ctx context.Context, dir string, opts Options) (RepairResult, error) {
	var res RepairResult
	if err := prepareDir(dir); err != nil {
		return res, err
	}
	path := filepath.Join(dir, JournalFile)
	if err := dropUnfinishedBackup(dir, path); err != nil {
		return res, err
	}
	s, err := open(dir, JournalFile, opts, false)
	var de *DamagedError
	var src *os.File
	switch {
	case errors.As(err, &de):
		res.Before = Report{Damaged: true, Reason: de.Reason}
		if src, err = lockJournal(dir, path, opts); err != nil {
			return res, err
		}
		defer src.Close()
	case err != nil:
		return res, err
	default:
		defer s.Close()
		if res.Before, err = s.Verify(ctx); err != nil || res.Before.OK {
			res.After = res.Before
			return res, err
		}
		src = s.file
	}
	if res.Backup, err = backupName(path); err != nil {
		return res, err
	}
	tmp := path + rebuildSuffix
	if err := rebuild(ctx, dir, src, &res, opts); err != nil {
		os.Remove(tmp)
		return res, err
	}
	if err := os.Link(path, res.Backup); err != nil {
		os.Remove(tmp)
		return res, fmt.Errorf("store: keep the original journal as %s: %w", res.Backup, err)
	}
	if err := syncDir(dir); err != nil {
		return res, fmt.Errorf("store: fsync state dir %s: %w", dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return res, fmt.Errorf("store: put the rebuilt journal in place: %w; the original is in %s, the rebuilt one in %s", err, res.Backup, tmp)
	}
	if err := syncDir(dir); err != nil {
		return res, fmt.Errorf("store: fsync state dir %s: %w", dir, err)
	}
	return res, nil
}

// lockJournal takes the journal lock on a file bbolt cannot open, and
// returns the file to read it through.
func lockJournal(dir, path string, opts Options) (*os.File, error) {
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	f, err := openJournalFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, timeout); err != nil {
		f.Close()
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, &LockedError{Dir: dir, PID: readPID(dir)}
		}
		return nil, err
	}
	if same, err := samePath(f, path); err != nil || !same {
		f.Close()
		return nil, fmt.Errorf("store: %s was replaced while repairing it; run the repair again", path)
	}
	return f, nil
}

// dropUnfinishedBackup undoes the one step a repair that was killed can
// leave behind: the backup link made, the rebuilt file not yet renamed
// over journal.db. journal.db then has a second link, the backup, which
// Open refuses; it is the same file, so removing that link loses nothing.
func dropUnfinishedBackup(dir, path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink != 2 {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !backupFile.MatchString(e.Name()) {
			continue
		}
		b := filepath.Join(dir, e.Name())
		if bi, err := os.Lstat(b); err == nil && os.SameFile(fi, bi) {
			if err := os.Remove(b); err != nil {
				return fmt.Errorf("store: remove %s, left by an unfinished repair: %w", b, err)
			}
			return syncDir(dir)
		}
	}
	return nil
}

func backupName(path string) (string, error) {
	base := fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			return name, nil
		}
	}
	return "", fmt.Errorf("store: too many journal backups named %s*; remove old ones", base)
}
