package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gitT runs git for a test, as a user would, and returns its trimmed
// output. GIT_OPTIONAL_LOCKS=0 keeps the test's own status calls from
// rewriting the index the tests byte-compare.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitRaw(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func gitRaw(dir string, args ...string) (string, error) {
	full := append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgSign=false", "-c", "init.defaultBranch=main",
		"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...) // no background gc racing t.TempDir cleanup
	c := exec.Command("git", full...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	return out.String(), err
}

// newRepo makes a git repository with one committed file.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q")
	writeFile(t, dir, "README", "hello\n")
	gitT(t, dir, "add", "README")
	gitT(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(dir, rel string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
	return err == nil
}

// listTree lists every file and directory under dir except .git.
func listTree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != "." {
			if d.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// repoState is everything of the user's repository nexus must not touch.
type repoState struct {
	head, branches, staged, stash, config string
	index                                 []byte
}

func stateOf(t testing.TB, dir string) repoState {
	t.Helper()
	gd := gitT(t, dir, "rev-parse", "--absolute-git-dir")
	// Read the index before any git command could refresh it.
	index, err := os.ReadFile(filepath.Join(gd, "index"))
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join(gd, "config"))
	if err != nil {
		t.Fatal(err)
	}
	return repoState{
		index:    index,
		config:   string(config),
		head:     gitT(t, dir, "rev-parse", "HEAD") + " " + gitT(t, dir, "symbolic-ref", "-q", "HEAD"),
		branches: gitT(t, dir, "for-each-ref", "refs/heads", "refs/tags", "refs/stash"),
		staged:   gitT(t, dir, "diff", "--cached", "HEAD"),
		stash:    gitT(t, dir, "stash", "list"),
	}
}

func (s repoState) compare(t testing.TB, after repoState) {
	t.Helper()
	if !bytes.Equal(s.index, after.index) {
		t.Errorf(".git/index changed (%d bytes before, %d after)", len(s.index), len(after.index))
	}
	for _, c := range []struct{ name, a, b string }{
		{"HEAD", s.head, after.head}, {"branches", s.branches, after.branches},
		{"staged changes", s.staged, after.staged}, {"stash", s.stash, after.stash}, {"config", s.config, after.config},
	} {
		if c.a != c.b {
			t.Errorf("%s changed:\nbefore: %q\nafter:  %q", c.name, c.a, c.b)
		}
	}
}

func newManager(t testing.TB, opts Options) *Manager {
	t.Helper()
	return New(t.TempDir(), opts)
}

func capture(t testing.TB, m *Manager, ws, thread, scope string) Checkpoint {
	t.Helper()
	cp, err := m.Capture(context.Background(), ws, thread, scope)
	if err != nil {
		t.Fatalf("Capture %s: %v", scope, err)
	}
	return cp
}

func restore(t testing.TB, m *Manager, ws, thread, commit string) Restored {
	t.Helper()
	r, err := m.Restore(context.Background(), ws, thread, commit)
	if err != nil {
		t.Fatalf("Restore %s: %v", commit, err)
	}
	return r
}

// treeFiles lists the paths in a commit's tree.
func treeFiles(t testing.TB, gitDir, commit string) []string {
	t.Helper()
	c := exec.Command("git", "ls-tree", "-r", "--name-only", commit)
	c.Env = append(os.Environ(), "GIT_DIR="+gitDir)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("ls-tree %s: %v", commit, err)
	}
	return strings.Fields(string(out))
}

func fsckClean(t testing.TB, dir string) {
	t.Helper()
	out, err := gitRaw(dir, "fsck", "--strict", "--no-progress")
	var bad []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		// A shadow repository's HEAD is unborn by design.
		if l != "" && !strings.HasPrefix(l, "notice: HEAD points to an unborn branch") {
			bad = append(bad, l)
		}
	}
	if err != nil || len(bad) > 0 {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}

// makeFiles writes n small files spread over directories of 100.
func makeFiles(t testing.TB, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func eq(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}
