package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journaldamage"
	"github.com/nexus-tui/nexus/internal/journalgen"
)

// Each row damages a real journal (5000 events, snapshots at 4000 and
// 4500, written by the store) at the byte level, then checks what a user
// sees: Open refuses it with a *DamagedError or opens it and Verify
// reports the damage, and nothing panics.
func TestDamagedJournalIsRefused(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, f *journaldamage.File)
		// open: the Open error wanted ("" opens), then Verify's reason.
		open, verify string
	}{
		{"flipped flags of the tail leaf", func(t *testing.T, f *journaldamage.File) {
			l := leaves(t, f)
			must(t, f.FlipFlags(l[len(l)-1].Page))
		}, "flags 0x0a where a leaf page belongs", ""},
		{"flipped flags of a leaf in the middle", func(t *testing.T, f *journaldamage.File) {
			must(t, f.FlipFlags(leaves(t, f)[40].Page))
		}, "", "flags 0x0a, not a branch or leaf page"},
		{"zeroed leaf in the middle", func(t *testing.T, f *journaldamage.File) {
			l := leaves(t, f)[40]
			must(t, f.ZeroPage(l.Page))
		}, "", "(zeroed or overwritten)"},
		{"zeroed tail leaf", func(t *testing.T, f *journaldamage.File) {
			l := leaves(t, f)
			must(t, f.ZeroPage(l[len(l)-1].Page))
		}, "(zeroed or overwritten)", ""},
		{"damaged branch page", func(t *testing.T, f *journaldamage.File) {
			root, err := f.EventsRoot()
			must(t, err)
			must(t, f.PointOutside(root))
		}, "outside the file's", ""},
		{"truncated file", func(t *testing.T, f *journaldamage.File) {
			must(t, f.Truncate(int64(f.Pages)*int64(f.PageSize)/2))
		}, "it was cut short", ""},
		{"one flipped bit in an event", func(t *testing.T, f *journaldamage.File) {
			v, err := f.Value(4321)
			must(t, err)
			if c, err := f.FlipBit(v, hashSize+20); err != nil || c == 0 {
				t.Fatalf("flipped %d copies: %v", c, err)
			}
		}, "", "seq 4321: hash does not chain"},
		{"flipped bit in an event's stored hash", func(t *testing.T, f *journaldamage.File) {
			v, err := f.Value(4321)
			must(t, err)
			if c, err := f.FlipBit(v, 3); err != nil || c == 0 {
				t.Fatalf("flipped %d copies: %v", c, err)
			}
		}, "", "seq 4321: hash does not chain"},
		{"both meta pages damaged", func(t *testing.T, f *journaldamage.File) {
			must(t, f.DamageMetas())
		}, "both meta pages are damaged", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := damageable(t, n)
			f, err := journaldamage.Load(filepath.Join(dir, JournalFile))
			must(t, err)
			tc.damage(t, f)
			s, err := Open(dir, Options{})
			if tc.open != "" {
				if err == nil {
					s.Close()
				}
				assertDamaged(t, err, dir, tc.open)
			} else {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				rep, err := s.Verify(context.Background())
				if err != nil || rep.OK || !strings.Contains(rep.Reason, tc.verify) {
					t.Fatalf("Verify = %+v, %v; want a failure saying %q", rep, err, tc.verify)
				}
				if err := s.Read(context.Background(), 1, func(core.Event) error { return nil }); err == nil {
					t.Fatal("Read of the whole damaged journal succeeded")
				}
				s.Close()
			}
		})
	}
}

// damageable writes a journal of n events with two snapshots and returns
// its dir and events.
func damageable(t *testing.T, n int) (string, []core.Event) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	must(t, err)
	defer s.Close()
	appendAll(t, s, journalgen.New(31).Commits(n), 50)
	for _, seq := range []uint64{4000, 4500} {
		must(t, s.SaveSnapshot(stateAt(t, s, seq)))
	}
	return dir, readAll(t, s, 1)
}

func leaves(t *testing.T, f *journaldamage.File) []journaldamage.Leaf {
	t.Helper()
	l, err := f.EventLeaves()
	if err != nil || len(l) < 50 {
		t.Fatalf("events bucket has %d leaves (%v), want 50 or more", len(l), err)
	}
	return l
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// assertDamaged checks err is the one-line *DamagedError a person sees.
func assertDamaged(t *testing.T, err error, dir, why string) {
	t.Helper()
	var de *DamagedError
	if !errors.As(err, &de) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open = %v, want a *DamagedError", err)
	}
	msg := err.Error()
	path := filepath.Join(dir, JournalFile)
	if !strings.Contains(de.Reason, why) || strings.Contains(msg, "\n") ||
		!strings.HasPrefix(msg, "store: journal "+path+" is damaged (") ||
		!strings.HasSuffix(msg, "; run nexus verify --repair") {
		t.Fatalf("message %q, want it to say %q", msg, why)
	}
}

// A journal file cut short under an open store (its pages past the new
// end are gone from the mapping) makes reads fail with an error, not a
// SIGBUS that kills the process.
func TestFileCutUnderAnOpenStore(t *testing.T) {
	dir, _ := damageable(t, 5000)
	s := openT(t, dir)
	fi, err := os.Stat(filepath.Join(dir, JournalFile))
	must(t, err)
	must(t, os.Truncate(filepath.Join(dir, JournalFile), fi.Size()/4))
	err = s.Read(context.Background(), 1, func(core.Event) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Read of a cut file = %v, want a CorruptError", err)
	}
	rep, err := s.Verify(context.Background())
	if err == nil && (rep.OK || !rep.Damaged) {
		t.Fatalf("Verify of a cut file = %+v", rep)
	}
}
