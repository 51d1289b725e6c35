package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A missing or 0-byte journal.db is a new journal only in a state dir
// that shows no earlier one; otherwise Open and Repair refuse it, naming
// what they found, and only AcceptEmpty (nexus import) takes it.
func TestEmptyJournalBesideHistoryIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trace string // a path made in the state dir ("" none); a trailing / makes a dir
		found string // what the error must name ("" the journal opens as new)
	}{
		{"shadow repository", "checkpoints/shadow/0123456789abcdef.git/", "checkpoints/shadow/ (workspace checkpoints)"},
		{"captured index", "checkpoints/last/0123.index", "checkpoints/last/ (workspace checkpoints)"},
		{"journal copy", "journal.db.corrupt-1700000000", "journal.db.corrupt-1700000000 (a copy of a journal)"},
		{"a worktree only", "worktrees/t1/", ""},
		{"an empty checkpoints dir", "checkpoints/tmp/", ""},
		{"nothing", "", ""},
	} {
		for _, zero := range []bool{true, false} {
			name := tc.name + "/missing"
			if zero {
				name = tc.name + "/0 bytes"
			}
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "state")
				must(t, os.MkdirAll(dir, 0o700))
				if tc.trace != "" {
					p := filepath.Join(dir, tc.trace)
					must(t, os.MkdirAll(filepath.Dir(p), 0o700))
					if strings.HasSuffix(tc.trace, "/") {
						must(t, os.MkdirAll(p, 0o700))
					} else {
						must(t, os.WriteFile(p, []byte("x"), 0o600))
					}
				}
				path := filepath.Join(dir, JournalFile)
				if zero {
					must(t, os.WriteFile(path, nil, 0o600))
				}
				s, err := Open(dir, Options{})
				if tc.found == "" {
					if err != nil || s.Last() != 0 {
						t.Fatalf("Open = %v, want a new journal", err)
					}
					s.Close()
					return
				}
				if err == nil {
					s.Close()
				}
				var he *HistoryError
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				if !errors.As(err, &he) || !errors.Is(err, ErrHistory) || strings.Contains(msg, "\n") ||
					!strings.Contains(msg, "journal "+path+" is empty but the state dir holds data of an earlier journal: "+tc.found) {
					t.Fatalf("Open = %v, want a HistoryError naming %q", err, tc.found)
				}
				if _, err := os.Lstat(path); !zero && err == nil {
					t.Fatal("the refused Open created journal.db")
				}
				if _, err := Repair(context.Background(), dir, Options{}); !errors.Is(err, ErrHistory) {
					t.Fatalf("Repair = %v, want a HistoryError", err)
				}
				s, err = Open(dir, Options{AcceptEmpty: true})
				if err != nil || s.Last() != 0 {
					t.Fatalf("Open with AcceptEmpty = %v", err)
				}
				s.Close()
			})
		}
	}
}
