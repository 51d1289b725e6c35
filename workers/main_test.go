package workers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests run real worker processes: the test binary re-executes
// itself as `nexus worker` when this variable is set, so they do not
// depend on the rest of the nexus binary building.
const workerEnv = "NEXUS_WORKERS_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		err := RunProcess(context.Background(), os.Args[1:], os.Stdin, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "test worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workerVars make the test binary a worker; under -race they also stop
// the race runtime's one-second sleep at exit.
var workerVars = []string{workerEnv + "=1", "GORACE=atexit_sleep_ms=0"}

// workerCommand is the argv that starts the test binary as a worker.
func workerCommand() []string { return []string{os.Args[0]} }

func newTestPool(t testing.TB, ws string, mods ...func(*PoolConfig)) *Pool {
	t.Helper()
	cfg := PoolConfig{Command: workerCommand(), Env: append([]string(nil), workerVars...), Workspace: ws, KillGrace: time.Second}
	for _, m := range mods {
		m(&cfg)
	}
	p, err := NewPool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startRaw starts one worker process that the test talks to directly,
// so it can send requests the pool would never send (bad tokens).
func startRaw(t *testing.T, ws string, key []byte) *proc {
	t.Helper()
	w, err := startProc(workerCommand(), append(os.Environ(), workerVars...), ws, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop(2 * time.Second) })
	return w
}

var rawID struct {
	sync.Mutex
	n int
}

func (p *proc) send(t *testing.T, ex Execute) Result {
	t.Helper()
	rawID.Lock()
	rawID.n++
	id := strconv.Itoa(rawID.n)
	rawID.Unlock()
	if ex.TimeoutMS == 0 {
		ex.TimeoutMS = 10_000
	}
	res, sent := p.do(context.Background(), id, ex, time.Second, nil)
	if !sent {
		t.Fatal("could not send to the worker")
	}
	return res
}

func tempWorkspace(t testing.TB) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustExec(t testing.TB, p *Pool, st Step, onCP func(Checkpoint)) Result {
	t.Helper()
	if st.Task == "" {
		st.Task = "task-" + t.Name()
	}
	res, err := p.Execute(context.Background(), st, onCP)
	if err != nil {
		t.Fatalf("Execute %s: %v", st.Action, err)
	}
	return res
}

// groupMembers lists the live processes of process group pgid, from
// /proc/*/stat. Zombies count as gone: they run nothing, and in a
// container nothing may reap them.
func groupMembers(t testing.TB, pgid int) []string {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no process group to look for (pgid %d): the step never reported one", pgid)
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			out = append(out, s[:i+1])
		}
	}
	return out
}

// waitGroupGone waits up to d for group pgid to have no live process.
func waitGroupGone(t testing.TB, pgid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := groupMembers(t, pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has %d processes: %v", pgid, len(left), left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
