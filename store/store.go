package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nexus-tui/nexus/core"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Layout constants. Part of the on-disk format: see doc.go.
var (
	bucketMeta      = []byte("meta")      // part of the on-disk format
	bucketEvents    = []byte("events")    // part of the on-disk format
	bucketSnapshots = []byte("snapshots") // part of the on-disk format

	keyFormat  = []byte("format")  // part of the on-disk format
	keyVersion = []byte("version") // part of the on-disk format
	keyLast    = []byte("last")    // part of the on-disk format
)

const (
	// FormatName is the value of meta/format. Part of the on-disk format.
	FormatName = "nexus-journal"
	// FormatVersion is the value of meta/version (4-byte big-endian).
	// Part of the on-disk format.
	FormatVersion = 1
	// hashSize is the length of a chain hash (BLAKE3-256). Part of the
	// on-disk format.
	hashSize = 32
	// PageSize is the bbolt page size of a new journal; an existing file
	// keeps the one it was created with. Every commit rewrites its dirty
	// pages whole (the events leaf, its branches, the bucket root, the
	// freelist, the meta page), so the page size is what one flush costs
	// on disk: at 4 KiB a once-a-second flush of streamed text writes
	// about 8 bytes per byte of text, at 16 KiB about 24. The price is
	// the half event left free at the end of each page (about 4.5% of
	// the file at 4 KiB, 1% at 16 KiB). Part of the on-disk format.
	PageSize = 4 << 10
	// allocSize is how much bbolt grows the file at a time (its default
	// is 16 MiB, 5% of a 300 MiB journal left empty at the end).
	allocSize = 4 << 20
	// DefaultLockTimeout is how long Open waits for the journal lock.
	DefaultLockTimeout = time.Second
)

// Options configure Open. The zero value is what nexus runs with.
type Options struct {
	// LockTimeout is how long Open waits for another process to release
	// the journal lock before it returns a *LockedError. Zero means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// AcceptEmpty takes a missing or empty journal.db as a new journal
	// even where the state dir holds traces of an earlier one (copies of
	// a journal, workspace checkpoints), which Open otherwise refuses
	// with a *HistoryError. Dangerous: the earlier history is then
	// silently gone from this state dir. Only for nexus import, which
	// fills the new journal from an export.
	AcceptEmpty bool
	// NoSync turns off fsync. Dangerous: Append then acknowledges events
	// that a power failure or kernel crash loses, breaking the journal's
	// one promise. Only for tests and benchmarks that build throwaway
	// journals.
	NoSync bool
}

// Store is the bbolt journal of one state dir. It implements core.Journal.
// All methods are safe for concurrent use.
type Store struct {
	dir  string
	path string
	db   *bolt.DB
	// file is bbolt's own handle on the journal file; walkPages reads
	// the pages through it, not through bbolt.
	file *os.File

	reqs chan *Pending
	// closeMu orders Enqueue against Close: senders hold it shared, so
	// once Close holds it no request can be lost in the channel.
	closeMu sync.RWMutex
	closed  bool
	quit    chan struct{} // closed by Close
	done    chan struct{} // closed when the commit loop has returned

	// writeMu is held by the commit loop for each commit and by Import.
	// It guards lastHash and failed; last is also read without it.
	writeMu  sync.Mutex
	last     atomic.Uint64
	lastHash [hashSize]byte
	failed   error

	stats struct{ commits, requests, events atomic.Uint64 }

	// beforeCommit, when set (tests only), runs inside each append
	// transaction after the puts; an error aborts the transaction.
	beforeCommit func(*bolt.Tx) error
}

// Open opens (creating if needed) the journal of the state dir dir and
// starts its commit loop. It refuses a symlinked dir or journal file and a
// hard-linked journal file, and returns a *LockedError if another process
// holds the journal. It refuses a damaged file with a *DamagedError (see
// doc.go, "Damaged journals": the meta pages, the file's length and the
// branch pages are checked before bbolt reads anything else), and a
// missing or empty journal.db in a state dir that holds traces of an
// earlier journal with a *HistoryError. It checks that meta agrees with
// the events bucket but does not walk the chain (that is Verify; Read
// checks what it reads).
func Open(dir string, opts Options) (*Store, error) {
	return open(dir, JournalFile, opts, true)
}

// open opens the journal file name in dir; strict checks meta/last
// against the last event.
func open(dir, name string, opts Options, strict bool) (*Store, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	if err := checkJournalFile(path); err != nil {
		return nil, err
	}
	fi, statErr := os.Lstat(path)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	accept := opts.AcceptEmpty || name != JournalFile
	if !accept && (fresh || (statErr == nil && fi.Size() == 0)) {
		if found := earlierJournal(dir); len(found) > 0 {
			return nil, &HistoryError{Path: path, Found: found}
		}
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	o := &opener{dir: dir, timeout: timeout, acceptEmpty: accept}
	var db *bolt.DB
	err := guard(func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:  timeout,
			NoSync:   opts.NoSync,
			OpenFile: o.open,
			PageSize: PageSize,
		})
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, &LockedError{Dir: dir, PID: readPID(dir)}
	}
	var bp *bboltPanic
	switch {
	case errors.As(err, &bp):
		return nil, damaged(path, "%v", bp)
	case errors.Is(err, ErrSymlink) || errors.Is(err, ErrHardLink) || errors.Is(err, ErrNotJournal) ||
		errors.Is(err, ErrDamaged) || errors.Is(err, ErrHistory):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("store: open journal %s: %w", path, err)
	}
	db.AllocSize = allocSize
	if err := writePID(dir); err != nil {
		db.Close()
		return nil, err
	}
	// A new journal file's name must be as durable as what is written in
	// it: fsync the state dir (and the dir holding it, if it was just
	// created) before the first intent can be acknowledged.
	if fresh && !opts.NoSync {
		if err := syncNewDir(dir); err != nil {
			db.Close()
			return nil, fmt.Errorf("store: fsync state dir %s: %w", dir, err)
		}
	}
	s := &Store{dir: dir, path: path, db: db, file: o.file,
		reqs: make(chan *Pending, 256), quit: make(chan struct{}), done: make(chan struct{})}
	if err := s.openChecks(strict); err != nil {
		db.Close()
		return nil, err
	}
	go s.commitLoop()
	return s, nil
}

// openChecks walks the branch pages, then loads the header and the tail
// (a bbolt panic on the way is a *DamagedError, see view).
func (s *Store) openChecks(strict bool) error {
	problem, err := s.walkPages(false)
	if err == nil && problem != "" {
		return damaged(s.path, "%s", problem)
	}
	if err == nil {
		err = s.load(strict)
	}
	return err
}

// load checks the format header, creating the layout in a new file, and
// reads the durable last seq and hash.
func (s *Store) load(strict bool) error {
	fresh := false
	err := s.view(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				return fmt.Errorf("%w: %s has no %q bucket", ErrNotJournal, s.path, bucketMeta)
			}
			fresh = true
			return nil
		}
		if f := meta.Get(keyFormat); string(f) != FormatName {
			return fmt.Errorf("%w: %s says format %q", ErrNotJournal, s.path, f)
		}
		v := meta.Get(keyVersion)
		if len(v) != 4 {
			return fmt.Errorf("%w: %s has a malformed version", ErrNotJournal, s.path)
		}
		if ver := binary.BigEndian.Uint32(v); ver != FormatVersion {
			return fmt.Errorf("%w (%s is version %d, this nexus reads %d)", ErrTooNew, s.path, ver, FormatVersion)
		}
		events, snaps := tx.Bucket(bucketEvents), tx.Bucket(bucketSnapshots)
		if events == nil || snaps == nil {
			return fmt.Errorf("%w: %s lacks the events or snapshots bucket", ErrNotJournal, s.path)
		}
		last, hash, ok := parseLast(meta.Get(keyLast))
		if !ok {
			return corrupt(0, "meta/last is malformed")
		}
		if strict {
			if err := checkTail(events, last, hash); err != nil {
				return err
			}
		}
		s.last.Store(last)
		s.lastHash = hash
		return nil
	})
	if err != nil || !fresh {
		return err
	}
	return s.db.Update(createLayout)
}

// createLayout makes the buckets and the header of an empty journal.
func createLayout(tx *bolt.Tx) error {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucket(bucketEvents); err != nil {
		return err
	}
	if _, err := tx.CreateBucket(bucketSnapshots); err != nil {
		return err
	}
	if err := meta.Put(keyFormat, []byte(FormatName)); err != nil {
		return err
	}
	if err := meta.Put(keyVersion, binary.BigEndian.AppendUint32(nil, FormatVersion)); err != nil {
		return err
	}
	return meta.Put(keyLast, encodeLast(0, [hashSize]byte{}))
}

// checkTail compares meta/last with the last stored event. Both are
// written in one transaction, so they can only disagree if the file was
// damaged or edited.
func checkTail(events *bolt.Bucket, last uint64, hash [hashSize]byte) error {
	k, v := events.Cursor().Last()
	switch {
	case k == nil && last == 0:
		return nil
	case k == nil:
		return corrupt(1, "meta says the last seq is %d but there are no events", last)
	case len(k) != 8:
		return corrupt(last, "malformed event key %x", k)
	case seqOf(k) != last:
		return corrupt(min(seqOf(k), last)+1, "meta says the last seq is %d but the last event is %d", last, seqOf(k))
	case len(v) < hashSize || !bytes.Equal(v[:hashSize], hash[:]):
		return corrupt(last, "the last event's hash differs from meta")
	}
	return nil
}

func encodeLast(seq uint64, hash [hashSize]byte) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+hashSize), seq), hash[:]...)
}

func parseLast(v []byte) (uint64, [hashSize]byte, bool) {
	var h [hashSize]byte
	if len(v) != 8+hashSize {
		return 0, h, false
	}
	copy(h[:], v[8:])
	return binary.BigEndian.Uint64(v), h, true
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), seq) }

func seqOf(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

// Dir returns the state dir.
func (s *Store) Dir() string { return s.dir }

// Last returns the highest durable seq (0 when empty). It implements
// core.Journal.
func (s *Store) Last() uint64 { return s.last.Load() }

// Stats counts the work of the commit loop since Open.
type Stats struct {
	Commits  uint64 // bbolt transactions, each one fsync of data and one of meta
	Requests uint64 // Append/Enqueue calls committed
	Events   uint64 // events committed
}

// Stats returns the commit counters.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.stats.commits.Load(), Requests: s.stats.requests.Load(), Events: s.stats.events.Load()}
}

// Close waits for the commit loop to finish what it was handed, then
// closes bbolt, releasing the lock. It removes no file. Calls after the
// first return nil.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	close(s.quit)
	s.closeMu.Unlock()
	<-s.done
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close journal: %w", err)
	}
	return nil
}

var _ core.Journal = (*Store)(nil)
