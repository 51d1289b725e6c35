package store

import (
	"testing"

	"github.com/nexus-tui/nexus/core/journaltest"
)

// TestConformance runs the core.Journal conformance suite against the
// bbolt journal, each subtest in a state dir of its own; reopening opens
// the same state dir again, as a restarted host does.
func TestConformance(t *testing.T) {
	journaltest.Run(t, func(t *testing.T) journaltest.Factory {
		dir := t.TempDir()
		return func(t *testing.T) journaltest.Journal {
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("open the journal in %s: %v", dir, err)
			}
			return s
		}
	})
}
