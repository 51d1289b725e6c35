package store

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Typed errors below match them with errors.Is, so a
// caller can test the kind of failure without a type assertion.
var (
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("store: journal is closed; open the state dir again")
	// ErrLocked matches *LockedError.
	ErrLocked = errors.New("store: state dir is locked by another process; stop it or use another --state-dir")
	// ErrCorrupt matches *CorruptError and *DamagedError.
	ErrCorrupt = errors.New("store: journal corrupt; run nexus verify --repair")
	// ErrDamaged matches *DamagedError.
	ErrDamaged = errors.New("store: journal file damaged; run nexus verify --repair")
	// ErrHistory matches *HistoryError.
	ErrHistory = errors.New("store: journal is missing or empty but the state dir holds data of an earlier one")
	// ErrSymlink refuses a state dir or journal file that is a symbolic link.
	ErrSymlink = errors.New("store: refusing a symlinked state path; point --state-dir at the real directory")
	// ErrHardLink refuses a journal file with more than one hard link.
	ErrHardLink = errors.New("store: refusing a hard-linked journal file; remove the other links or copy the file")
	// ErrNotJournal refuses a file that is not a nexus journal.
	ErrNotJournal = errors.New("store: not a nexus journal; use another --state-dir")
	// ErrTooNew refuses a journal written by a newer nexus.
	ErrTooNew = errors.New("store: journal format is newer than this nexus; upgrade nexus")
	// ErrNotEmpty refuses an Import into a journal that has events or snapshots.
	ErrNotEmpty = errors.New("store: import needs an empty journal; import into a new --state-dir")
	// ErrArchive matches *ArchiveError.
	ErrArchive = errors.New("store: bad journal archive; export it again with nexus export")
	// ErrFailed is returned by Append after a commit whose outcome bbolt
	// could not report (a failed fsync may leave the file ahead of what
	// was acknowledged). Restarting recovers from what is durable.
	ErrFailed = errors.New("store: an earlier journal commit failed with an unknown outcome; restart nexus to recover from the durable journal")
)

// LockedError says another process holds the state dir's journal.
type LockedError struct {
	Dir string
	// PID is the holder's process id from host.pid, 0 if unknown.
	PID int
}

func (e *LockedError) Error() string {
	if e.PID <= 0 {
		return fmt.Sprintf("store: state dir %s is locked by another process; stop it or use another --state-dir", e.Dir)
	}
	return fmt.Sprintf("store: state dir %s is locked by process %d; stop it or use another --state-dir", e.Dir, e.PID)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// CorruptError says the journal fails verification at Seq: a hash that
// does not chain, an event that does not decode, or a missing seq.
type CorruptError struct {
	Seq    uint64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("store: journal corrupt at seq %d: %s; run nexus verify --repair", e.Seq, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corrupt(seq uint64, format string, args ...any) *CorruptError {
	return &CorruptError{Seq: seq, Reason: fmt.Sprintf(format, args...)}
}

// DamagedError says the journal file itself is damaged: a meta page, a
// page of the B+tree or the file's length is not what bbolt wrote, so
// bbolt cannot be trusted to read it. Repair rebuilds such a file.
type DamagedError struct {
	Path   string // the journal file
	Reason string // what is wrong, e.g. "page 12: unexpected flags 0x0a"
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("store: journal %s is damaged (%s); nexus verify --repair rebuilds it from the intact events, keeping the original as %s.corrupt-<unix time>",
		e.Path, e.Reason, e.Path)
}

// Is makes errors.Is(err, ErrDamaged) and errors.Is(err, ErrCorrupt) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged || target == ErrCorrupt }

func damaged(path, format string, args ...any) *DamagedError {
	return &DamagedError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// HistoryError refuses to take a missing or empty journal.db as a new
// journal when the state dir holds what an earlier journal left: a new
// one would silently start history over.
type HistoryError struct {
	Path string
	// Found names what was found, e.g. "checkpoints/shadow (workspace
	// snapshots)", "journal.db.corrupt-1700000000 (a copy of a journal)".
	Found []string
}

func (e *HistoryError) Error() string {
	return fmt.Sprintf("store: journal %s is empty but the state dir holds data of an earlier journal: %s; "+
		"it is not taken as a new journal: put journal.db back from a copy, or nexus import an export into it, or use another --state-dir",
		e.Path, strings.Join(e.Found, ", "))
}

// Is makes errors.Is(err, ErrHistory) true.
func (e *HistoryError) Is(target error) bool { return target == ErrHistory }

// ArchiveError says an archive given to Import is not a valid export.
type ArchiveError struct {
	// Frame is the 1-based frame number (0: the header line).
	Frame  uint64
	Reason string
}

func (e *ArchiveError) Error() string {
	if e.Frame == 0 {
		return fmt.Sprintf("store: bad journal archive header: %s; import a file written by nexus export", e.Reason)
	}
	return fmt.Sprintf("store: bad journal archive at frame %d: %s; export it again with nexus export", e.Frame, e.Reason)
}

// Is makes errors.Is(err, ErrArchive) true.
func (e *ArchiveError) Is(target error) bool { return target == ErrArchive }

func badArchive(frame uint64, format string, args ...any) *ArchiveError {
	return &ArchiveError{Frame: frame, Reason: fmt.Sprintf(format, args...)}
}
