package checkpoint

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Tests of the fast paths of a capture: trees built from the index by
// the package (trees.go), changes counted from the kept index, and the
// tip and HEAD remembered between captures (tips.go). Each compares
// with what git computes the slow way.

// gitTree is what a capture of ws must hold: the tree that
// `git add -A . && git write-tree` writes on a copy of the user's index,
// run in ws. Its objects go to a throwaway directory.
func gitTree(t *testing.T, ws string) string {
	t.Helper()
	gitDir := gitT(t, ws, "rev-parse", "--absolute-git-dir")
	index := filepath.Join(t.TempDir(), "index")
	if _, err := copyIndex(filepath.Join(gitDir, "index"), index); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_OBJECT_DIRECTORY=" + t.TempDir(),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(gitDir, "objects")}
	run := func(args ...string) string {
		c := exec.Command("git", append([]string{"-c", "core.fsync=none"}, args...)...)
		c.Dir, c.Env = ws, append(os.Environ(), env...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("add", "-A", ".")
	return run("write-tree")
}

// diffCount counts what `git diff-tree -r` lists under ws between two
// commits.
func diffCount(t *testing.T, ws, from, to string) int {
	t.Helper()
	out := gitT(t, ws, "diff-tree", "-r", "--name-only", "--no-renames", "--relative", from, to)
	if out == "" {
		return 0
	}
	return len(strings.Split(out, "\n"))
}

// checkCapture captures ws and checks the checkpoint against git: its
// tree, its parent, and its count of changes.
func checkCapture(t *testing.T, m *Manager, ws, thread, scope, parent string) Checkpoint {
	t.Helper()
	want := gitTree(t, ws)
	cp := capture(t, m, ws, thread, scope)
	if cp.Tree != want {
		t.Fatalf("%s: tree %s, git writes %s", scope, cp.Tree, want)
	}
	if cp.Parent != parent {
		t.Fatalf("%s: parent %s, want %s", scope, cp.Parent, parent)
	}
	against := cp.Parent
	if against == "" {
		against = cp.Base
	}
	if against != "" {
		if n := diffCount(t, ws, against, cp.Commit); cp.Changed != n {
			t.Fatalf("%s: Changed %d, git diff-tree lists %d", scope, cp.Changed, n)
		}
	}
	return cp
}

// TestCapturesMatchGit: random edits of every kind a capture must
// record, in repositories whose index is of each format, at the top and
// in a subdirectory: every checkpoint's tree is what git writes, and its
// count of changes is what git diff-tree lists.
func TestCapturesMatchGit(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string // index format: 2, 3 (extended flags), 4 (compressed paths)
		sub     string // workspace below the top
		format  string // object format
	}{
		{"v2", "2", "", "sha1"},
		{"v3", "3", "", "sha1"},
		{"v4", "4", "", "sha1"},
		{"subdir", "2", "d1", "sha1"},
		{"sha256", "2", "", "sha256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			gitT(t, repo, "init", "-q", "--object-format="+c.format)
			for i := 0; i < 4; i++ {
				for j := 0; j < 5; j++ {
					writeFile(t, repo, fmt.Sprintf("d%d/f%d.txt", i, j), fmt.Sprintf("%d %d\n", i, j))
				}
			}
			writeFile(t, repo, "d1/deep/x/y.txt", "deep\n")
			gitT(t, repo, "add", "-A")
			gitT(t, repo, "commit", "-q", "-m", "init")
			gitT(t, repo, "update-index", "--index-version", c.version)
			ws := filepath.Join(repo, c.sub)
			m := newManager(t, Options{})
			rnd := rand.New(rand.NewSource(int64(len(c.name))))
			parent := ""
			for round := 0; round < 14; round++ {
				for k := rnd.Intn(4) + 1; k > 0; k-- {
					mutate(t, rnd, repo, c.sub, round)
				}
				cp := checkCapture(t, m, ws, "t1", fmt.Sprintf("run/%d", round), parent)
				parent = cp.Commit
			}
			fsckConnected(t, repo)
		})
	}
}

// mutate makes one random change in repo: content, mode, type, a new or
// deleted file or directory, a symbolic link, an intent-to-add entry,
// or a user's commit or staged file (which changes the index a capture
// starts from). It leaves the directory keep in place.
func mutate(t *testing.T, rnd *rand.Rand, repo, keep string, round int) {
	t.Helper()
	dir := fmt.Sprintf("d%d", rnd.Intn(5))
	file := fmt.Sprintf("%s/f%d.txt", dir, rnd.Intn(6))
	p := filepath.Join(repo, filepath.FromSlash(file))
	switch rnd.Intn(11) {
	case 0, 1:
		os.RemoveAll(p)
		writeFile(t, repo, file, fmt.Sprintf("round %d %d\n", round, rnd.Int()))
	case 2:
		os.Remove(p)
	case 3:
		if dir != keep {
			os.RemoveAll(filepath.Join(repo, dir))
		}
	case 4:
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			os.Chmod(p, st.Mode()^0o100)
		}
	case 5:
		os.RemoveAll(p)
		writeFile(t, repo, file+"/inner.txt", "a file became a directory\n")
	case 6:
		os.RemoveAll(p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Symlink(fmt.Sprintf("target-%d", rnd.Intn(3)), p)
	case 7:
		writeFile(t, repo, fmt.Sprintf("new%d/a-b/c.d/e%d.txt", round, rnd.Intn(3)), "nested\n")
		writeFile(t, repo, fmt.Sprintf("new%d/a.b", round), "sorts before a-b/ in a tree\n")
	case 8:
		writeFile(t, repo, fmt.Sprintf("ita%d/only.txt", round), "intent to add\n")
		gitT(t, repo, "add", "-N", fmt.Sprintf("ita%d/only.txt", round))
		writeFile(t, repo, dir+"/ita.txt", "intent to add\n")
		gitT(t, repo, "add", "-N", dir+"/ita.txt")
	case 9:
		gitT(t, repo, "add", "-A")
		gitT(t, repo, "commit", "-q", "--allow-empty", "-m", fmt.Sprint("round ", round))
	case 10:
		os.RemoveAll(p)
		writeFile(t, repo, file, fmt.Sprintf("staged %d\n", round))
		gitT(t, repo, "add", "-A", dir)
	}
}

// TestBuildTreeEdges: trees the package builds agree with git for what
// the random test rarely makes, and what it does not build goes to git:
// a submodule, a sparse-checkout entry, a directory of intent-to-add
// entries only, an index without a cache-tree, and one with more
// directories to write than maxBuiltTrees.
func TestBuildTreeEdges(t *testing.T) {
	repo := newRepo(t)
	sub := filepath.Join(repo, "sub")
	gitT(t, repo, "init", "-q", sub)
	writeFile(t, sub, "s.txt", "s\n")
	gitT(t, sub, "add", "s.txt")
	gitT(t, sub, "commit", "-q", "-m", "sub")
	writeFile(t, repo, "sparse/gone.txt", "not checked out\n")
	writeFile(t, repo, "kept.txt", "k\n")
	gitT(t, repo, "add", "sub", "sparse", "kept.txt")
	gitT(t, repo, "commit", "-q", "-m", "edges")
	gitT(t, repo, "update-index", "--skip-worktree", "sparse/gone.txt")
	os.Remove(filepath.Join(repo, "sparse/gone.txt"))
	writeFile(t, repo, "itaonly/a.txt", "a\n")
	gitT(t, repo, "add", "-N", "itaonly/a.txt")
	m := newManager(t, Options{})
	// Below the top, the intent-to-add entries outside stay in the index
	// and out of the tree, with their directory.
	writeFile(t, repo, "app/main.go", "package main\n")
	checkCapture(t, m, filepath.Join(repo, "app"), "t0", "run/1", "")
	run1 := checkCapture(t, m, repo, "t1", "run/1", "")

	// The submodule moves on: its new commit is recorded.
	writeFile(t, sub, "s.txt", "s2\n")
	gitT(t, sub, "commit", "-q", "-am", "sub 2")
	run2 := checkCapture(t, m, repo, "t1", "run/2", run1.Commit)
	if got := gitT(t, repo, "rev-parse", run2.Commit+":sub"); got != gitT(t, sub, "rev-parse", "HEAD") {
		t.Errorf("gitlink = %s, want the submodule's HEAD", got)
	}

	// No cache-tree at all: every directory is built, then (past
	// maxBuiltTrees directories) git builds them.
	for _, n := range []int{5, maxBuiltTrees + 10} {
		for i := 0; i < n; i++ {
			writeFile(t, repo, fmt.Sprintf("many%d/f.txt", i), fmt.Sprint(n, i))
		}
		gitT(t, repo, "read-tree", "--empty")
		gitT(t, repo, "add", "-A")
		cp := checkCapture(t, m, repo, "t1", fmt.Sprintf("run/none%d", n), run2.Commit)
		run2 = cp
	}
	fsckConnected(t, repo)
}

// TestStaleTip: a tip moved behind the Manager's back (by another
// process) is noticed by the ref transaction; the capture then chains
// from the real tip.
func TestStaleTip(t *testing.T) {
	repo := newRepo(t)
	state := t.TempDir()
	m, other := New(state, Options{}), New(state, Options{})
	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "a.txt", "a\n")
	run2 := capture(t, other, repo, "t1", "run/2")
	if run2.Parent != run1.Commit {
		t.Fatalf("run 2 parent %s, want run 1", run2.Parent)
	}
	writeFile(t, repo, "b.txt", "b\n")
	checkCapture(t, m, repo, "t1", "run/3", run2.Commit)

	// A tip moved with git, to an older checkpoint.
	gitT(t, repo, "update-ref", tipName("t1"), run1.Commit)
	writeFile(t, repo, "c.txt", "c\n")
	checkCapture(t, m, repo, "t1", "run/4", run1.Commit)

	// A thread deleted by another Manager starts a new chain.
	if err := other.DeleteThread(context.Background(), repo, "t1"); err != nil {
		t.Fatal(err)
	}
	checkCapture(t, m, repo, "t1", "run/5", "")
	fsckConnected(t, repo)
}

// TestKeptIndexLost: the index kept to count changes may be deleted or
// corrupted between captures; the count is then made by git.
func TestKeptIndexLost(t *testing.T) {
	repo := newRepo(t)
	makeFiles(t, repo, 300)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "files")
	state := t.TempDir()
	m := New(state, Options{})
	parent := checkCapture(t, m, repo, "t1", "run/0", "").Commit
	kept := func() string {
		got, _ := filepath.Glob(filepath.Join(state, "checkpoints", "last", "*"))
		if len(got) != 1 {
			t.Fatalf("kept indexes %v, want one", got)
		}
		return got[0]
	}
	for i, damage := range []func(path string){
		func(path string) { os.Remove(path) },
		func(path string) { os.WriteFile(path, []byte("garbage"), 0o600) },
		func(path string) { // same size and time, other content
			st, _ := os.Stat(path)
			b, _ := os.ReadFile(path)
			for j := 12; j < len(b); j += 7 {
				b[j] ^= 0x55
			}
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.Write(b)
			f.Close()
			os.Chtimes(path, st.ModTime(), st.ModTime())
		},
		func(path string) { // another index of the same size: the user's
			b, _ := os.ReadFile(filepath.Join(repo, ".git", "index"))
			os.WriteFile(path, b, 0o600)
		},
	} {
		damage(kept())
		writeFile(t, repo, fmt.Sprintf("d00%d/f0000%d.txt", i, i), fmt.Sprint("changed ", i))
		writeFile(t, repo, fmt.Sprintf("new%d.txt", i), "new\n")
		parent = checkCapture(t, m, repo, "t1", fmt.Sprintf("run/%d", i+1), parent).Commit
	}
}

// TestHeadRead: HEAD read from the files is what git resolves: a
// branch in a loose ref or in packed-refs, a detached HEAD, a linked
// worktree's own HEAD. A user's commit between captures becomes the
// next checkpoint's base.
func TestHeadRead(t *testing.T) {
	repo := newRepo(t)
	m := newManager(t, Options{})
	w, err := m.resolve(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	check := func(w *ws, dir string) {
		t.Helper()
		got, ok := readHead(w)
		if want := gitT(t, dir, "rev-parse", "HEAD"); !ok || got != want {
			t.Errorf("readHead = %q %v, want %s", got, ok, want)
		}
	}
	check(w, repo)
	gitT(t, repo, "pack-refs", "--all")
	check(w, repo)
	gitT(t, repo, "checkout", "-q", "--detach")
	check(w, repo)
	gitT(t, repo, "checkout", "-q", "main")
	check(w, repo)

	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, repo, "worktree", "add", "-q", "-b", "side", wt)
	writeFile(t, wt, "side.txt", "side\n")
	gitT(t, wt, "add", "side.txt")
	gitT(t, wt, "commit", "-q", "-m", "side")
	ww, err := m.resolve(context.Background(), wt)
	if err != nil {
		t.Fatal(err)
	}
	check(ww, wt)

	unborn := t.TempDir()
	gitT(t, unborn, "init", "-q")
	wu, err := m.resolve(context.Background(), unborn)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := readHead(wu); ok {
		t.Errorf("readHead of an unborn branch = %q, want git to look it up", got)
	}

	run1 := capture(t, m, repo, "t1", "run/1")
	writeFile(t, repo, "later.txt", "l\n")
	gitT(t, repo, "add", "later.txt")
	gitT(t, repo, "commit", "-q", "-m", "user's commit")
	run2 := capture(t, m, repo, "t1", "run/2")
	if head := gitT(t, repo, "rev-parse", "HEAD"); run2.Base != head || run1.Base == head {
		t.Errorf("bases %s, %s; want the user's new commit %s for run 2", run1.Base, run2.Base, head)
	}
}

// fsckConnected checks that every object is sound and every ref's
// history complete. Dangling objects are allowed: `git add -N` writes
// the empty blob, and a capture retried after a stale tip leaves its
// first commit unreferenced.
func fsckConnected(t *testing.T, dir string) {
	t.Helper()
	out, err := gitRaw(dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}

// TestSteadyStateProcesses: once a thread's tip and HEAD are known, a
// capture runs three git processes: ls-files, update-index and
// update-ref. The first one also looks the refs up (cat-file), counts
// its changes with diff-tree and reads the repository's configuration
// once for the filters it must disable (config; safegit.go).
func TestSteadyStateProcesses(t *testing.T) {
	repo := newRepo(t)
	makeFiles(t, repo, 300)
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "files")
	dir := t.TempDir()
	log, fake := filepath.Join(dir, "log"), filepath.Join(dir, "git")
	// Log the subcommand: the first argument that is not -c or a setting.
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in -c|*=*) ;; *) echo \"$a\" >> " + log + "; break;; esac; done\nexec git \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Git: fake})
	for i := 0; i < 3; i++ {
		writeFile(t, repo, fmt.Sprintf("d00%d/f00%d00.txt", i, i), fmt.Sprint("run ", i))
		os.Remove(log)
		capture(t, m, repo, "t1", fmt.Sprintf("run/%d", i))
		b, _ := os.ReadFile(log)
		ran := strings.Fields(string(b))
		sort.Strings(ran)
		want := []string{"ls-files", "update-index", "update-ref"}
		if i == 0 {
			want = []string{"cat-file", "config", "diff-tree", "ls-files", "rev-parse", "update-index", "update-ref"}
		}
		if !eq(ran, want) {
			t.Errorf("capture %d ran git %v, want %v", i, ran, want)
		}
	}
}
