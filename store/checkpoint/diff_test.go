package checkpoint

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestDiffRun: Diff(run 1, run 2) shows the a.txt edit and the b.txt
// addition with per-file stats, as `nexus diff T --run 2` prints it.
func TestDiffRun(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	writeFile(t, repo, "bin.dat", "\x00\x01\x02")
	run3 := capture(t, m, repo, "t1", "run/3")
	ctx := context.Background()

	d, err := m.Diff(ctx, repo, run1.Commit, run2.Commit)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileStat{
		{Path: "a.txt", Status: "M", Added: 1},
		{Path: "b.txt", Status: "A", Added: 1},
		{Path: "dir/c.txt", Status: "D", Deleted: 1},
		{Path: "new/deep/d.txt", Status: "A", Added: 1},
	}
	if len(d.Files) != len(want) {
		t.Fatalf("Files = %+v, want %+v", d.Files, want)
	}
	for i := range want {
		if d.Files[i] != want[i] {
			t.Errorf("file %d = %+v, want %+v", i, d.Files[i], want[i])
		}
	}
	if d.Added != 3 || d.Deleted != 1 || d.Truncated {
		t.Errorf("totals +%d -%d truncated %v", d.Added, d.Deleted, d.Truncated)
	}
	for _, s := range []string{"diff --git a/a.txt b/a.txt", " one\n+two\n", "new file mode 100644", "+bee\n", "-see\n"} {
		if !strings.Contains(d.Patch, s) {
			t.Errorf("patch lacks %q:\n%s", s, d.Patch)
		}
	}

	// From nothing: everything in the checkpoint is added.
	d, err = m.Diff(ctx, repo, "", run1.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 3 || d.Files[0].Path != "README" || d.Files[0].Status != "A" {
		t.Errorf("diff from empty = %+v", d.Files)
	}
	// Binary files are flagged, not counted; refs work as well as commits.
	d, err = m.Diff(ctx, repo, "refs/nexus/checkpoints/t1/run/2", run3.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || !d.Files[0].Binary || d.Files[0].Status != "A" || !strings.Contains(d.Patch, "Binary files") {
		t.Errorf("binary diff = %+v\n%s", d.Files, d.Patch)
	}
	if _, err := m.Diff(ctx, repo, run1.Commit, "refs/nexus/checkpoints/t1/run/7"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Diff to a missing checkpoint = %v, want ErrNotFound", err)
	}
}

// TestStats: Stats lists the same files and totals as Diff, without the
// patch; from "" is the empty tree; a missing checkpoint is ErrNotFound.
func TestStats(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	ctx := context.Background()
	for _, from := range []string{"", run1.Commit} {
		d, err := m.Diff(ctx, repo, from, run2.Commit)
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.Stats(ctx, repo, from, run2.Commit)
		if err != nil {
			t.Fatal(err)
		}
		if s.Patch != "" || s.Truncated || s.From != d.From || s.To != d.To || s.Added != d.Added || s.Deleted != d.Deleted ||
			len(s.Files) != len(d.Files) || len(s.Files) == 0 {
			t.Fatalf("from %q: Stats = %+v, Diff = %+v", from, s, d)
		}
		for i := range s.Files {
			if s.Files[i] != d.Files[i] {
				t.Errorf("from %q: file %d = %+v, Diff has %+v", from, i, s.Files[i], d.Files[i])
			}
		}
	}
	if _, err := m.Stats(ctx, repo, "refs/nexus/checkpoints/t1/run/7", run2.Commit); !errors.Is(err, ErrNotFound) {
		t.Errorf("Stats from a missing checkpoint = %v, want ErrNotFound", err)
	}
}

func TestDiffTruncated(t *testing.T) {
	repo := newRepo(t)
	m := New(t.TempDir(), Options{MaxPatchBytes: 200})
	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "big.txt", strings.Repeat("a line of text\n", 1000))
	run2 := capture(t, m, repo, "t1", "run/2")
	d, err := m.Diff(context.Background(), repo, run1.Commit, run2.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Truncated || len(d.Patch) > 200 || d.Files[0].Added != 1000 {
		t.Errorf("truncated %v, patch %d bytes, added %d; want true, <= 200, 1000", d.Truncated, len(d.Patch), d.Files[0].Added)
	}
}

// TestRefsAndDelete: refs list per thread, resolve, and delete one or a
// whole thread's (with its tip) in one go.
func TestRefsAndDelete(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Options{})
	repo, run1, _ := twoRuns(t, m)
	capture(t, m, repo, "other", "run/1")
	if got, err := m.Resolve(ctx, repo, "refs/nexus/checkpoints/t1/run/1"); err != nil || got != run1.Commit {
		t.Errorf("Resolve = %s, %v; want %s", got, err, run1.Commit)
	}
	if _, err := m.Resolve(ctx, repo, "--all"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve of an option-like revision = %v, want ErrNotFound", err)
	}
	if err := m.DeleteRef(ctx, repo, "t1", "run/2"); err != nil {
		t.Fatal(err)
	}
	refs, _ := m.Refs(ctx, repo, "t1")
	if len(refs) != 1 || refs[0].Scope != "run/1" || refs[0].Time.IsZero() {
		t.Errorf("Refs after deleting run/2 = %+v", refs)
	}
	if err := m.DeleteThread(ctx, repo, "t1"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, repo, "for-each-ref", "--format=%(refname)", "refs/nexus/"); got != "refs/nexus/checkpoints/other/run/1\nrefs/nexus/tips/other" {
		t.Errorf("refs after DeleteThread(t1) = %q", got)
	}
}
