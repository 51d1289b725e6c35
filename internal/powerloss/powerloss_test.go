package powerloss

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// The tests run code that touches the mount through mmap in a child
// process (this test binary again, with helperEnv set): a page fault on
// a FUSE mount served by the same Go process can deadlock against the
// garbage collector's stop-the-world, because a thread in a fault does
// not stop until the serving goroutines run.
const helperEnv = "POWERLOSS_TEST_HELPER"

func TestMain(m *testing.M) {
	if args := os.Getenv(helperEnv); args != "" {
		if err := helper(strings.Fields(args)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mount mounts a fresh backing dir; it fails (never skips) where FUSE
// is unavailable, saying what to do.
func mount(t *testing.T) (m *FS, backing, mnt string) {
	t.Helper()
	if err := Check(); err != nil {
		t.Fatalf("this test needs FUSE: %v", err)
	}
	root := t.TempDir()
	backing, mnt = filepath.Join(root, "backing"), filepath.Join(root, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unmount() })
	return m, backing, mnt
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCutKeepsWhatWasFsynced(t *testing.T) {
	m, backing, mnt := mount(t)
	// a: fsynced, then overwritten, extended and truncated.
	a, err := os.Create(filepath.Join(mnt, "a"))
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("hello world")
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	a.WriteAt([]byte("J"), 0)
	a.WriteString(", and more")
	a.Truncate(3)
	a.Truncate(100)
	a.Close()
	// b: never fsynced.
	os.WriteFile(filepath.Join(mnt, "b"), []byte("lost"), 0o644)
	// c: fsynced after its last write.
	c, _ := os.Create(filepath.Join(mnt, "c"))
	c.WriteString("kept")
	syscall.Fdatasync(int(c.Fd()))
	c.Close()
	// The names are durable only once the directory is fsynced.
	syncDir(t, mnt)
	if m.Fsyncs() != 2 {
		t.Errorf("served %d fsyncs, want 2", m.Fsyncs())
	}
	if got := readFile(t, filepath.Join(backing, "a")); len(got) != 100 || !strings.HasPrefix(got, "Jel") {
		t.Fatalf("before the cut the backing file holds %q, want every write passed through", got)
	}
	loss, err := m.Cut()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a": "hello world", "b": "", "c": "kept"} {
		if got := readFile(t, filepath.Join(backing, name)); got != want {
			t.Errorf("after the cut %s = %q, want %q (what was fsynced)", name, got, want)
		}
	}
	if fmt.Sprint(loss.Files) != "[a b]" || loss.Changes < 5 {
		t.Errorf("loss = %+v, want files [a b] and at least 5 changes", loss)
	}
}

func TestUnmountKeepsEverything(t *testing.T) {
	m, backing, mnt := mount(t)
	os.WriteFile(filepath.Join(mnt, "x"), []byte("unsynced"), 0o644)
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(backing, "x")); got != "unsynced" {
		t.Fatalf("after a clean unmount x = %q", got)
	}
}

// TestMmapSeesWrites checks what bbolt relies on: a file written with
// pwrite through the mount reads back the new bytes through a shared
// mmap of it, before and after the file grows.
func TestMmapSeesWrites(t *testing.T) {
	_, _, mnt := mount(t)
	runHelper(t, "mmap", filepath.Join(mnt, "m"))
}

// TestBoltCommitsSurviveOnlyWithSync is the layer's proof that it bites:
// bbolt commits over the mount survive a cut when bbolt fsyncs, and are
// gone, leaving the last synced commit intact, when it does not.
func TestBoltCommitsSurviveOnlyWithSync(t *testing.T) {
	for _, nosync := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosync=%v", nosync), func(t *testing.T) {
			m, backing, mnt := mount(t)
			runHelper(t, "bolt", filepath.Join(mnt, "j.db"), strconv.FormatBool(nosync))
			loss, err := m.Cut()
			if err != nil {
				t.Fatal(err)
			}
			db, err := bolt.Open(filepath.Join(backing, "j.db"), 0o600, nil)
			if err != nil {
				t.Fatalf("open after the cut: %v", err)
			}
			defer db.Close()
			var keys []string
			err = db.View(func(tx *bolt.Tx) error {
				for err := range tx.Check() {
					return err
				}
				b := tx.Bucket([]byte("b"))
				if b == nil {
					return nil
				}
				return b.ForEach(func(k, _ []byte) error { keys = append(keys, string(k)); return nil })
			})
			if err != nil {
				t.Fatalf("bbolt check after the cut: %v", err)
			}
			want := "[k0 k1 k2 k3 k4 k5 k6 k7 k8 k9]"
			if nosync {
				want = "[k0]"
			}
			if fmt.Sprint(keys) != want {
				t.Fatalf("after the cut the db holds %v, want %v (loss %+v)", keys, want, loss)
			}
			if nosync && loss.Changes == 0 {
				t.Fatal("the cut took nothing back from a db that never fsynced")
			}
		})
	}
}

func runHelper(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join(args, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper %v: %v\n%s", args, err, out)
	}
}

func helper(args []string) error {
	switch args[0] {
	case "mmap":
		return mmapHelper(args[1])
	case "bolt":
		return boltHelper(args[1], args[2] == "true")
	}
	return fmt.Errorf("unknown helper %q", args[0])
}

func mmapHelper(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	const size = 1 << 20
	if err := f.Truncate(size); err != nil {
		return err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, 4*size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap over the mount: %w", err)
	}
	defer syscall.Munmap(data)
	for i, off := range []int64{0, 4096, size - 5, size + 8192} {
		if off >= size {
			if err := f.Truncate(2 * size); err != nil {
				return err
			}
		}
		want := []byte(fmt.Sprintf("w%d", i))
		if _, err := f.WriteAt(want, off); err != nil {
			return err
		}
		if got := data[off : off+int64(len(want))]; !bytes.Equal(got, want) {
			return fmt.Errorf("mmap at %d reads %q after pwrite of %q", off, got, want)
		}
	}
	return nil
}

func boltHelper(path string, nosync bool) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: 16 << 10})
	if err != nil {
		return err
	}
	// bbolt does not fsync the directory that names its new file.
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return err
	}
	for i := range 10 {
		if i == 1 {
			// bbolt also fsyncs when it grows the file, unless told not to.
			db.NoSync, db.NoGrowSync = nosync, nosync
		}
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte(fmt.Sprintf("k%d", i)), bytes.Repeat([]byte{byte(i)}, 20000))
		})
		if err != nil {
			return err
		}
	}
	// Exit without Close, as a killed process would.
	return nil
}
