package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/internal/journaldamage"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"github.com/nexus-tui/nexus/store"
)

// damagedEvents is the size of the journals TestE2EDamagedJournal
// damages: about 60 leaves of 16 KiB, under a branch page.
const damagedEvents = 3000

// TestE2EDamagedJournal damages a journal written by the store at the
// byte level, one row per kind of damage, and runs the binary on it:
// verify and the host (thread list starts one) each fail with exit 1 and
// one line on stderr naming the repair, never a Go panic; verify
// --repair rebuilds the journal and names the kept original; then verify
// passes and the host starts.
func TestE2EDamagedJournal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, f *journaldamage.File)
		why    string // in the reason, between the parentheses
		// lost: the repair may lose events (the damage destroyed them);
		// otherwise it must keep every one.
		lost bool
	}{
		{"flipped page flags", func(t *testing.T, f *journaldamage.File) {
			check(t, f.FlipFlags(eventLeaves(t, f)[30].Page))
		}, "flags 0x0a", false},
		{"zeroed page", func(t *testing.T, f *journaldamage.File) {
			check(t, f.ZeroPage(eventLeaves(t, f)[30].Page))
		}, "zeroed or overwritten", true},
		{"damaged branch page", func(t *testing.T, f *journaldamage.File) {
			root, err := f.EventsRoot()
			check(t, err)
			check(t, f.PointOutside(root))
		}, "outside the file's", false},
		{"truncated file", func(t *testing.T, f *journaldamage.File) {
			check(t, f.Truncate(int64(f.Pages)*int64(f.PageSize)/2))
		}, "it was cut short", true},
		{"one flipped bit in an event", func(t *testing.T, f *journaldamage.File) {
			v, err := f.Value(1234)
			check(t, err)
			if n, err := f.FlipBit(v, 40); err != nil || n == 0 {
				t.Fatalf("flipped %d copies: %v", n, err)
			}
		}, "seq 1234: hash does not chain", true},
		{"both meta pages damaged", func(t *testing.T, f *journaldamage.File) {
			check(t, f.DamageMetas())
		}, "both meta pages are damaged", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			writeJournal(t, e.dir, damagedEvents)
			f, err := journaldamage.Load(filepath.Join(e.dir, store.JournalFile))
			check(t, err)
			tc.damage(t, f)

			for _, args := range [][]string{{"verify"}, {"thread", "list"}} {
				r := e.run(args...)
				assertOneLine(t, args, r, "nexus: journal "+filepath.Join(e.dir, store.JournalFile)+" is damaged (")
				if !strings.Contains(r.err, tc.why) || !strings.Contains(r.err,
					"); nexus verify --repair rebuilds it from the intact events, keeping the original as "+filepath.Join(e.dir, "journal.db.corrupt-<unix time>")) {
					t.Fatalf("nexus %v: stderr %q, want the reason %q and the repair", args, r.err, tc.why)
				}
			}
			out := e.must("verify", "--repair")
			m := regexp.MustCompile(`^repaired: kept (\d+) events.*; the original is kept as (\S+)$`).FindStringSubmatch(out)
			if m == nil || strings.Contains(out, "\n") {
				t.Fatalf("verify --repair: %q", out)
			}
			if _, err := os.Stat(m[2]); err != nil || filepath.Dir(m[2]) != e.dir {
				t.Fatalf("the original %s is not kept in the state dir: %v", m[2], err)
			}
			if !tc.lost && m[1] != "3000" {
				t.Fatalf("verify --repair kept %s of %d events: %q", m[1], damagedEvents, out)
			}
			if ok := e.must("verify"); !strings.HasPrefix(ok, "ok: ") {
				t.Fatalf("verify after repair: %q", ok)
			}
			e.must("thread", "list")
		})
	}
}

// TestE2EEmptyJournalBesideHistory deletes or empties journal.db after
// real work left workspace checkpoints in the state dir: every command
// refuses it with one line instead of starting history over, and
// importing an export restores the state dir.
func TestE2EEmptyJournalBesideHistory(t *testing.T) {
	t.Parallel()
	for _, remove := range []bool{false, true} {
		name := "0-byte journal.db"
		if remove {
			name = "missing journal.db"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			check(t, os.WriteFile(filepath.Join(e.ws, "README.md"), []byte("# demo\n"), 0o644))
			th := e.must("thread", "new")
			e.must("send", th, "read README.md and summarize it")
			export := filepath.Join(t.TempDir(), "journal.export")
			e.must("export", export)
			path := filepath.Join(e.dir, store.JournalFile)
			if remove {
				check(t, os.Remove(path))
			} else {
				check(t, os.Truncate(path, 0))
			}
			for _, args := range [][]string{{"verify"}, {"thread", "list"}, {"verify", "--repair"}} {
				r := e.run(args...)
				assertOneLine(t, args, r, "nexus: journal "+path+" is empty but the state dir holds data of an earlier journal: checkpoints/")
				if !strings.Contains(r.err, "nexus import") {
					t.Fatalf("nexus %v: stderr %q does not say how to restore", args, r.err)
				}
			}
			e.must("import", export)
			if out := e.must("thread", "list"); !strings.Contains(out, th) {
				t.Fatalf("after import, thread list lacks %s: %q", th, out)
			}
		})
	}
}

// assertOneLine checks a refusal: exit 1 and exactly one line on stderr,
// starting with prefix, and no trace of a Go panic.
func assertOneLine(t *testing.T, args []string, r result, prefix string) {
	t.Helper()
	if r.code != 1 || strings.Count(r.err, "\n") != 1 || !strings.HasSuffix(r.err, "\n") ||
		!strings.HasPrefix(r.err, prefix) || strings.Contains(r.err, "panic") || strings.Contains(r.err, "goroutine") {
		t.Fatalf("nexus %v: exit %d, stderr %q; want exit 1 and one line starting %q", args, r.code, r.err, prefix)
	}
}

// writeJournal writes n generated events into the journal of dir with
// the store itself.
func writeJournal(t *testing.T, dir string, n int) {
	t.Helper()
	s, err := store.Open(dir, store.Options{NoSync: true})
	check(t, err)
	defer s.Close()
	cs := journalgen.New(57).Commits(n)
	for len(cs) > 0 {
		k := min(50, len(cs))
		check(t, s.Append(context.Background(), cs[:k]))
		cs = cs[k:]
	}
}

func eventLeaves(t *testing.T, f *journaldamage.File) []journaldamage.Leaf {
	t.Helper()
	l, err := f.EventLeaves()
	if err != nil || len(l) < 40 {
		t.Fatalf("the events bucket has %d leaves (%v), want 40 or more", len(l), err)
	}
	return l
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
