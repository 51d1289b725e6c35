package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// procUsage is what a process used so far, summed over its threads:
// CPU time on a core (schedstat, in nanoseconds) and context switches
// (each a wake-up or a preemption).
func procUsage(pid int) (cpu time.Duration, switches int64) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, task := range tasks {
		if b, err := os.ReadFile(filepath.Join(task, "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				cpu += time.Duration(ns)
			}
		}
		b, err := os.ReadFile(filepath.Join(task, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				switches += n
			} else if rest, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				switches += n
			}
		}
	}
	return cpu, switches
}

// idleWindow is how long each idle benchmark measures:
// NEXUS_BENCH_IDLE_SECONDS (the 60), else 5 s.
func idleWindow() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("NEXUS_BENCH_IDLE_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 5 * time.Second
}

// countingReader counts the bytes a terminal receives.
type countingReader struct{ n atomic.Int64 }

func (c *countingReader) drain(r io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		c.n.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// BenchmarkIdle measures what nexus costs while nothing happens: a host
// (`nexus serve`) and the UI (its client, on a 120x40 PTY of its own) in
// separate processes, with 8 shell threads (bash at its prompt) and 8
// built-in threads (one completed run each) in the list (target: host
// and UI together <= 0.1% of a core, and 0 bytes written to the
// terminal). The spinner case adds a shell thread whose run waits on
// `sleep` (target: <= 0.5% of a core). Baseline in the same run: a
// process that only sleeps. CPU and context switches come from /proc
// (schedstat and status, summed over threads) over idleWindow.
func BenchmarkIdle(b *testing.B) {
	dir := b.TempDir()
	state := filepath.Join(dir, "state")
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	bashCmd := "bash --norc --noprofile -i"
	env := append(os.Environ(), bashEnv...)
	env = append(env, "NEXUS_SHELL_COMMAND="+bashCmd)
	nexus := func(args ...string) *exec.Cmd {
		c := exec.Command(nexusBin, append([]string{"--state-dir", state}, args...)...)
		c.Env, c.Dir = env, ws
		return c
	}
	host := nexus("serve")
	if err := host.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { host.Process.Signal(syscall.SIGTERM); host.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for nexus("host", "status").Run() != nil {
		if time.Now().After(deadline) {
			b.Fatal("nexus serve did not answer within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var wg sync.WaitGroup
	var shells []string
	for i := range 16 {
		args := []string{"thread", "new", "--title", fmt.Sprintf("builtin %d", i)}
		msg := "list the files"
		if i < 8 {
			args = append(args, "--provider", "shell")
			args[3] = fmt.Sprintf("shell %d", i)
			msg = "echo ready"
		}
		out, err := nexus(args...).Output()
		if err != nil {
			b.Fatalf("thread new: %v", err)
		}
		id := strings.TrimSpace(string(out))
		if i < 8 {
			shells = append(shells, id)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := nexus("send", id, msg).CombinedOutput(); err != nil {
				b.Errorf("send %s: %v\n%s", id, err, out)
			}
		}()
	}
	wg.Wait()

	ui := nexus()
	uiTTY, err := pty.StartWithSize(ui, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { ui.Process.Kill(); ui.Wait(); uiTTY.Close() }()
	written := &countingReader{}
	go written.drain(uiTTY)
	settle := func() {
		// Quiet for a second: the first frames and the attach are done.
		last, quietSince := written.n.Load(), time.Now()
		for time.Since(quietSince) < time.Second {
			time.Sleep(100 * time.Millisecond)
			if n := written.n.Load(); n != last {
				last, quietSince = n, time.Now()
			}
		}
	}
	sleeper := exec.Command("sleep", "3600")
	if err := sleeper.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()

	measure := func(name string) {
		win := idleWindow()
		pids := map[string]int{"host": host.Process.Pid, "ui": ui.Process.Pid, "sleep": sleeper.Process.Pid}
		cpu0, sw0 := map[string]time.Duration{}, map[string]int64{}
		for k, pid := range pids {
			cpu0[k], sw0[k] = procUsage(pid)
		}
		w0, t0 := written.n.Load(), time.Now()
		time.Sleep(win)
		el := time.Since(t0)
		var together float64
		for k, pid := range pids {
			cpu, sw := procUsage(pid)
			pct := 100 * float64(cpu-cpu0[k]) / float64(el)
			if k != "sleep" {
				together += pct
			}
			b.ReportMetric(pct, name+"-"+k+"-cpu-%")
			b.ReportMetric(float64(sw-sw0[k])/el.Seconds(), name+"-"+k+"-switches/s")
		}
		b.ReportMetric(together, name+"-together-cpu-%")
		b.ReportMetric(float64(written.n.Load()-w0), name+"-bytes-written")
	}
	for range b.N {
		settle()
		measure("idle")
	}
	// One run active: the spinner turns.
	spin := nexus("send", shells[0], "sleep 3600")
	if err := spin.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	time.Sleep(2 * time.Second) // the run starts; the spinner never lets the screen go quiet
	for range b.N {
		measure("spinner")
	}
	b.ReportMetric(0, "ns/op")
}
