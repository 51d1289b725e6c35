package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A shadow repository whose loose objects pass PackAfter is packed after
// a capture: its objects directory holds a pack and no loose object, the
// repository is sound, and every earlier checkpoint still restores.
func TestShadowRepositoryIsPacked(t *testing.T) {
	ws := t.TempDir()
	m := New(t.TempDir(), Options{PackAfter: 40})
	info, err := m.Info(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(info.GitDir, "objects")
	var first Checkpoint
	packed := false
	for i := range 12 {
		for j := range 4 {
			writeFile(t, ws, fmt.Sprintf("d%d/f%d.txt", j, i), fmt.Sprintf("run %d file %d\n", i, j))
		}
		cp := capture(t, m, ws, "t1", fmt.Sprintf("run/%d", i))
		if i == 0 {
			first = cp
		}
		if n := looseObjects(objects, 1); n >= 40 {
			t.Fatalf("after capture %d, %d loose objects: over PackAfter (40) and not packed", i, n)
		}
		packs, _ := filepath.Glob(filepath.Join(objects, "pack", "*.pack"))
		packed = packed || len(packs) > 0
	}
	if !packed {
		t.Fatal("12 captures of 4 new files each and the shadow repository was never packed")
	}
	fsckClean(t, info.GitDir)
	restore(t, m, ws, "t1", first.Commit)
	if got := readFile(t, ws, "d0/f0.txt"); got != "run 0 file 0\n" {
		t.Errorf("after restoring the first checkpoint d0/f0.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "d0", "f5.txt")); err == nil {
		t.Error("after restoring the first checkpoint a later file is still there")
	}
}

// A workspace inside a git repository is the user's: nexus never packs it.
func TestUserRepositoryIsNotPacked(t *testing.T) {
	repo := newRepo(t)
	m := newManager(t, Options{PackAfter: 1})
	for i := range 3 {
		writeFile(t, repo, fmt.Sprintf("f%d.txt", i), "x\n")
		capture(t, m, repo, "t1", fmt.Sprintf("run/%d", i))
	}
	if packs, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "*.pack")); len(packs) > 0 {
		t.Fatalf("nexus packed the user's repository: %v", packs)
	}
}
