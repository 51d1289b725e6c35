package natsjournal

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by every call on a closed Journal.
	ErrClosed = errors.New("natsjournal: the journal is closed; open it again")
	// ErrFenced is returned by Append when another writer appended to the
	// stream since this journal last saw it: the server's compare-and-swap
	// on the stream sequence refused the commit and nothing was written.
	// It also matches core.ErrSeqMismatch. The journal has reloaded its
	// tail; the caller must reload its state (core.Runner does) before it
	// decides anything again.
	ErrFenced = errors.New("natsjournal: another writer appended to the stream first")
	// ErrDuplicate is returned by Append when a commit's command id is
	// already in the stream within its duplicate window: the server kept
	// the first copy and wrote nothing of this Append's batch.
	ErrDuplicate = errors.New("natsjournal: the command is already in the journal")
	// ErrMaybeStored is returned by Append when no acknowledgement came
	// (a timeout, a lost connection, a cluster without a quorum) and the
	// stream's tail does not show the commits: they may still be stored,
	// as when a quorum returns and commits what its leader had taken. The
	// journal reloads its tail before the next Append, whose
	// compare-and-swap then fails if they were; the caller reloads its
	// state either way (core.Runner does after any failed Append).
	ErrMaybeStored = errors.New("natsjournal: the commits may or may not be stored")
	// ErrCorrupt is matched by every *CorruptError.
	ErrCorrupt = errors.New("natsjournal: journal corrupt")
)

// CorruptError is a stream message that is not what this journal wrote
// there: it does not decode, does not carry the seqs that were due, or
// breaks the hash chain (it was changed, or written past the journal).
type CorruptError struct {
	Stream    string // the stream's name
	StreamSeq uint64 // the stream sequence of the message
	Reason    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("natsjournal: stream %s is corrupt at message %d: %s; nothing past it can be trusted: "+
		"restore the stream from a backup (nats stream backup/restore) or stop writing to it outside nexus",
		e.Stream, e.StreamSeq, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func (j *Journal) corrupt(seq uint64, format string, args ...any) error {
	return &CorruptError{Stream: j.names.stream, StreamSeq: seq, Reason: fmt.Sprintf(format, args...)}
}
