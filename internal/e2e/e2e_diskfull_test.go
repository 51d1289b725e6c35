package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestE2EDiskFull fills a small tmpfs state dir: the append that does not
// fit gets a clear error and acknowledges nothing, and the journal stays
// intact (verify passes, every acknowledged message is there).
func TestE2EDiskFull(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts a small tmpfs: run the tests as root (the README's test command does on CI machines)")
	}
	root := t.TempDir()
	mnt := filepath.Join(root, "small")
	os.MkdirAll(mnt, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v %s (the test needs mount rights)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	e := &env{t: t, dir: filepath.Join(mnt, "state"), ws: filepath.Join(root, "ws")}
	os.MkdirAll(e.ws, 0o755)
	t.Cleanup(e.stopHosts)
	serve := e.bg("serve")
	eventually(t, "host serving", func() bool { return strings.Contains(serve.so.String(), "serving") })
	th := e.must("thread", "new", "--title", "full")
	big := strings.Repeat("x", 250<<10)
	acked := 0
	var last result
	for i := 0; i < 200; i++ {
		last = e.runStdin(big+" #fail", "send", th, "-", "--mode", "queue", "--no-wait")
		if last.code != 0 {
			break
		}
		acked++
	}
	if last.code != 1 || !strings.Contains(last.err, "no space left") || !strings.Contains(last.err, "nothing was recorded") {
		t.Fatalf("after %d messages: exit %d, stderr %q; want a clear disk-full error", acked, last.code, last.err)
	}
	if acked == 0 {
		t.Fatal("not one message fit: the test proves nothing")
	}
	serve.c.Process.Signal(syscall.SIGTERM)
	serve.wait(t)
	// Make room the way a user would, then check nothing acknowledged is
	// lost and the journal is intact.
	exec.Command("mount", "-o", "remount,size=64m", mnt).Run()
	if out := e.must("verify"); !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify after disk full: %q", out)
	}
	if got := len(e.show(th).Runs); got != acked {
		t.Fatalf("%d runs journaled, %d acknowledged", got, acked)
	}
}
