package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// snapshotWS describes every file of a workspace but .git: its path,
// type and mode, and its bytes or link target. Two equal snapshots are
// the same files byte for byte.
func snapshotWS(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%s link -> %s", rel, target))
		case info.IsDir():
			lines = append(lines, fmt.Sprintf("%s/ dir", rel))
		default:
			b, _ := os.ReadFile(p)
			lines = append(lines, fmt.Sprintf("%s %v %q", rel, info.Mode().Perm(), b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// runStatuses is the status of each of a thread's runs, in order.
func (e *env) runStatuses(th string) string {
	var s []string
	for _, r := range e.show(th).Runs {
		s = append(s, string(r.Status))
	}
	return strings.Join(s, ",")
}

// undoSetup: run 1 writes a.txt, run 2 edits it and writes b.txt; then
// the person edits by hand: a new executable script, a symlink, a change
// to a.txt. It returns the thread.
func undoSetup(t *testing.T, e *env) string {
	t.Helper()
	th := e.must("thread", "new", "--yes")
	e.must("send", th, "write one to a.txt")
	e.must("send", th, "replace one with two in a.txt and write bee to b.txt")
	e.writeWS(map[string]string{"hand.sh": "#!/bin/sh\necho by hand\n"})
	if err := os.Chmod(filepath.Join(e.ws, "hand.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.txt", filepath.Join(e.ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("two\nand a hand edit\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return th
}

// Every rollback can be undone, and an undo redone, and a rollback
// changes only what its thread changed: rollback to run 1 keeps the hand
// edit of a.txt (which run 2 also changed), says so and exits 1, and
// leaves the hand-made script and symlink alone; undo, undo (redo), undo
// again; then --force overwrites a.txt, and undo brings the hand edit
// back. After each step the workspace equals, byte for byte with modes
// and symlinks, what it was before the step the undo reverses, and the
// runs' statuses match. In a git repository and in a plain directory.
func TestE2ERollbackUndoRedo(t *testing.T) {
	t.Parallel()
	for _, repo := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", repo), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if repo {
				e.initRepo(map[string]string{"kept.txt": "committed\n"})
			}
			th := undoSetup(t, e)
			before, beforeRuns := snapshotWS(t, e.ws), e.runStatuses(th)
			r := e.run("rollback", th, "--to-run", "1")
			if r.code != 1 || !strings.Contains(r.out, "--undo") || !strings.Contains(r.err, "kept 1 path(s) changed since by hand or by another thread: a.txt") ||
				!strings.Contains(r.err, "--force") {
				t.Fatalf("rollback over a hand edit: exit %d, %q %q; want exit 1 naming a.txt and --force", r.code, r.out, r.err)
			}
			after, afterRuns := snapshotWS(t, e.ws), e.runStatuses(th)
			if afterRuns != "completed,rolled_back" || strings.Contains(after, "\nb.txt ") || !strings.Contains(after, `and a hand edit`) ||
				!strings.Contains(after, "hand.sh") || !strings.Contains(after, "link ->") {
				t.Fatalf("after the rollback: runs %s, files\n%s\nwant b.txt gone and the hand edit, hand.sh and link kept", afterRuns, after)
			}
			for i, want := range []struct{ files, runs, name string }{
				{before, beforeRuns, "undo"}, {after, afterRuns, "redo"}, {before, beforeRuns, "undo of the redo"},
			} {
				out := e.must("rollback", th, "--undo")
				if !strings.Contains(out, "undid") {
					t.Fatalf("%s: rollback --undo said %q", want.name, out)
				}
				if got := snapshotWS(t, e.ws); got != want.files {
					t.Fatalf("step %d, %s: the workspace is\n%s\nwant\n%s", i, want.name, got, want.files)
				}
				if got := e.runStatuses(th); got != want.runs {
					t.Fatalf("step %d, %s: runs %s, want %s", i, want.name, got, want.runs)
				}
			}
			// --force overwrites the hand edit with run 1's a.txt; undo
			// brings it back byte for byte.
			e.must("rollback", th, "--to-run", "1", "--force")
			if a, _ := e.readWS("a.txt"); a != "one\n" {
				t.Fatalf("a.txt = %q after the forced rollback, want run 1's", a)
			}
			if forced := snapshotWS(t, e.ws); !strings.Contains(forced, "hand.sh") || !strings.Contains(forced, "link ->") {
				t.Fatalf("the forced rollback removed files its thread never wrote:\n%s", forced)
			}
			e.must("rollback", th, "--undo")
			if got := snapshotWS(t, e.ws); got != before || e.runStatuses(th) != beforeRuns {
				t.Fatalf("the undo of the forced rollback: runs %s, files\n%s\nwant\n%s", e.runStatuses(th), got, before)
			}
			// Undo reverses only the last step: once a run came after
			// it, it says what to do instead.
			e.must("send", th, "list the files")
			r = e.run("rollback", th, "--undo")
			if r.code != 1 || !strings.Contains(r.err, "rollback --undo: run 3 started after") || !strings.Contains(r.err, "--to-run") {
				t.Fatalf("undo after a new run: exit %d, %q", r.code, r.err)
			}
			if repo {
				git(t, e.ws, "fsck", "--strict")
			}
		})
	}
}

// The refusals around a rollback name the command the person gave, the
// reason without empty fields, and what to do next.
func TestE2ERollbackRefusalsSayWhatToDo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	th := e.must("thread", "new", "--yes")
	e.must("send", th, "write one to a.txt")
	e.must("checkpoint", th)
	e.must("send", th, "write bee to b.txt")
	e.must("rollback", th, "--to-run", "1")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--to-run", "2"}, []string{"rollback --to-run 2: run 2 was rolled back", "--undo"}},
		{[]string{"--undo", "--to-run", "1"}, []string{"give one of"}},
	} {
		r := e.run(append([]string{"rollback", th}, c.args...)...)
		for _, w := range c.want {
			if r.code == 0 || !strings.Contains(r.err, w) || strings.Contains(r.err, ": )") || strings.Contains(r.err, "(stale:)") {
				t.Errorf("rollback %v: exit %d, %q; want it to say %q", c.args, r.code, r.err, w)
			}
		}
	}
}

// kill -9 at every failpoint of a rollback and of an undo, then `nexus
// resume`: the workspace is as after the step, never between, and
// `--undo` works afterwards.
func TestE2ERollbackUndoCrash(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	crash := func(t *testing.T, e *env, point string, args ...string) {
		t.Helper()
		crashDuring(t, bin, e, point, args...)
		e.must("resume")
	}
	for _, point := range []string{"rollback.safety", "rollback.files.before", "rollback.files.after"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			th := undoSetup(t, e)
			before, beforeRuns := snapshotWS(t, e.ws), e.runStatuses(th)

			crash(t, e, point, "rollback", th, "--to-run", "1", "--force")
			after, afterRuns := snapshotWS(t, e.ws), e.runStatuses(th)
			if afterRuns != "completed,rolled_back" || strings.Contains(after, "\nb.txt ") {
				t.Fatalf("after the resumed rollback: runs %s, files\n%s", afterRuns, after)
			}

			crash(t, e, point, "rollback", th, "--undo")
			if got := snapshotWS(t, e.ws); got != before || e.runStatuses(th) != beforeRuns {
				t.Fatalf("after the resumed undo: runs %s, files\n%s\nwant\n%s", e.runStatuses(th), got, before)
			}
			e.must("rollback", th, "--undo")
			if got := snapshotWS(t, e.ws); got != after || e.runStatuses(th) != afterRuns {
				t.Fatalf("the redo after the crashes: runs %s, files\n%s\nwant\n%s", e.runStatuses(th), got, after)
			}
		})
	}
}

// crashDuring runs a host with a failpoint that kills it (SIGKILL) and
// the command args against it, and checks the host died of it.
func crashDuring(t *testing.T, bin string, e *env, point string, args ...string) {
	t.Helper()
	serve := exec.Command(bin, "--state-dir", e.dir, "serve")
	serve.Dir = e.ws
	serve.Env = append(os.Environ(), "NEXUS_FAILPOINT="+point)
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out lockedBuffer
	serve.Stdout = &out
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "host serving", func() bool { return strings.Contains(out.String(), "serving") })
	r := e.run(args...)
	err := serve.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("%s: host ended with %v, %v said %q %q", point, err, args, r.out, r.err)
	}
}
