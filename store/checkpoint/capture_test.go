package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAcceptanceGit is the checkpoint acceptance flow at the library
// level: a repository with a committed file and an unrelated staged
// change; run 1 writes a.txt, run 2 edits it and adds b.txt; restoring
// run 1 leaves a.txt as after run 1 and no b.txt, and nothing of the
// user's repository moves.
func TestAcceptanceGit(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "staged.txt", "staged by the user\n")
	gitT(t, repo, "add", "staged.txt")
	gitT(t, repo, "branch", "feature")
	before := stateOf(t, repo)
	m := newManager(t, Options{})

	base := capture(t, m, repo, "t1", "run/0")
	writeFile(t, repo, "a.txt", "one\n")
	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "a.txt", "one\ntwo\n")
	writeFile(t, repo, "b.txt", "bee\n")
	run2 := capture(t, m, repo, "t1", "run/2")

	if run1.Parent != base.Commit || run2.Parent != run1.Commit {
		t.Errorf("checkpoints do not chain: run1 parent %s (want %s), run2 parent %s (want %s)", run1.Parent, base.Commit, run2.Parent, run1.Commit)
	}
	head := gitT(t, repo, "rev-parse", "HEAD")
	if run2.Base != head {
		t.Errorf("run2 base = %s, want HEAD %s", run2.Base, head)
	}
	if base.Changed != 1 || run1.Changed != 1 || run2.Changed != 2 {
		t.Errorf("Changed = %d, %d, %d; want 1 (staged.txt vs HEAD), 1, 2", base.Changed, run1.Changed, run2.Changed)
	}
	if got := treeFiles(t, filepath.Join(repo, ".git"), run2.Commit); !eq(got, []string{"README", "a.txt", "b.txt", "staged.txt"}) {
		t.Errorf("run 2 tree = %v", got)
	}
	if run2.Files != 4 {
		t.Errorf("run2.Files = %d, want 4", run2.Files)
	}

	r := restore(t, m, repo, "t1", run1.Commit)
	if got := readFile(t, repo, "a.txt"); got != "one\n" {
		t.Errorf("a.txt after restore = %q, want %q", got, "one\n")
	}
	if exists(repo, "b.txt") {
		t.Error("b.txt still exists after restoring run 1")
	}
	if !eq(r.Written, []string{"a.txt"}) || !eq(r.Removed, []string{"b.txt"}) || len(r.Skipped) != 0 {
		t.Errorf("Restored = %+v, want a.txt written and b.txt removed", r)
	}
	before.compare(t, stateOf(t, repo))
	fsckClean(t, repo)

	refs, err := m.Refs(context.Background(), repo, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ref := range refs {
		names = append(names, ref.Name)
	}
	want := []string{"refs/nexus/checkpoints/t1/run/0", "refs/nexus/checkpoints/t1/run/1", "refs/nexus/checkpoints/t1/run/2"}
	if !eq(names, want) || refs[2].Commit != run2.Commit {
		t.Errorf("Refs = %+v, want %v", refs, want)
	}
	if got := gitT(t, repo, "rev-parse", "refs/nexus/checkpoints/t1/run/1"); got != run1.Commit {
		t.Errorf("run/1 ref = %s, want %s", got, run1.Commit)
	}
	// Restore moved the tip: the next capture chains from run 1.
	writeFile(t, repo, "c.txt", "sea\n")
	run3 := capture(t, m, repo, "t1", "run/3")
	if run3.Parent != run1.Commit || run3.Changed != 1 {
		t.Errorf("run 3 parent %s changed %d; want run 1 %s and 1", run3.Parent, run3.Changed, run1.Commit)
	}
}

// TestAcceptanceShadow runs the same flow in a directory that is not a git
// repository: the checkpoints live under the state dir and nothing but
// the agent's own files appears in the workspace.
func TestAcceptanceShadow(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "notes.md", "mine\n")
	stateDir := t.TempDir()
	m := New(stateDir, Options{})
	info, err := m.Info(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Shadow || !strings.HasPrefix(info.GitDir, stateDir) {
		t.Fatalf("Info = %+v, want a shadow repository under %s", info, stateDir)
	}
	capture(t, m, ws, "t1", "run/0")
	writeFile(t, ws, "a.txt", "one\n")
	run1 := capture(t, m, ws, "t1", "run/1")
	writeFile(t, ws, "a.txt", "one\ntwo\n")
	writeFile(t, ws, "sub/b.txt", "bee\n")
	run2 := capture(t, m, ws, "t1", "run/2")
	if got := listTree(t, ws); !eq(got, []string{"a.txt", "notes.md", "sub/", "sub/b.txt"}) {
		t.Errorf("workspace holds %v, want only the agent's and the user's files", got)
	}
	d, err := m.Diff(context.Background(), ws, run1.Commit, run2.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Files[0].Path != "a.txt" || d.Files[1].Path != "sub/b.txt" {
		t.Errorf("Diff files = %+v", d.Files)
	}
	restore(t, m, ws, "t1", run1.Commit)
	if got := listTree(t, ws); !eq(got, []string{"a.txt", "notes.md"}) {
		t.Errorf("after restore the workspace holds %v, want a.txt and notes.md (sub/ pruned)", got)
	}
	if got := readFile(t, ws, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
	fsckClean(t, info.GitDir)
	if got := gitT(t, info.GitDir, "for-each-ref", "--format=%(refname)", "refs/nexus/checkpoints/"); !strings.Contains(got, "refs/nexus/checkpoints/t1/run/2") {
		t.Errorf("shadow refs = %q", got)
	}
}

// TestGitignored: ignored files are neither captured nor removed.
func TestGitignored(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, ".gitignore", "*.log\nbuild/\n")
	gitT(t, repo, "add", ".gitignore")
	gitT(t, repo, "commit", "-q", "-m", "ignore")
	writeFile(t, repo, "x.log", "log\n")
	writeFile(t, repo, "build/out.bin", "binary\n")
	writeFile(t, repo, "kept.txt", "k\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	if got := treeFiles(t, filepath.Join(repo, ".git"), run1.Commit); !eq(got, []string{".gitignore", "README", "kept.txt"}) {
		t.Errorf("captured %v; ignored files must be left out", got)
	}
	writeFile(t, repo, "y.log", "new log\n")
	writeFile(t, repo, "build/more.bin", "more\n")
	writeFile(t, repo, "new.txt", "n\n")
	r := restore(t, m, repo, "", run1.Commit)
	for _, p := range []string{"x.log", "y.log", "build/out.bin", "build/more.bin"} {
		if !exists(repo, p) {
			t.Errorf("restore removed ignored file %s", p)
		}
	}
	if exists(repo, "new.txt") || !eq(r.Removed, []string{"new.txt"}) {
		t.Errorf("new.txt must be removed; Restored = %+v", r)
	}
}

// TestRestoreUsesCheckpointIgnoreRules: what counts as ignored during a
// restore is decided by the checkpoint's .gitignore files, not by ones a
// later run wrote.
func TestRestoreUsesCheckpointIgnoreRules(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, ".gitignore", "*.tmp\n")
	m := newManager(t, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	// Run 2 stops ignoring *.tmp, starts ignoring secret.txt, writes both.
	writeFile(t, ws, ".gitignore", "secret.txt\n")
	writeFile(t, ws, "z.tmp", "scratch\n")
	writeFile(t, ws, "secret.txt", "made by run 2\n")
	capture(t, m, ws, "t1", "run/2")
	restore(t, m, ws, "t1", run1.Commit)
	if got := readFile(t, ws, ".gitignore"); got != "*.tmp\n" {
		t.Errorf(".gitignore = %q", got)
	}
	if exists(ws, "secret.txt") {
		t.Error("secret.txt survived: it is not ignored by the checkpoint's rules")
	}
	if !exists(ws, "z.tmp") {
		t.Error("z.tmp was removed: the checkpoint's rules ignore it")
	}
}

// TestRecaptureReplacesScope: capturing a scope again (a redo after a
// crash) replaces it instead of chaining onto itself.
func TestRecaptureReplacesScope(t *testing.T) {
	repo := newRepo(t)
	m := newManager(t, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "a.txt", "a\n")
	first := capture(t, m, repo, "t1", "run/2")
	again := capture(t, m, repo, "t1", "run/2")
	if first.Parent != run1.Commit || again.Parent != run1.Commit {
		t.Errorf("parents %s, %s; want both run 1 %s", first.Parent, again.Parent, run1.Commit)
	}
	if again.Changed != 1 || again.Tree != first.Tree {
		t.Errorf("recapture = %+v, want the same tree and 1 change", again)
	}
}

func TestBadNames(t *testing.T) {
	m := newManager(t, Options{})
	repo := newRepo(t)
	for _, c := range []struct{ thread, scope string }{
		{"", "run/1"}, {"t1", ""}, {"t/1", "run"}, {"t1", "run//1"}, {"t1", "../x"}, {"t1", "run/1.lock"},
		{"t1", "-x"}, {"t 1", "run"}, {"t1", "run/.hidden"}, {"t1", "a~b"}, {"t1", "a:b"},
	} {
		if _, err := m.Capture(context.Background(), repo, c.thread, c.scope); !errors.Is(err, ErrName) {
			t.Errorf("Capture(%q, %q) = %v, want ErrName", c.thread, c.scope, err)
		}
	}
	if _, err := m.Capture(context.Background(), filepath.Join(repo, "missing"), "t1", "run/1"); !errors.Is(err, ErrWorkspace) {
		t.Errorf("missing workspace: %v, want ErrWorkspace", err)
	}
}

// TestSubdirWorkspace: a workspace below the top of a repository is
// captured and restored without touching files outside it.
func TestSubdirWorkspace(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "app/main.go", "package main\n")
	gitT(t, repo, "add", "app")
	gitT(t, repo, "commit", "-q", "-m", "app")
	ws := filepath.Join(repo, "app")
	m := newManager(t, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	writeFile(t, ws, "extra.go", "package main\n")
	writeFile(t, repo, "outside.txt", "not the agent's\n")
	run2 := capture(t, m, ws, "t1", "run/2")
	if run2.Changed != 1 {
		t.Errorf("run2.Changed = %d, want 1 (outside.txt is not in the workspace)", run2.Changed)
	}
	d, err := m.Diff(context.Background(), ws, run1.Commit, run2.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "extra.go" {
		t.Errorf("Diff = %+v, want extra.go relative to the workspace", d.Files)
	}
	r := restore(t, m, ws, "t1", run1.Commit)
	if !eq(r.Removed, []string{"extra.go"}) || exists(ws, "extra.go") {
		t.Errorf("Restored = %+v", r)
	}
	if !exists(repo, "outside.txt") {
		t.Error("restore of app/ removed a file outside it")
	}
}

// TestStateDirInsideWorkspace: the journal is never captured or deleted,
// even when the state dir lives inside the workspace.
func TestStateDirInsideWorkspace(t *testing.T) {
	ws := t.TempDir()
	stateDir := filepath.Join(ws, ".nexus")
	writeFile(t, stateDir, "journal.db", "precious\n")
	m := New(stateDir, Options{})
	run1 := capture(t, m, ws, "t1", "run/1")
	writeFile(t, ws, "a.txt", "a\n")
	restore(t, m, ws, "t1", run1.Commit)
	if !exists(stateDir, "journal.db") || exists(ws, "a.txt") {
		t.Errorf("after restore: journal kept %v, a.txt removed %v", exists(stateDir, "journal.db"), !exists(ws, "a.txt"))
	}
	info, _ := m.Info(context.Background(), ws)
	if got := treeFiles(t, info.GitDir, run1.Commit); len(got) != 0 {
		t.Errorf("checkpoint holds %v, want nothing (the state dir is excluded)", got)
	}
}

// TestTimeBound: a capture past its time bound is killed, returns the
// typed error and leaves no ref and no temporary index.
func TestTimeBound(t *testing.T) {
	repo := newRepo(t)
	makeFiles(t, repo, 3000)
	stateDir := t.TempDir()
	m := New(stateDir, Options{CaptureTimeout: time.Millisecond})
	before := stateOf(t, repo)
	_, err := m.Capture(context.Background(), repo, "t1", "run/1")
	var be *BoundError
	if !errors.As(err, &be) || be.Kind != BoundTime || !errors.Is(err, ErrBound) {
		t.Fatalf("Capture = %v, want a time *BoundError", err)
	}
	if !strings.Contains(err.Error(), ".gitignore") {
		t.Errorf("error %q does not say what to do", err)
	}
	if got := gitT(t, repo, "for-each-ref", "refs/nexus/"); got != "" {
		t.Errorf("refs written by a timed-out capture: %s", got)
	}
	before.compare(t, stateOf(t, repo))
	if ents, _ := os.ReadDir(filepath.Join(stateDir, "checkpoints", "tmp")); len(ents) != 0 {
		t.Errorf("temporary indexes left behind: %v", ents)
	}
	if got, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "tmp_*")); len(got) != 0 {
		t.Errorf("quarantine left behind: %v", got)
	}
	// A caller's own cancellation is not a bound.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(stateDir, Options{}).Capture(ctx, repo, "t1", "run/1"); errors.Is(err, ErrBound) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Capture = %v, want context.Canceled", err)
	}
}

// TestSizeBounds: past the file or byte bound nothing is hashed into the
// repository and no ref moves.
func TestSizeBounds(t *testing.T) {
	repo := newRepo(t)
	objects := func() string { return gitT(t, repo, "count-objects", "-v") }
	before := objects()
	makeFiles(t, repo, 30)
	_, err := newManager(t, Options{MaxFiles: 10}).Capture(context.Background(), repo, "t1", "run/1")
	var be *BoundError
	if !errors.As(err, &be) || be.Kind != BoundFiles || be.Limit != 10 {
		t.Errorf("Capture with MaxFiles 10 = %v, want a files *BoundError", err)
	}
	writeFile(t, repo, "big.bin", strings.Repeat("x", 5000))
	_, err = newManager(t, Options{MaxBytes: 4096}).Capture(context.Background(), repo, "t1", "run/1")
	if !errors.As(err, &be) || be.Kind != BoundBytes {
		t.Errorf("Capture with MaxBytes 4096 = %v, want a bytes *BoundError", err)
	}
	if got := objects(); got != before {
		t.Errorf("objects written past a bound:\nbefore %s\nafter  %s", before, got)
	}
	if got := gitT(t, repo, "for-each-ref", "refs/nexus/"); got != "" {
		t.Errorf("refs written past a bound: %s", got)
	}
}

// TestTenThousandFiles: a 10,000-file repository captures within its
// default bound, hashing only what changed.
func TestTenThousandFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-file repository")
	}
	repo := newRepo(t)
	makeFiles(t, repo, 10000)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "many")
	for i := 0; i < 10; i++ {
		writeFile(t, repo, "d0"+string(rune('0'+i))+"0/f0"+string(rune('0'+i))+"000.txt", "changed\n")
	}
	m := newManager(t, Options{})
	start := time.Now()
	cp := capture(t, m, repo, "t1", "run/1")
	took := time.Since(start)
	if cp.Files != 10001 || cp.Changed != 10 {
		t.Errorf("Files %d Changed %d, want 10001 and 10", cp.Files, cp.Changed)
	}
	if took > DefaultCaptureTimeout/3 {
		t.Errorf("capture took %s, too close to its %s bound", took, DefaultCaptureTimeout)
	}
	t.Logf("10,000-file capture: %s", took)
}

// TestTimeBoundKillsGit: at the bound the whole git process group dies,
// children included, so a hung filter or fsmonitor hook cannot hold the
// capture open. The fake git sleeps in a child whenever it is asked to
// list files.
func TestTimeBoundKillsGit(t *testing.T) {
	repo := newRepo(t)
	fake := filepath.Join(t.TempDir(), "slow-git")
	script := "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = ls-files ]; then sleep 30; fi; done\nexec git \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Git: fake, CaptureTimeout: 500 * time.Millisecond})
	start := time.Now()
	_, err := m.Capture(context.Background(), repo, "t1", "run/1")
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("Capture returned after %s; the sleeping child was not killed with git", took)
	}
	if !errors.Is(err, ErrBound) {
		t.Errorf("Capture = %v, want a time bound error", err)
	}
	if got := gitT(t, repo, "for-each-ref", "refs/nexus/"); got != "" {
		t.Errorf("refs written: %s", got)
	}
}

// TestConcurrentCaptures: captures of several threads in one repository
// and of another workspace run at once without disturbing each other;
// a caller waiting for a busy workspace can give up.
func TestConcurrentCaptures(t *testing.T) {
	repo, other := newRepo(t), t.TempDir()
	m := newManager(t, Options{})
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		thread := "t" + string(rune('a'+i))
		writeFile(t, repo, thread+".txt", thread)
		go func() {
			_, err := m.Capture(context.Background(), repo, thread, "run/1")
			errs <- err
		}()
		go func() {
			_, err := m.Capture(context.Background(), other, thread, "run/1")
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := strings.Count(gitT(t, repo, "for-each-ref", "refs/nexus/checkpoints/"), "\n") + 1; got != 4 {
		t.Errorf("%d checkpoint refs, want 4", got)
	}
	fsckClean(t, repo)

	path, _ := canonical(repo)
	unlock, err := m.lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.Capture(ctx, repo, "ta", "run/2"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Capture behind a held lock = %v, want the caller's deadline", err)
	}
	unlock()
}

// TestNoGarbage: a capture leaves no quarantine or temporary index, and
// its objects are loose objects of the repository.
func TestNoGarbage(t *testing.T) {
	repo := newRepo(t)
	stateDir := t.TempDir()
	m := New(stateDir, Options{})
	writeFile(t, repo, "a.txt", "a\n")
	cp := capture(t, m, repo, "t1", "run/1")
	ents, _ := os.ReadDir(filepath.Join(repo, ".git", "objects"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "tmp_") {
			t.Errorf("left in .git/objects: %s", e.Name())
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(stateDir, "checkpoints", "tmp")); len(ents) != 0 {
		t.Errorf("temporary indexes left: %v", ents)
	}
	if st, err := os.Stat(filepath.Join(repo, ".git", "index")); err != nil || st.Sys().(*syscall.Stat_t).Nlink != 1 {
		t.Errorf("the user's index is still linked from a temporary index (%v)", err)
	}
	obj := filepath.Join(repo, ".git", "objects", cp.Commit[:2], cp.Commit[2:])
	if _, err := os.Stat(obj); err != nil {
		t.Errorf("commit %s is not a loose object of the repository: %v", cp.Commit, err)
	}
	if _, err := New(stateDir, Options{Git: "/nonexistent/git"}).Capture(context.Background(), repo, "t1", "run/2"); !errors.Is(err, ErrNoGit) {
		t.Errorf("Capture without git = %v, want ErrNoGit", err)
	}
}
