package workers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve feeds arbitrary request paths to the workspace confinement.
// The workspace is opened through a symlink (so absolute paths under both
// names are in play) and holds symlinks that stay inside, lead outside,
// dangle, loop, and a file used as a directory. For every input, resolve
// either refuses or errs, or returns a clean relative path that stays
// inside the root and whose existing components are no symlinks: the
// path that every file operation then opens through os.Root. "@root"
// and "@given" in an input stand for the workspace's real and given
// absolute paths, which differ from run to run. Seeds live in
// testdata/fuzz/FuzzResolve.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{".", "a/b", "in/b", "out/x", "../x", "dangling", "loop/x", "a/f.txt/x",
		"/etc/passwd", "a/../../x", "new/dir/file", "in/../a/f.txt", "@given/a/f.txt", "@root/in/b", "@given/../outside"} {
		f.Add(p)
	}
	w := fuzzWorkspace(f)
	abs := strings.NewReplacer("@root", w.root, "@given", w.given)
	f.Fuzz(func(t *testing.T, p string) {
		p = abs.Replace(p)
		rel, err := w.resolve(p)
		if err != nil {
			if rel != "" {
				t.Fatalf("%q: error %v with a path %q", p, err, rel)
			}
			return
		}
		if filepath.IsAbs(rel) || rel != filepath.Clean(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("%q resolved to %q: not a clean path inside the workspace", p, rel)
		}
		full := filepath.Join(w.root, rel)
		if !within(w.root, full) {
			t.Fatalf("%q resolved to %q, outside %s", p, full, w.root)
		}
		// Every component that exists is a real directory or file, so
		// no symlink can take the operation elsewhere.
		for cur := full; cur != w.root; cur = filepath.Dir(cur) {
			fi, err := os.Lstat(cur)
			if err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Fatalf("%q resolved to %q, which goes through the symlink %s", p, rel, cur)
			}
		}
	})
}

func fuzzWorkspace(f *testing.F) *workspace {
	dir := f.TempDir()
	root, outside := filepath.Join(dir, "root"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(root, "a", "b"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a", "f.txt"), []byte("x"), 0o644); err != nil {
		f.Fatal(err)
	}
	links := map[string]string{
		"in":       "a",
		"out":      outside,
		"up":       "..",
		"dangling": "nowhere/at/all",
		"loop":     "loop",
		"a/back":   "../a",
		"a/abs":    "/",
		"given":    root,
	}
	for name, target := range links {
		at := filepath.Join(root, name)
		if name == "given" {
			at = filepath.Join(dir, name)
		}
		if err := os.Symlink(target, at); err != nil {
			f.Fatal(err)
		}
	}
	w, err := openWorkspace(filepath.Join(dir, "given"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.close() })
	return w
}
