package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nexus-tui/nexus/store"
)

// journalErr turns the store's refusal of a damaged journal, or of an
// empty one where an earlier journal left traces, into the one line a
// person sees, naming what to run; other errors pass through.
func journalErr(dir string, err error) error {
	var de *store.DamagedError
	var ce *store.CorruptError
	var he *store.HistoryError
	switch {
	case errors.As(err, &de):
		return damagedErr(de.Path, de.Reason)
	case errors.As(err, &ce):
		return damagedErr(filepath.Join(dir, store.JournalFile), fmt.Sprintf("seq %d: %s", ce.Seq, ce.Reason))
	case errors.As(err, &he):
		return failErr("%s", strings.TrimPrefix(he.Error(), "store: "))
	}
	return err
}

func damagedErr(path, reason string) error {
	return failErr("journal %s is damaged (%s); run nexus verify --repair (it keeps the original aside)", path, reason)
}
