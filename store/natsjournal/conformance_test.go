package natsjournal

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core/journaltest"
)

// connJournal is a journal with the connection it was opened on, both
// closed together, as a host that stops closes them.
type connJournal struct {
	*Journal
	nc *nats.Conn
}

func (c connJournal) Close() error {
	err := c.Journal.Close()
	c.nc.Close()
	return err
}

// TestConformance runs the core.Journal conformance suite against an
// embedded server, each subtest on a server and storage dir of its own,
// with atomic batches and with commits published one by one. Reopening
// opens the journal again on a new connection.
func TestConformance(t *testing.T) {
	for _, mode := range []struct {
		name   string
		opts   Options
		atomic bool
	}{{"Atomic", Options{}, true}, {"Sequential", Options{Sequential: true}, false}} {
		t.Run(mode.name, func(t *testing.T) {
			journaltest.Run(t, func(t *testing.T) journaltest.Factory {
				h := startHub(t, t.TempDir())
				return func(t *testing.T) journaltest.Journal {
					nc := connect(t, h.url)
					j := openJ(t, nc, mode.opts)
					if j.atomic != mode.atomic {
						t.Fatalf("the journal publishes atomic batches: %v, want %v", j.atomic, mode.atomic)
					}
					return connJournal{j, nc}
				}
			})
		})
	}
}
