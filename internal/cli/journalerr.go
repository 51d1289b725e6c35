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
	return failErr("journal %s is damaged (%s); nexus verify --repair rebuilds it from the intact events, keeping the original as %s.corrupt-<unix time>",
		path, reason, path)
}

// repairSummary is the line verify --repair prints after a repair.
func repairSummary(res store.RepairResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "repaired: kept %d events", res.Kept)
	if n := lostCount(res.Lost); n > 0 {
		fmt.Fprintf(&b, ", lost %d (seq %s; each is now a journal.repaired event)", n, seqRanges(res.Lost))
	}
	switch {
	case res.DroppedAtLeast && res.Dropped > 0:
		fmt.Fprintf(&b, ", dropped at least %d from the end", res.Dropped)
	case res.Dropped > 0:
		fmt.Fprintf(&b, ", dropped %d from the end", res.Dropped)
	}
	if res.DroppedAtLeast {
		fmt.Fprintf(&b, "; the file no longer records its last seq, so events after seq %d may be missing", res.After.LastSeq)
	}
	fmt.Fprintf(&b, "; the original is kept as %s", res.Backup)
	return b.String()
}

func lostCount(rs []store.SeqRange) uint64 {
	var n uint64
	for _, r := range rs {
		n += r.To - r.From + 1
	}
	return n
}

// seqRanges says "12, 40-52 and 3 more ranges", joining adjacent ones.
func seqRanges(lost []store.SeqRange) string {
	const shown = 4
	var rs []store.SeqRange
	for _, r := range lost {
		if n := len(rs); n > 0 && rs[n-1].To+1 == r.From {
			rs[n-1].To = r.To
		} else {
			rs = append(rs, r)
		}
	}
	var parts []string
	for i, r := range rs {
		if i == shown {
			parts[len(parts)-1] += fmt.Sprintf(" and %d more ranges", len(rs)-shown)
			break
		}
		if r.From == r.To {
			parts = append(parts, fmt.Sprint(r.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return strings.Join(parts, ", ")
}
