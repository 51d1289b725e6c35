package workers

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// workerPid asks a worker for its own pid: the shell's parent.
func workerPid(t *testing.T, p *Pool, n int) int {
	t.Helper()
	res := mustExec(t, p, Step{N: n, Action: ActionRunCommand, Args: Args{Command: "echo $PPID"}}, nil)
	pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
	if err != nil {
		t.Fatalf("echo $PPID = %+v", res)
	}
	return pid
}

func TestPoolReusesWarmWorkerAndRestartsDeadOne(t *testing.T) {
	ws := tempWorkspace(t)
	writeFile(t, ws+"/a.txt", "a")
	p := newTestPool(t, ws)
	first := workerPid(t, p, 1)
	if again := workerPid(t, p, 2); again != first {
		t.Fatalf("second step ran on worker %d, not the warm %d", again, first)
	}
	var pgid int
	res := mustExec(t, p, Step{N: 3, Action: ActionRunCommand, Args: Args{Command: "echo start; sleep 0.2; kill -9 $PPID; sleep 30"}},
		func(c Checkpoint) {
			if c.Artifacts.PGID > 0 {
				pgid = c.Artifacts.PGID
			}
		})
	if res.Status != StatusError || !strings.Contains(res.Error, "worker died") {
		t.Fatalf("step whose worker was killed = %+v, want error \"worker died\"", res)
	}
	waitGroupGone(t, pgid, 2*time.Second)
	res = mustExec(t, p, Step{N: 4, Action: ActionReadFile, Args: Args{Path: "a.txt"}}, nil)
	if res.Status != StatusOK || res.Output != "a" {
		t.Fatalf("step after the restart = %+v", res)
	}
	if next := workerPid(t, p, 5); next == first {
		t.Fatal("the dead worker was reused")
	}
}

func TestPoolCapsConcurrency(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws, func(c *PoolConfig) { c.Max = 2 })
	var wg sync.WaitGroup
	start := time.Now()
	pids := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.Execute(context.Background(), Step{Task: "cap", N: i, Action: ActionRunCommand, Args: Args{Command: "sleep 0.3; echo $PPID"}}, nil)
			if err != nil || res.Status != StatusOK {
				t.Errorf("step %d: %+v, %v", i, res, err)
			}
			pids[i] = res.Output
		}()
	}
	wg.Wait()
	if d := time.Since(start); d < 550*time.Millisecond {
		t.Fatalf("4 steps of 0.3 s on 2 workers took %s: more than 2 ran at once", d)
	}
	distinct := map[string]bool{}
	for _, pid := range pids {
		distinct[pid] = true
	}
	if len(distinct) > 2 {
		t.Fatalf("%d worker processes for Max 2: %v", len(distinct), pids)
	}
}

func TestPoolWorkspacesAndEviction(t *testing.T) {
	a, b := tempWorkspace(t), tempWorkspace(t)
	writeFile(t, a+"/f", "in a")
	writeFile(t, b+"/f", "in b")
	p := newTestPool(t, a, func(c *PoolConfig) { c.Max = 1 })
	for i, tc := range []struct{ ws, want string }{{"", "in a"}, {b, "in b"}, {a, "in a"}} {
		res := mustExec(t, p, Step{N: i, Action: ActionReadFile, Args: Args{Path: "f"}, Workspace: tc.ws}, nil)
		if res.Output != tc.want {
			t.Fatalf("step %d on %q = %+v, want %q", i, tc.ws, res, tc.want)
		}
	}
	p.mu.Lock()
	n := p.count
	p.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d workers for Max 1", n)
	}
}

func TestPoolRejectsBadStepsAndClose(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	for _, st := range []Step{
		{N: 1, Action: ActionReadFile},
		{Task: "t", N: 1, Action: "format_disk"},
		{Task: "t", N: 1, Action: ActionReadFile, Workspace: ws + "/missing"},
	} {
		if _, err := p.Execute(context.Background(), st, nil); !errors.Is(err, ErrBadStep) {
			t.Errorf("Execute(%+v) = %v, want ErrBadStep", st, err)
		}
	}
	pid := workerPid(t, p, 1)
	p.Close()
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Fatalf("worker %d still exists after Close", pid)
	}
	if _, err := p.Execute(context.Background(), Step{Task: "t", N: 2, Action: ActionListDir}, nil); !errors.Is(err, ErrPoolClosed) {
		t.Fatalf("Execute after Close = %v, want ErrPoolClosed", err)
	}
}

func TestPoolCloseCancelsRunningStep(t *testing.T) {
	ws := tempWorkspace(t)
	p := newTestPool(t, ws)
	pgidc := make(chan int, 1)
	done := make(chan Result, 1)
	go func() {
		res, _ := p.Execute(context.Background(), Step{Task: "t", N: 1, Action: ActionRunCommand, Args: Args{Command: "sleep 100"}},
			func(c Checkpoint) {
				if c.Artifacts.PGID > 0 {
					pgidc <- c.Artifacts.PGID
				}
			})
		done <- res
	}()
	pgid := <-pgidc
	p.Close()
	res := <-done
	if res.Status != StatusCancelled {
		t.Fatalf("step running at Close = %+v, want cancelled", res)
	}
	waitGroupGone(t, pgid, time.Second)
}

func TestPoolKillsUnresponsiveWorker(t *testing.T) {
	ws := tempWorkspace(t)
	// A "worker" that reads requests and never answers.
	p := newTestPool(t, ws, func(c *PoolConfig) {
		c.Command = []string{"/bin/sh", "-c", "cat >/dev/null", "sh"}
		c.KillGrace = 200 * time.Millisecond
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	res, err := p.Execute(ctx, Step{Task: "t", N: 1, Action: ActionListDir}, nil)
	if err != nil || res.Status != StatusCancelled || !strings.Contains(res.Error, "was killed") {
		t.Fatalf("cancelled step on a silent worker = %+v, %v", res, err)
	}
	res, err = p.Execute(context.Background(), Step{Task: "t", N: 2, Action: ActionListDir, Timeout: 100 * time.Millisecond}, nil)
	if err != nil || res.Status != StatusTimeout || !strings.Contains(res.Error, "was killed") {
		t.Fatalf("step past its timeout on a silent worker = %+v, %v", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	p.mu.Lock()
	n := p.count
	p.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d killed workers still counted", n)
	}
}
