package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository that appears in a workspace after nexus found its own
// (an agent runs `git init` in a subdirectory workspace) is never
// adopted: the next captures, by this manager and by a new one on the
// same state dir (a restarted host), still go to the repository the
// workspace started with, and the new one gets no refs.
func TestWorkspaceKeepsItsRepository(t *testing.T) {
	repo := newRepo(t)
	ws := filepath.Join(repo, "sub")
	writeFile(t, repo, "sub/a.txt", "a\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "sub")
	stateDir := t.TempDir()
	m := New(stateDir, Options{})
	capture(t, m, ws, "t1", "run1")

	gitT(t, ws, "init", "-q")
	writeFile(t, ws, "b.txt", "b\n")
	for i, mgr := range []*Manager{m, New(stateDir, Options{})} {
		scope := []string{"run2", "run3"}[i]
		capture(t, mgr, ws, "t1", scope)
		if refs := gitT(t, repo, "for-each-ref", "refs/nexus/"); !strings.Contains(refs, "refs/nexus/checkpoints/t1/"+scope) {
			t.Fatalf("manager %d: %s went elsewhere; the repository's refs:\n%s", i, scope, refs)
		}
		if refs := gitT(t, ws, "for-each-ref", "refs/nexus/"); strings.TrimSpace(refs) != "" {
			t.Fatalf("manager %d: the new repository got refs:\n%s", i, refs)
		}
	}

	// The repository it started with gone: an error naming it.
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	_, err := New(stateDir, Options{}).Capture(context.Background(), ws, "t1", "run4")
	if err == nil || !strings.Contains(err.Error(), "that workspace "+canonicalT(t, ws)+" started with is gone") {
		t.Fatalf("capture with the pinned repository gone: %v", err)
	}
}

func canonicalT(t *testing.T, dir string) string {
	t.Helper()
	p, err := canonical(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
