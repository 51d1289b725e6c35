package powerloss

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syncDir fsyncs the directory at path, which makes its entries durable.
func syncDir(t *testing.T, path string) {
	t.Helper()
	d, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatalf("fsync dir %s: %v", path, err)
	}
}

// put writes data to the file at path (creating it), fsyncing it if sync.
func put(t *testing.T, path, data string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree lists the backing dir: a file as its contents, a dir as "/".
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			got[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(path)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestCutUndoesEntries checks each rule of the directory model: a change
// to a directory's entries survives a cut only if that directory was
// fsynced after it, and an fsync of a file does not make its name
// durable. Each case starts from a durable tree: file "old" holding
// "old", dir "d" holding file "d/in" holding "in".
func TestCutUndoesEntries(t *testing.T) {
	start := map[string]string{"old": "old", "d": "/", "d/in": "in"}
	for _, c := range []struct {
		name string
		do   func(t *testing.T, mnt string)
		want map[string]string // the whole tree after the cut; nil: start
	}{
		{"created, file fsynced, dir not: gone", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "new"), "data", true)
		}, nil},
		{"created and dir fsynced: there with its fsynced data", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "new"), "synced", true)
			syncDir(t, mnt)
			f, err := os.OpenFile(filepath.Join(mnt, "new"), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			f.WriteString(" and not")
			f.Close()
		}, map[string]string{"new": "synced"}},
		{"created, dir fsynced, file not: there and empty", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "new"), "data", false)
			syncDir(t, mnt)
		}, map[string]string{"new": ""}},
		{"unlinked, dir not fsynced: back with its durable content", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "old"), "unsynced", false)
			must(t, os.Remove(filepath.Join(mnt, "old")))
		}, nil},
		{"unlinked, dir fsynced: gone", func(t *testing.T, mnt string) {
			must(t, os.Remove(filepath.Join(mnt, "old")))
			syncDir(t, mnt)
		}, map[string]string{"old": "-"}},
		{"renamed, dir not fsynced: back under the old name", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "old"), filepath.Join(mnt, "moved")))
		}, nil},
		{"renamed, dir fsynced: under the new name", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "old"), filepath.Join(mnt, "moved")))
			syncDir(t, mnt)
		}, map[string]string{"old": "-", "moved": "old"}},
		{"renamed over an existing file, dir not fsynced: both back", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "d", "in"), filepath.Join(mnt, "old")))
		}, nil},
		{"temp file renamed over, dir fsynced: the new content", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "old.tmp"), "new", true)
			must(t, os.Rename(filepath.Join(mnt, "old.tmp"), filepath.Join(mnt, "old")))
			syncDir(t, mnt)
		}, map[string]string{"old": "new"}},
		{"temp file renamed over, file not fsynced: empty", func(t *testing.T, mnt string) {
			put(t, filepath.Join(mnt, "old.tmp"), "new", false)
			must(t, os.Rename(filepath.Join(mnt, "old.tmp"), filepath.Join(mnt, "old")))
			syncDir(t, mnt)
		}, map[string]string{"old": ""}},
		{"moved across dirs, only the source fsynced: lost", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "d", "in"), filepath.Join(mnt, "in")))
			syncDir(t, filepath.Join(mnt, "d"))
		}, map[string]string{"d/in": "-"}},
		{"moved across dirs, only the target fsynced: in both", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "d", "in"), filepath.Join(mnt, "in")))
			syncDir(t, mnt)
		}, map[string]string{"in": "in"}},
		{"moved across dirs, both fsynced: moved", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "d", "in"), filepath.Join(mnt, "in")))
			syncDir(t, mnt)
			syncDir(t, filepath.Join(mnt, "d"))
		}, map[string]string{"in": "in", "d/in": "-"}},
		{"mkdir, new dir and its file fsynced, parent not: gone", func(t *testing.T, mnt string) {
			must(t, os.Mkdir(filepath.Join(mnt, "e"), 0o755))
			put(t, filepath.Join(mnt, "e", "f"), "f", true)
			syncDir(t, filepath.Join(mnt, "e"))
		}, nil},
		{"mkdir, all fsynced: there", func(t *testing.T, mnt string) {
			must(t, os.MkdirAll(filepath.Join(mnt, "e", "g"), 0o755))
			put(t, filepath.Join(mnt, "e", "g", "f"), "f", true)
			syncDir(t, filepath.Join(mnt, "e", "g"))
			syncDir(t, filepath.Join(mnt, "e"))
			syncDir(t, mnt)
		}, map[string]string{"e": "/", "e/g": "/", "e/g/f": "f"}},
		{"mkdir, parent fsynced only: there and empty", func(t *testing.T, mnt string) {
			must(t, os.Mkdir(filepath.Join(mnt, "e"), 0o755))
			put(t, filepath.Join(mnt, "e", "f"), "f", true)
			syncDir(t, mnt)
		}, map[string]string{"e": "/"}},
		{"dir emptied and removed, nothing fsynced: back whole", func(t *testing.T, mnt string) {
			must(t, os.RemoveAll(filepath.Join(mnt, "d")))
		}, nil},
		{"dir emptied and removed, parent fsynced: gone", func(t *testing.T, mnt string) {
			must(t, os.RemoveAll(filepath.Join(mnt, "d")))
			syncDir(t, mnt)
		}, map[string]string{"d": "-", "d/in": "-"}},
		{"dir made in a temp name and renamed into place, as checkpoints do", func(t *testing.T, mnt string) {
			must(t, os.Mkdir(filepath.Join(mnt, ".tmp"), 0o755))
			put(t, filepath.Join(mnt, ".tmp", "f"), "f", true)
			syncDir(t, filepath.Join(mnt, ".tmp"))
			must(t, os.Rename(filepath.Join(mnt, ".tmp"), filepath.Join(mnt, "e")))
			syncDir(t, mnt)
		}, map[string]string{"e": "/", "e/f": "f"}},
		{"dir renamed, parent not fsynced: back under its old name", func(t *testing.T, mnt string) {
			must(t, os.Rename(filepath.Join(mnt, "d"), filepath.Join(mnt, "e")))
			put(t, filepath.Join(mnt, "e", "new"), "new", true)
		}, nil},
		{"hard link, dir not fsynced: gone; original unlinked and synced", func(t *testing.T, mnt string) {
			must(t, os.Link(filepath.Join(mnt, "old"), filepath.Join(mnt, "d", "link")))
			must(t, os.Remove(filepath.Join(mnt, "old")))
			syncDir(t, mnt)
		}, map[string]string{"old": "-"}},
		{"symlink, dir fsynced: there", func(t *testing.T, mnt string) {
			must(t, os.Symlink("old", filepath.Join(mnt, "sym")))
			syncDir(t, mnt)
		}, map[string]string{"sym": "old"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, backing, mnt := mount(t)
			must(t, m.Unmount())
			must(t, os.Mkdir(filepath.Join(backing, "d"), 0o755))
			put(t, filepath.Join(backing, "old"), "old", false)
			put(t, filepath.Join(backing, "d", "in"), "in", false)
			m, err := Mount(backing, mnt)
			must(t, err)
			t.Cleanup(func() { m.Unmount() })
			c.do(t, mnt)
			loss, err := m.Cut()
			must(t, err)
			want := map[string]string{}
			for k, v := range start {
				want[k] = v
			}
			for k, v := range c.want {
				want[k] = v
				if v == "-" {
					delete(want, k)
				}
			}
			got := tree(t, backing)
			if len(got) != len(want) {
				t.Errorf("after the cut the tree is %q, want %q (loss %+v)", got, want, loss)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("after the cut %s = %q, want %q (tree %q, loss %+v)", k, got[k], v, got, loss)
				}
			}
			stashes, _ := filepath.Glob(filepath.Join(filepath.Dir(backing), ".powerloss-stash-*"))
			if len(stashes) > 0 {
				t.Errorf("the cut left its stash behind: %v", stashes)
			}
		})
	}
}

// TestUnmountKeepsEntries checks that an orderly unmount keeps every
// change to directories, completing unlinks and rmdirs.
func TestUnmountKeepsEntries(t *testing.T) {
	m, backing, mnt := mount(t)
	put(t, filepath.Join(mnt, "a"), "a", false)
	must(t, os.Mkdir(filepath.Join(mnt, "d"), 0o755))
	must(t, os.Rename(filepath.Join(mnt, "a"), filepath.Join(mnt, "d", "b")))
	put(t, filepath.Join(mnt, "gone"), "x", false)
	must(t, os.Remove(filepath.Join(mnt, "gone")))
	must(t, os.Mkdir(filepath.Join(mnt, "e"), 0o755))
	must(t, os.Remove(filepath.Join(mnt, "e")))
	must(t, m.Unmount())
	got := tree(t, backing)
	if len(got) != 2 || got["d"] != "/" || got["d/b"] != "a" {
		t.Fatalf("after a clean unmount the tree is %q, want d/b = a", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(backing))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".powerloss-stash-") {
			t.Fatalf("the unmount left its stash behind: %s", e.Name())
		}
	}
}
