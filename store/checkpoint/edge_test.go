package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureDuringMerge: a repository in the middle of a conflicted
// merge is captured with the conflicted file as it is on disk, and its
// index (still conflicted) is left alone. A workspace below the
// conflicted file's directory is captured too.
func TestCaptureDuringMerge(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "app/main.go", "package main\n")
	gitT(t, repo, "add", "app")
	gitT(t, repo, "commit", "-q", "-m", "app")
	gitT(t, repo, "checkout", "-q", "-b", "other")
	writeFile(t, repo, "README", "theirs\n")
	gitT(t, repo, "commit", "-q", "-am", "theirs")
	gitT(t, repo, "checkout", "-q", "main")
	writeFile(t, repo, "README", "ours\n")
	gitT(t, repo, "commit", "-q", "-am", "ours")
	if _, err := gitRaw(repo, "merge", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
	before := stateOf(t, repo)
	m := newManager(t, Options{})
	cp := capture(t, m, repo, "t1", "run/1")
	before.compare(t, stateOf(t, repo))
	blob := gitT(t, repo, "cat-file", "-p", cp.Commit+":README")
	if !strings.Contains(blob, "<<<<<<<") || !strings.Contains(blob, "theirs") {
		t.Errorf("captured README = %q, want the conflicted file", blob)
	}
	if got := gitT(t, repo, "ls-files", "-u"); got == "" {
		t.Error("the user's index is no longer conflicted")
	}
	writeFile(t, repo, "app/new.go", "package main\n")
	sub := capture(t, m, filepath.Join(repo, "app"), "t2", "run/1")
	if got := treeFiles(t, filepath.Join(repo, ".git"), sub.Commit); !eq(got, []string{"README", "app/main.go", "app/new.go"}) {
		t.Errorf("subdirectory capture during a merge = %v", got)
	}
	before.compare(t, stateOf(t, repo))
}

// TestUnbornRepository: a repository without a commit yet has no base;
// its staged and untracked files are captured and restored.
func TestUnbornRepository(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "-q")
	writeFile(t, repo, "staged.txt", "s\n")
	gitT(t, repo, "add", "staged.txt")
	writeFile(t, repo, "loose.txt", "l\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	if run1.Base != "" || run1.Files != 2 || run1.Changed != 2 {
		t.Errorf("unborn capture = %+v, want no base and 2 files", run1)
	}
	writeFile(t, repo, "later.txt", "x\n")
	os.Remove(filepath.Join(repo, "loose.txt"))
	restore(t, m, repo, "t1", run1.Commit)
	if got := listTree(t, repo); !eq(got, []string{"loose.txt", "staged.txt"}) {
		t.Errorf("after restore: %v", got)
	}
	if _, err := m.AddWorktree(context.Background(), repo, filepath.Join(t.TempDir(), "wt"), run1.Commit, ""); err == nil || !strings.Contains(err.Error(), "no commit") {
		t.Errorf("AddWorktree from an unborn checkpoint = %v, want ErrNoCommits", err)
	}
	// A new thread's worktree from HEAD: the same clear refusal, not
	// "not found".
	if _, err := m.AddWorktree(context.Background(), repo, filepath.Join(t.TempDir(), "wt2"), "HEAD", "nexus/x"); !errors.Is(err, ErrNoCommits) {
		t.Errorf("AddWorktree from an unborn HEAD = %v, want ErrNoCommits", err)
	}
}

// TestModesAndLinks: symbolic links and executable bits survive a round
// trip.
func TestModesAndLinks(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(ws, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.sh", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	os.Chmod(filepath.Join(ws, "run.sh"), 0o644)
	os.Remove(filepath.Join(ws, "link"))
	writeFile(t, ws, "link", "now a file\n")
	capture(t, m, ws, "t1", "run/2")
	restore(t, m, ws, "t1", run1.Commit)
	if st, err := os.Stat(filepath.Join(ws, "run.sh")); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("run.sh lost its executable bit: %v %v", st.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(ws, "link")); err != nil || target != "run.sh" {
		t.Errorf("link = %q, %v; want a symbolic link to run.sh", target, err)
	}
}

// TestIgnoredWorkspaceDir: a workspace in a directory its repository
// ignores gets a shadow repository, so its files are still captured.
func TestIgnoredWorkspaceDir(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, ".gitignore", "scratch/\n")
	writeFile(t, repo, "scratch/ws/a.txt", "a\n")
	m := newManager(t, Options{})
	ws := filepath.Join(repo, "scratch", "ws")
	cp := capture(t, m, ws, "t1", "run/1")
	info, err := m.Info(context.Background(), ws)
	if err != nil || !info.Shadow {
		t.Fatalf("Info = %+v, %v; want a shadow repository", info, err)
	}
	if got := treeFiles(t, info.GitDir, cp.Commit); !eq(got, []string{"a.txt"}) {
		t.Errorf("captured %v", got)
	}
	if got := gitT(t, repo, "for-each-ref", "refs/nexus/"); got != "" {
		t.Errorf("refs written into the enclosing repository: %s", got)
	}
}

// TestUntrackedNestedRepository: an untracked nested repository is left
// out of captures and left alone by restores.
func TestUntrackedNestedRepository(t *testing.T) {
	repo := newRepo(t)
	nested := filepath.Join(repo, "vendor", "lib")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, nested, "init", "-q")
	writeFile(t, nested, "lib.go", "package lib\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	if got := treeFiles(t, filepath.Join(repo, ".git"), run1.Commit); !eq(got, []string{"README"}) {
		t.Errorf("captured %v, want only README", got)
	}
	r := restore(t, m, repo, "t1", run1.Commit)
	if !exists(nested, "lib.go") || !eq(r.Skipped, []string{"vendor/lib/"}) {
		t.Errorf("restore touched the nested repository: %+v", r)
	}
	if dirty, err := m.Dirty(context.Background(), repo, run1.Commit); err != nil || dirty {
		t.Errorf("Dirty = %v, %v; a nested repository is never captured, so it does not count", dirty, err)
	}
}

// TestSHA256Repository: checkpoints work in a SHA-256 repository (the
// commit object is hashed with the repository's algorithm).
func TestSHA256Repository(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "--object-format=sha256")
	writeFile(t, repo, "README", "hello\n")
	gitT(t, repo, "add", "README")
	gitT(t, repo, "commit", "-q", "-m", "initial")
	m := newManager(t, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "a.txt", "a\n")
	run2 := capture(t, m, repo, "t1", "run/2")
	if len(run2.Commit) != 64 || run2.Parent != run1.Commit {
		t.Errorf("run 2 = %+v, want a 64-digit commit chained to run 1", run2)
	}
	if _, err := m.Diff(context.Background(), repo, "", run2.Commit); err != nil {
		t.Errorf("Diff from the empty tree: %v", err)
	}
	restore(t, m, repo, "t1", run1.Commit)
	if exists(repo, "a.txt") {
		t.Error("a.txt survived the restore")
	}
	fsckClean(t, repo)
}
