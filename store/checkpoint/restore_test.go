package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// twoRuns makes a repository where run 1 wrote a.txt and dir/c.txt and
// run 2 edited a.txt, deleted dir/c.txt, added b.txt and new/deep/d.txt.
func twoRuns(t *testing.T, m *Manager) (repo string, run1, run2 Checkpoint) {
	t.Helper()
	repo = newRepo(t)
	writeFile(t, repo, "a.txt", "one\n")
	writeFile(t, repo, "dir/c.txt", "see\n")
	run1 = capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "a.txt", "one\ntwo\n")
	if err := os.Remove(filepath.Join(repo, "dir/c.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo, "b.txt", "bee\n")
	writeFile(t, repo, "new/deep/d.txt", "dee\n")
	run2 = capture(t, m, repo, "t1", "run/2")
	return repo, run1, run2
}

func checkRun1(t *testing.T, repo string) {
	t.Helper()
	if got := listTree(t, repo); !eq(got, []string{"README", "a.txt", "dir/", "dir/c.txt"}) {
		t.Errorf("workspace = %v, want run 1's files", got)
	}
	if got := readFile(t, repo, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := readFile(t, repo, "dir/c.txt"); got != "see\n" {
		t.Errorf("dir/c.txt = %q", got)
	}
}

func TestRestoreIdempotent(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, _ := twoRuns(t, m)
	r := restore(t, m, repo, "t1", run1.Commit)
	if !eq(r.Written, []string{"a.txt", "dir/c.txt"}) || !eq(r.Removed, []string{"b.txt", "new/deep/d.txt"}) {
		t.Errorf("first restore = %+v", r)
	}
	checkRun1(t, repo)
	again := restore(t, m, repo, "t1", run1.Commit)
	if len(again.Written)+len(again.Removed)+len(again.Skipped) != 0 {
		t.Errorf("second restore changed something: %+v", again)
	}
	checkRun1(t, repo)
	if dirty, err := m.Dirty(context.Background(), repo, run1.Commit); err != nil || dirty {
		t.Errorf("Dirty after restore = %v, %v; want false", dirty, err)
	}
}

// TestRestoreAfterPartial: a restore that crashed midway (some files
// already rewritten, one half-written, a removal done but its directory
// not pruned) is finished by running it again.
func TestRestoreAfterPartial(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	writeFile(t, repo, "a.txt", "one\n")    // already rewritten
	writeFile(t, repo, "dir/c.txt", "se")   // half written
	os.Remove(filepath.Join(repo, "b.txt")) // already removed
	os.Remove(filepath.Join(repo, "new/deep/d.txt"))
	writeFile(t, repo, "new/deep/e.txt", "") // and the agent raced in one more
	r := restore(t, m, repo, "t1", run1.Commit)
	if !eq(r.Written, []string{"dir/c.txt"}) || !eq(r.Removed, []string{"new/deep/e.txt"}) {
		t.Errorf("restore after a partial one = %+v", r)
	}
	checkRun1(t, repo)
	// And forward again to run 2.
	restore(t, m, repo, "t1", run2.Commit)
	if got := listTree(t, repo); !eq(got, []string{"README", "a.txt", "b.txt", "new/", "new/deep/", "new/deep/d.txt"}) {
		t.Errorf("restoring run 2 gives %v", got)
	}
}

func TestDirty(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	ctx := context.Background()
	for _, c := range []struct {
		since string
		want  bool
	}{{run2.Commit, false}, {run1.Commit, true}, {"refs/nexus/checkpoints/t1/run/2", false}} {
		if got, err := m.Dirty(ctx, repo, c.since); err != nil || got != c.want {
			t.Errorf("Dirty(%s) = %v, %v; want %v", c.since, got, err, c.want)
		}
	}
	writeFile(t, repo, "untracked.txt", "u\n")
	if got, _ := m.Dirty(ctx, repo, run2.Commit); !got {
		t.Error("an untracked file does not make the workspace dirty")
	}
	if _, err := m.Dirty(ctx, repo, "refs/nexus/checkpoints/t1/run/9"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Dirty of a missing checkpoint = %v, want ErrNotFound", err)
	}
}

// TestRestoreTypeChanges: a file that became a directory and a
// directory that became a file are both put back.
func TestRestoreTypeChanges(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "x", "file\n")
	writeFile(t, ws, "y/inner.txt", "in\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	os.Remove(filepath.Join(ws, "x"))
	writeFile(t, ws, "x/now-a-dir.txt", "d\n")
	os.RemoveAll(filepath.Join(ws, "y"))
	writeFile(t, ws, "y", "now a file\n")
	capture(t, m, ws, "t1", "run/2")
	restore(t, m, ws, "t1", run1.Commit)
	if got := listTree(t, ws); !eq(got, []string{"x", "y/", "y/inner.txt"}) {
		t.Errorf("after restore: %v", got)
	}
	if got := readFile(t, ws, "x"); got != "file\n" {
		t.Errorf("x = %q", got)
	}
}

// TestRestoreRefusesSymlinkedParent: a removal never follows a symbolic
// link out of the workspace.
func TestRestoreKeepsOutsideFiles(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	writeFile(t, outside, "victim.txt", "keep me\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	r := restore(t, m, ws, "t1", run1.Commit)
	if !exists(outside, "victim.txt") {
		t.Fatal("restore deleted a file through a symbolic link")
	}
	if exists(ws, "link") || !eq(r.Removed, []string{"link"}) {
		t.Errorf("the link itself should be removed: %+v", r)
	}
}

// TestRestoreTimeout: a restore stopped by its bound says to run it again,
// and running it again finishes.
func TestRestoreTimeout(t *testing.T) {
	stateDir := t.TempDir()
	m := New(stateDir, Options{})
	repo, run1, _ := twoRuns(t, m)
	_, err := New(stateDir, Options{RestoreTimeout: time.Millisecond}).Restore(context.Background(), repo, "t1", run1.Commit)
	if err == nil || !strings.Contains(err.Error(), "run it again") {
		t.Fatalf("Restore past its bound = %v", err)
	}
	restore(t, m, repo, "t1", run1.Commit)
	checkRun1(t, repo)
}

func TestOverlaps(t *testing.T) {
	for _, c := range []struct {
		written, remove []string
		want            bool
	}{
		{[]string{"a/b"}, []string{"a/c"}, false},
		{[]string{"a/b"}, []string{"c"}, false},
		{[]string{"x"}, []string{"x/inner"}, true},
		{[]string{"y/inner"}, []string{"y"}, true},
		{[]string{"y/deep/inner"}, []string{"y"}, true},
		{[]string{"x"}, []string{"x/a/b"}, true},
	} {
		if got := overlaps(c.written, c.remove); got != c.want {
			t.Errorf("overlaps(%v, %v) = %v, want %v", c.written, c.remove, got, c.want)
		}
	}
}
