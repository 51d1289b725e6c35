package journaltest_test

import (
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/journaltest"
)

// memJournal is core.MemJournal with the Close the suite needs. Reopening
// an in-memory journal hands back the same instance: it holds everything
// acknowledged for as long as the process lives, which is all it claims.
type memJournal struct{ *core.MemJournal }

func (memJournal) Close() error { return nil }

func TestMemJournal(t *testing.T) {
	journaltest.Run(t, func(t *testing.T) journaltest.Factory {
		j := memJournal{&core.MemJournal{}}
		return func(t *testing.T) journaltest.Journal { return j }
	})
}
