package journaltest

import (
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// Journal is a journal under test: the port and a way to close it.
type Journal interface {
	core.Journal
	// Close releases the journal. The suite calls it at most once per
	// Open before opening again, and again from a cleanup (a second Close
	// must be harmless).
	Close() error
}

// Factory opens the journal of one subtest. Its first call opens a new,
// empty journal; a call made after the previous one's journal was closed
// opens the same journal again, holding everything acknowledged before
// the close. An in-memory journal, which has nothing to reopen, returns
// the same instance: that is what reopening means for it. A Factory
// reports its own failures with t.Fatal.
type Factory func(t *testing.T) Journal

// Run runs the suite as subtests of t. newJournal is called once per
// subtest and returns the Factory of a new journal; it may register
// cleanups (a server to stop) with the t it is given.
func Run(t *testing.T, newJournal func(t *testing.T) Factory) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *harness)
	}{
		{"Empty", testEmpty},
		{"AppendRead", testAppendRead},
		{"SeqMismatch", testSeqMismatch},
		{"EmptyAppend", testEmptyAppend},
		{"ReadStops", testReadStops},
		{"ReadCancelled", testReadCancelled},
		{"Snapshot", testSnapshot},
		{"Reopen", testReopen},
		{"Concurrent", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &harness{t: t, factory: newJournal(t)}
			tc.fn(t, h)
		})
	}
}

// harness opens journals through a Factory and closes them at the end of
// the subtest.
type harness struct {
	t       *testing.T
	factory Factory
}

// open opens the subtest's journal and registers its Close.
func (h *harness) open() Journal {
	h.t.Helper()
	j := h.factory(h.t)
	if j == nil {
		h.t.Fatal("the factory returned no journal")
	}
	h.t.Cleanup(func() { _ = j.Close() })
	return j
}

// reopen closes j and opens the same journal again.
func (h *harness) reopen(j Journal) Journal {
	h.t.Helper()
	if err := j.Close(); err != nil {
		h.t.Fatalf("close: %v", err)
	}
	return h.open()
}
