package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/failpoint"
	"github.com/nexus-tui/nexus/internal/host"
)

// TestFailpoints kills the host at every named failpoint (the N-th hit,
// for several N and workload seeds), restarts it, finishes the workload
// and checks the crash invariants each time: nothing acknowledged lost, a
// valid chain, snapshots equal to replay, no effect twice.
func TestFailpoints(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	for _, name := range failpoint.Names {
		if strings.HasPrefix(name, "rollback.") || strings.HasPrefix(name, "mission.") {
			continue // TestE2ERollbackCrash and TestMissionCrash drive these
		}
		for _, nth := range []int{1, 2, 4} {
			seed := int64(len(name)*100 + nth)
			t.Run(fmt.Sprintf("%s:%d", name, nth), func(t *testing.T) {
				root := t.TempDir()
				ws, dir := filepath.Join(root, "ws"), filepath.Join(root, "state")
				os.MkdirAll(ws, 0o755)
				writes := watchWrites(t, ws)
				ops := workload(rand.New(rand.NewSource(seed)), ws, 40, true)
				r := &runner{t: t, ops: ops, acked: map[string]bool{}}
				cmd := exec.Command(bin, "--state-dir", dir, "serve")
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "NEXUS_SNAPSHOT_EVERY=20", "NEXUS_FAILPOINT="+fmt.Sprintf("%s:%d", name, nth))
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				ctx := context.Background()
				var c *api.Client
				for start := time.Now(); ; {
					var err error
					if c, err = api.Dial(ctx, filepath.Join(dir, host.SocketName), time.Second); err == nil {
						break
					}
					if time.Since(start) > 20*time.Second {
						t.Fatalf("host did not come up: %v", err)
					}
					time.Sleep(5 * time.Millisecond)
				}
				advanced := make(chan bool, 1)
				go func() { advanced <- r.advance(ctx, c) }()
				var err error
				select {
				case err = <-exited:
				case <-time.After(60 * time.Second):
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					t.Fatalf("failpoint %s:%d was never hit", name, nth)
				}
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its workers too
				c.Close()
				ee, ok := err.(*exec.ExitError)
				if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("host ended with %v, not killed at the failpoint", err)
				}
				<-advanced
				checkCrashInvariants(t, seed, 0, dir, ws, r, writes)
				h, _ := startCrashHost(t, dir, ws)
				r.advance(ctx, h.c)
				for _, o := range ops {
					if o.thread != "" && !r.settle(ctx, h.c, o.thread) {
						t.Fatal("the host went away while settling")
					}
				}
				h.kill()
				checkCrashInvariants(t, seed, 1, dir, ws, r, writes)
			})
		}
	}
}

var (
	fpOnce sync.Once
	fpBin  string
	fpErr  error
)

// failpointBinary builds nexus with the failpoints tag once per test run.
func failpointBinary(t *testing.T) string {
	t.Helper()
	fpOnce.Do(func() {
		fpBin = filepath.Join(filepath.Dir(nexusBin), "nexus-failpoints")
		args := []string{"build", "-tags", "failpoints", "-o", fpBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			fpErr = fmt.Errorf("building with failpoints: %v\n%s", err, out)
		}
	})
	if fpErr != nil {
		t.Fatal(fpErr)
	}
	return fpBin
}

// TestServeExitsWhenItsKernelDies: when the journal's disk dies under
// `nexus serve` (an append fails, and so does the reload that would
// recover from it), the host does not keep serving with a dead kernel:
// it exits 1 with the error on stderr, and the command that hit it fails.
func TestServeExitsWhenItsKernelDies(t *testing.T) {
	t.Parallel()
	bin := failpointBinary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	cmd := exec.Command(bin, "--state-dir", dir, "serve")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NEXUS_FAILPOINT_EIO=store.append:1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		c, err := api.Dial(context.Background(), filepath.Join(dir, host.SocketName), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the host did not come up: %v", err)
		}
	}
	client := exec.Command(bin, "--state-dir", dir, "thread", "new")
	client.Env = os.Environ()
	out, err := client.CombinedOutput()
	if err == nil {
		t.Fatalf("thread new on a dead disk succeeded: %s", out)
	}
	select {
	case err := <-exited:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("serve ended with %v, want exit 1; stderr: %s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("serve kept running with a dead kernel; stderr: %s", stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "kernel failed") || !strings.Contains(s, "input/output error") {
		t.Fatalf("serve's stderr does not say why it stopped: %q", s)
	}
}
