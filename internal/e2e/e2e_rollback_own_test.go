package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// Two threads in one directory, and a person: a rollback of thread A
// changes only what A changed. Its run's file list and `nexus diff` hold
// A's own paths and count the others; rolling A back leaves B's files
// and a hand edit alone; a path B changed after A is kept (exit 1, named)
// unless --force, and --undo brings B's version back byte for byte. In a
// git repository and in a plain directory (shadow repository).
func TestE2ERollbackTouchesOnlyItsThread(t *testing.T) {
	t.Parallel()
	for _, repo := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", repo), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if repo {
				e.initRepo(map[string]string{"kept.txt": "committed\n"})
			}
			a := e.must("thread", "new", "--title", "A", "--yes")
			b := e.must("thread", "new", "--title", "B", "--yes")
			e.must("send", a, "write one to a.txt")
			e.must("send", b, "write bee to b.txt")
			e.must("send", a, "replace one with two in a.txt and write see to c.txt")
			e.writeWS(map[string]string{"hand.txt": "by hand\n"})

			cp := findCheckpoint(e.show(a), core.RunScope(2))
			if cp == nil || describeFiles(cp.Files) != "a.txt M +1 -1, c.txt A +1 -0" || !cp.Own || cp.Outside != 1 {
				t.Fatalf("A's run 2 checkpoint %+v; want a.txt and c.txt as its own, b.txt counted outside", cp)
			}
			diff := e.must("diff", a, "--run", "2")
			if strings.Contains(diff, "b.txt") || !strings.Contains(diff, "c.txt") || !strings.Contains(diff, "1 other change(s) in the directory") {
				t.Fatalf("diff of A's run 2 shows B's file or hides that there was one:\n%s", diff)
			}

			// B edits a.txt after A's run 2.
			e.must("send", b, "replace two with bee-two in a.txt")
			bVersion, _ := e.readWS("a.txt")
			before := snapshotWS(t, e.ws)
			r := e.run("rollback", a, "--to-run", "1")
			if r.code != 1 || !strings.Contains(r.err, "kept 1 path(s) changed since by hand or by another thread: a.txt") {
				t.Fatalf("rollback of A over B's edit: exit %d %q %q; want exit 1 naming a.txt", r.code, r.out, r.err)
			}
			for path, want := range map[string]string{"a.txt": bVersion, "b.txt": "bee\n", "hand.txt": "by hand\n"} {
				if got, _ := e.readWS(path); got != want {
					t.Errorf("after A's rollback %s = %q, want %q (not A's to change)", path, got, want)
				}
			}
			if _, ok := e.readWS("c.txt"); ok {
				t.Fatal("c.txt, which A's run 2 wrote, survived A's rollback")
			}
			// The undo puts back only what the rollback changed: c.txt.
			if out := e.must("rollback", a, "--undo"); !strings.Contains(out, "files: 1 file(s) restored, 0 removed") {
				t.Fatalf("undo said %q; want it to restore c.txt alone", out)
			}
			if got := snapshotWS(t, e.ws); got != before {
				t.Fatalf("undo: the workspace is\n%s\nwant\n%s", got, before)
			}

			// --force overwrites B's edit with A's run-1 a.txt; undo
			// brings B's back byte for byte.
			e.must("rollback", a, "--to-run", "1", "--force")
			if got, _ := e.readWS("a.txt"); got != "one\n" {
				t.Fatalf("a.txt = %q after the forced rollback, want A's run 1 version", got)
			}
			if got, _ := e.readWS("b.txt"); got != "bee\n" {
				t.Fatalf("the forced rollback changed B's b.txt to %q", got)
			}
			e.must("rollback", a, "--undo")
			if got := snapshotWS(t, e.ws); got != before {
				t.Fatalf("undo of the forced rollback: the workspace is\n%s\nwant\n%s", got, before)
			}
		})
	}
}

// A person edits with vim in a shell thread of the same directory while
// a built-in run is under way (waiting on its approval, so the edit is
// forced inside the run): the run's file list holds its own file, not
// the vim file, which it counts as another change.
func TestE2EShellEditIsNotTheRunsFile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("vim"); err != nil {
		t.Fatal("vim is not installed: install vim (apt-get install vim) to run this test; the README's test command does")
	}
	e := backgroundEnv(t, "10m")
	e.extra = append(e.extra, "NEXUS_SHELL_COMMAND=bash --norc --noprofile", "HISTFILE=/dev/null")
	bt := e.must("thread", "new", "--title", "agent")
	sh := e.must("thread", "new", "--provider", "shell", "--title", "sh")
	r := e.run("send", bt, "write hi to x.txt")
	if r.code != 3 {
		t.Fatalf("send a write: exit %d, want 3 (its approval waits): %s", r.code, r.err)
	}
	req := strings.TrimSpace(r.out)
	e.must("send", sh, `vim -u NONE -N -es -c "call writefile(['from vim'], 'vim.txt')" -c "qa!"`)
	eventually(t, "vim to write vim.txt", func() bool {
		b, err := os.ReadFile(filepath.Join(e.ws, "vim.txt"))
		return err == nil && strings.TrimSpace(string(b)) == "from vim"
	})
	if v := e.show(bt); len(v.Runs) != 1 || v.Runs[0].Status != "waiting" {
		t.Fatalf("the run is not under way while vim writes: %+v", v.Runs)
	}
	e.must("respond", req, "--allow")
	cp := findCheckpoint(e.show(bt), core.RunScope(1))
	if cp == nil || describeFiles(cp.Files) != "x.txt A +1 -0" || cp.Outside < 1 {
		t.Fatalf("the run's checkpoint %+v; want x.txt alone as its own and vim.txt counted outside", cp)
	}
}
