package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/journalgen"

	"github.com/nexus-tui/nexus/core"
)

// Child processes: flock belongs to the open file, and the lock test is
// about another process, so the test binary re-executes itself.
const (
	envLockChild   = "NEXUS_STORE_TEST_LOCK_CHILD"
	envWriterChild = "NEXUS_STORE_TEST_WRITER_CHILD"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envLockChild); dir != "" {
		os.Exit(lockChild(dir))
	}
	if dir := os.Getenv(envWriterChild); dir != "" {
		os.Exit(writerChild(dir))
	}
	code := m.Run()
	removeBenchDirs()
	os.Exit(code)
}

func lockChild(dir string) int {
	s, err := Open(dir, Options{LockTimeout: 200 * time.Millisecond})
	if err == nil {
		s.Close()
		fmt.Println("opened: the lock did not hold")
		return 1
	}
	var le *LockedError
	if !errors.As(err, &le) {
		fmt.Println("unexpected:", err)
		return 1
	}
	fmt.Printf("pid=%d\n%s\n", le.PID, err)
	return 0
}

// writerChild appends forever, printing each acknowledged seq, until it
// is killed.
func writerChild(dir string) int {
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	g := journalgen.New(uint64(s.Last()) + 77).From(s.Last())
	for {
		c := g.Next()
		if err := s.Append(context.Background(), []core.Commit{c}); err != nil {
			fmt.Println("append:", err)
			return 1
		}
		fmt.Printf("acked %d\n", s.Last())
	}
}

func child(t *testing.T, env, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+dir)
	return cmd
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	out, err := child(t, envLockChild, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("pid=%d\nstore: state dir %s is locked by process %d; stop it or use another --state-dir\n", os.Getpid(), dir, os.Getpid())
	if string(out) != want {
		t.Fatalf("child said\n%s\nwant\n%s", out, want)
	}
	s.Close()
	// Released: the same child now opens it.
	if out, err := child(t, envLockChild, dir).CombinedOutput(); err == nil || !strings.Contains(string(out), "opened") {
		t.Fatalf("after Close the child could not open: %v\n%s", err, out)
	}
}

// TestKillNineLosesNothingAcknowledged kills a writing process at a random
// moment: every seq it reported as acknowledged must be there, and the
// journal must verify.
func TestKillNineLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := child(t, envWriterChild, dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked uint64
		sc := bufio.NewScanner(stdout)
		deadline := time.Now().Add(time.Duration(100+round*70) * time.Millisecond)
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "acked "); ok {
				acked, _ = strconv.ParseUint(n, 10, 64)
			} else {
				t.Fatalf("child: %s", sc.Text())
			}
			if time.Now().After(deadline) && acked > 0 {
				break
			}
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.Verify(context.Background())
		if err != nil || !rep.OK {
			t.Fatalf("after kill -9: %+v, %v", rep, err)
		}
		if s.Last() < acked {
			t.Fatalf("acknowledged seq %d but only %d survived", acked, s.Last())
		}
		s.Close()
	}
}

func TestModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	old := syscall.Umask(0)
	s, err := Open(dir, Options{})
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for path, want := range map[string]os.FileMode{
		dir:                             0o700 | os.ModeDir,
		filepath.Join(dir, JournalFile): 0o600,
		filepath.Join(dir, PIDFile):     0o600,
	} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
}

func TestWideJournalModeIsTightened(t *testing.T) {
	dir := t.TempDir()
	openT(t, dir).Close()
	path := filepath.Join(dir, JournalFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	openT(t, dir)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode %v after open, want 0600", fi.Mode().Perm())
	}
}

func TestSymlinkedDirRefused(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	openT(t, real).Close()
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link, Options{}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("Open(symlinked dir) = %v, want ErrSymlink", err)
	}
}

func TestSymlinkedJournalRefused(t *testing.T) {
	base := t.TempDir()
	openT(t, filepath.Join(base, "real")).Close()
	dir := filepath.Join(base, "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "real", JournalFile), filepath.Join(dir, JournalFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("Open(symlinked journal) = %v, want ErrSymlink", err)
	}
	// The hook refuses it even if the pre-check were raced.
	if _, err := openJournalFile(filepath.Join(dir, JournalFile), os.O_RDWR, 0o600); !errors.Is(err, ErrSymlink) {
		t.Fatalf("openJournalFile(symlink) = %v, want ErrSymlink", err)
	}
}

func TestHardLinkedJournalRefused(t *testing.T) {
	dir := t.TempDir()
	openT(t, dir).Close()
	if err := os.Link(filepath.Join(dir, JournalFile), filepath.Join(t.TempDir(), "copy.db")); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrHardLink) || !strings.HasPrefix(err.Error(), "store: ") {
		t.Fatalf("Open(hard-linked journal) = %v, want ErrHardLink", err)
	}
}

func TestStateDirThatIsAFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Open(file) = %v", err)
	}
}

// A state dir others can write, or that belongs to another user, is
// refused with what to run; one only readable by the group is fine.
func TestStateDirTrust(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "writable by others; fix with chmod 700 "+dir) {
		t.Fatalf("open of a 777 state dir: %v", err)
	}
	os.Chmod(dir, 0o750)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("open of a 750 state dir: %v", err)
	}
	s.Close()
	if os.Getuid() == 0 {
		// Only root can give a directory away; elsewhere the mode case
		// above is what this test checks.
		if err := os.Chown(dir, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "belongs to user 4242") {
			t.Fatalf("open of another user's state dir: %v", err)
		}
	}
}
