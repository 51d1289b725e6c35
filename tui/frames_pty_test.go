//go:build !windows && !race

// Not built with the race detector: Bubble Tea v2.1.1's shutdown closes
// the input's cancel reader after a bounded wait for its read loop, so a
// slow (race-instrumented) read loop is still reading when the file is
// closed, a race inside the library, not in nexus. .ci/test runs this
// file's test without -race.

package tui

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/nexus-tui/nexus/core"
)

// The real program on a PTY: the first frame, a key typed and drawn, a
// resize drawn at the new size, and the terminal given back at the end
// (the alternate screen left). Under -race it drives the event loop, the
// painter and the resize watcher together.
func TestRunDrawsOnAPTY(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no PTY on this machine: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		buf := make([]byte, 1<<16)
		for {
			n, err := ptm.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	seen := func(what string, from int) int {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if i := strings.Index(s[from:], what); i >= 0 {
				return from + i + len(what)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q never reached the terminal; it got %q", what, s[from:])
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	j := newJournal(t)
	j.thread("t1", "on a pty", core.ThreadIdle, 0, sec)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		env := []string{"TERM=xterm-256color", "HOME=" + t.TempDir()}
		done <- Run(ctx, &benchBackend{st: j.st, feed: make(chan core.Event)},
			Options{StateDir: t.TempDir(), HostLabel: "pty", IO: IO{Input: pts, Output: pts, Env: env}})
	}()
	at := seen("\x1b[?1049h", 0) // the alternate screen
	at = seen("on a pty", at)
	time.Sleep(100 * time.Millisecond) // keys before the first frame would be read as replies
	ptm.WriteString("Z")
	at = seen("Z", at)
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	// The PTY is not this process's controlling terminal: the kernel
	// signals its session, so the test sends the SIGWINCH itself. A
	// resize clears the screen and redraws it whole.
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	at = seen("\x1b[2J", at)
	at = seen("on a pty", at)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after its context ended")
	}
	seen("\x1b[?1049l", at) // the alternate screen left
}
