package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journaldamage"
	"github.com/nexus-tui/nexus/internal/journalgen"
)

// Each row damages a real journal (5000 events, snapshots at 4000 and
// 4500, written by the store) at the byte level, then checks what a user
// sees: Open refuses it with a *DamagedError or opens it and Verify
// reports the damage, nothing panics, and Repair rebuilds a journal that
// verifies, keeps the original, and recovers what the rule in salvage.go
// promises.
func TestDamagedJournalIsRefusedAndRepaired(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		name string
		// damage returns the seqs whose loss the rule allows.
		damage func(t *testing.T, f *journaldamage.File) (from, to uint64)
		// open: the Open error wanted ("" opens), then Verify's reason.
		open, verify string
		// kept: the events Repair must keep, at least (n: all of them).
		kept uint64
	}{
		{"flipped flags of the tail leaf", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			l := leaves(t, f)
			must(t, f.FlipFlags(l[len(l)-1].Page))
			return 0, 0
		}, "flags 0x0a where a leaf page belongs", "", n},
		{"flipped flags of a leaf in the middle", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			must(t, f.FlipFlags(leaves(t, f)[40].Page))
			return 0, 0
		}, "", "flags 0x0a, not a branch or leaf page", n},
		{"zeroed leaf in the middle", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			l := leaves(t, f)[40]
			must(t, f.ZeroPage(l.Page))
			return l.First, l.Last + 1
		}, "", "(zeroed or overwritten)", n - 200},
		{"zeroed tail leaf", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			l := leaves(t, f)
			must(t, f.ZeroPage(l[len(l)-1].Page))
			return l[len(l)-1].First, n
		}, "(zeroed or overwritten)", "", n - 200},
		{"damaged branch page", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			root, err := f.EventsRoot()
			must(t, err)
			must(t, f.PointOutside(root))
			return 0, 0
		}, "outside the file's", "", n},
		{"truncated file", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			must(t, f.Truncate(int64(f.Pages)*int64(f.PageSize)/2))
			return 1, n
		}, "it was cut short", "", 1000},
		{"one flipped bit in an event", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			v, err := f.Value(4321)
			must(t, err)
			if c, err := f.FlipBit(v, hashSize+20); err != nil || c == 0 {
				t.Fatalf("flipped %d copies: %v", c, err)
			}
			return 4321, 4321
		}, "", "seq 4321: hash does not chain", n - 1},
		{"flipped bit in an event's stored hash", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			v, err := f.Value(4321)
			must(t, err)
			if c, err := f.FlipBit(v, 3); err != nil || c == 0 {
				t.Fatalf("flipped %d copies: %v", c, err)
			}
			return 0, 0 // the next event vouches for its bytes
		}, "", "seq 4321: hash does not chain", n},
		{"both meta pages damaged", func(t *testing.T, f *journaldamage.File) (uint64, uint64) {
			must(t, f.DamageMetas())
			return 0, 0
		}, "both meta pages are damaged", "", n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, want := damageable(t, n)
			f, err := journaldamage.Load(filepath.Join(dir, JournalFile))
			must(t, err)
			from, to := tc.damage(t, f)
			original, err := os.ReadFile(filepath.Join(dir, JournalFile))
			must(t, err)

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

			res, err := Repair(context.Background(), dir, Options{})
			if err != nil {
				t.Fatalf("Repair: %v", err)
			}
			checkRepaired(t, dir, res, want, original, from, to, tc.kept)
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
		!strings.Contains(msg, "nexus verify --repair rebuilds it from the intact events, keeping the original as "+path+".corrupt-") {
		t.Fatalf("message %q, want it to say %q", msg, why)
	}
}

// checkRepaired checks a repair's result: the original kept byte for
// byte, a journal that verifies and opens, every event in it either the
// original one or, at a lost seq within [from, to], a journal.repaired
// event, at least kept events kept, and appends taken again.
func checkRepaired(t *testing.T, dir string, res RepairResult, want []core.Event, original []byte, from, to, kept uint64) {
	t.Helper()
	if res.Before.OK || !res.After.OK || res.Backup == "" {
		t.Fatalf("Repair = %+v", res)
	}
	if b, err := os.ReadFile(res.Backup); err != nil || !bytes.Equal(b, original) {
		t.Fatalf("the backup %s is not the damaged original: %v", res.Backup, err)
	}
	if res.Kept < kept {
		t.Fatalf("Repair kept %d events, want at least %d (lost %v, dropped %d)", res.Kept, kept, res.Lost, res.Dropped)
	}
	lost := map[uint64]bool{}
	for _, r := range res.Lost {
		for seq := r.From; seq <= r.To; seq++ {
			if seq < from || seq > to {
				t.Fatalf("seq %d lost (%s), outside the damage %d-%d", seq, r.Reason, from, to)
			}
			lost[seq] = true
		}
	}
	switch end := res.After.LastSeq + res.Dropped; {
	case res.Dropped > 0 && to < uint64(len(want)),
		end > uint64(len(want)), !res.DroppedAtLeast && end != uint64(len(want)):
		t.Fatalf("dropped %d (at least: %v) after %d of %d events", res.Dropped, res.DroppedAtLeast, res.After.LastSeq, len(want))
	}
	s := openT(t, dir)
	got := readAll(t, s, 1)
	if uint64(len(got)) != res.Kept+uint64(len(lost)) || res.After.Events != uint64(len(got)) {
		t.Fatalf("%d events after repair, kept %d, lost %d", len(got), res.Kept, len(lost))
	}
	for _, ev := range got {
		switch {
		case lost[ev.Seq]:
			if ev.Type != core.EvJournalRepaired || !strings.Contains(ev.Payload.Note, filepath.Base(res.Backup)) {
				t.Fatalf("seq %d: %+v, want a journal.repaired event naming the backup", ev.Seq, ev)
			}
		case !reflect.DeepEqual(ev, want[ev.Seq-1]):
			t.Fatalf("seq %d differs from the original after repair", ev.Seq)
		}
	}
	if st, err := s.LoadSnapshot(); err != nil || st == nil || st.Seq != s.Last() {
		t.Fatalf("the rebuilt journal has no snapshot at its end: %v", err)
	}
	next := journalgen.Flatten(journalgen.New(31).Commits(len(want) + 10))[s.Last():]
	if err := s.Append(context.Background(), []core.Commit{{Events: next[:1]}}); err != nil {
		t.Fatalf("append after repair: %v", err)
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
