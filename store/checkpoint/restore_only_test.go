package checkpoint

import (
	"context"
	"testing"
)

// RestoreOnly puts back only the paths that differ between the thread's
// state and the target (and of those only the listed ones), keeps a path
// someone changed since unless forced, leaves every other file alone,
// and reports the same outcome when run again.
func TestRestoreOnlyTouchesOnlyTheThreadsPaths(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	// After run 2: someone else writes other.txt and edits b.txt (which
	// run 2 added), and a person edits README.
	writeFile(t, repo, "other.txt", "another thread\n")
	writeFile(t, repo, "b.txt", "bee, edited by hand\n")
	writeFile(t, repo, "README", "hand edit\n")
	ctx := context.Background()
	r, err := m.RestoreOnly(ctx, repo, "t1", run1.Commit, run2.Commit, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !eq(r.Written, []string{"a.txt", "dir/c.txt"}) || !eq(r.Removed, []string{"new/deep/d.txt"}) || !eq(r.Kept, []string{"b.txt"}) {
		t.Fatalf("restore = %+v; want a.txt and dir/c.txt written, new/deep/d.txt removed, b.txt kept", r)
	}
	for path, want := range map[string]string{"a.txt": "one\n", "dir/c.txt": "see\n", "other.txt": "another thread\n",
		"b.txt": "bee, edited by hand\n", "README": "hand edit\n"} {
		if got := readFile(t, repo, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	again, err := m.RestoreOnly(ctx, repo, "t1", run1.Commit, run2.Commit, nil, false)
	if err != nil || !eq(again.Written, []string{"a.txt", "dir/c.txt"}) || !eq(again.Kept, []string{"b.txt"}) {
		t.Fatalf("again = %+v, %v; want the same outcome", again, err)
	}
	forced, err := m.RestoreOnly(ctx, repo, "t1", run1.Commit, run2.Commit, []string{"b.txt"}, true)
	if err != nil || !eq(forced.Removed, []string{"b.txt"}) || exists(repo, "b.txt") {
		t.Fatalf("forced = %+v, %v; want b.txt removed", forced, err)
	}
	if got := readFile(t, repo, "other.txt"); got != "another thread\n" {
		t.Errorf("other.txt = %q after the forced restore", got)
	}
}

// With a list, only the listed paths change.
func TestRestoreOnlyListed(t *testing.T) {
	m := newManager(t, Options{})
	repo, run1, run2 := twoRuns(t, m)
	r, err := m.RestoreOnly(context.Background(), repo, "t1", run1.Commit, run2.Commit, []string{"a.txt"}, false)
	if err != nil || !eq(r.Written, []string{"a.txt"}) || len(r.Removed) != 0 {
		t.Fatalf("restore = %+v, %v; want only a.txt", r, err)
	}
	if !exists(repo, "b.txt") || readFile(t, repo, "a.txt") != "one\n" {
		t.Fatalf("b.txt must stay and a.txt go back")
	}
}
