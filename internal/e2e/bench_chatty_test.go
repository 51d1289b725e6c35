package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/nexus-tui/nexus/internal/cli"
)

// chattyLoop is what each chatty agent runs inside its turn: an 80-byte
// numbered line every 100 ms, for as long as the benchmark lasts.
const chattyLoop = `i=0; while :; do i=$((i+1)); printf 'chatty %07d %s\n' $i ` +
	`xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; sleep 0.1; done`

// chattyLineRE finds the numbered lines in a transcript.
var chattyLineRE = regexp.MustCompile(`chatty (\d{7}) x{64}`)

// chattyWindow is how long each measurement lasts (NEXUS_BENCH_WINDOW,
// seconds); chattyLate is when the late window of the growth benchmark
// starts (NEXUS_BENCH_LATE, seconds after the early one ends).
func chattyDuration(name string, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(os.Getenv(name)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return def
}

// chattyNexus is the real nexus (UI and host in one process, 120x40 on a
// PTY the benchmark reads like a terminal) with n shell threads, each
// running chattyLoop inside a turn.
type chattyNexus struct {
	b       *testing.B
	bin     string // nexusBin, or NEXUS_BENCH_BIN (another build to compare)
	state   string
	env     []string
	proc    *exec.Cmd
	tty     *os.File
	written atomic.Int64 // bytes the UI wrote to its terminal
	threads []string
}

func startChattyNexus(b *testing.B, n int, grid bool) *chattyNexus {
	b.Helper()
	dir := b.TempDir()
	c := &chattyNexus{b: b, bin: nexusBin, state: filepath.Join(dir, "state")}
	if bin := os.Getenv("NEXUS_BENCH_BIN"); bin != "" {
		c.bin = bin
	}
	c.env = append(os.Environ(), bashEnv...)
	c.env = append(c.env, "NEXUS_SHELL_COMMAND=bash --norc --noprofile -i", "NEXUS_HOST_MODE=inline")
	for i := range n {
		c.threads = append(c.threads, c.must("thread", "new", "--provider", "shell", "--title", fmt.Sprintf("chatty%d", i)))
	}
	c.proc = exec.Command(c.bin, "--state-dir", c.state)
	c.proc.Env = c.env
	tty, err := pty.StartWithSize(c.proc, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	c.tty = tty
	go func() {
		buf := make([]byte, 64<<10)
		for {
			k, err := tty.Read(buf)
			c.written.Add(int64(k))
			if err != nil {
				return
			}
		}
	}()
	b.Cleanup(c.stop)
	time.Sleep(time.Second) // the first frame; keys before it would be read as replies
	for _, th := range c.threads {
		c.must("send", "--no-wait", th, chattyLoop)
	}
	if grid {
		tty.WriteString("\x07") // ctrl+g: the grid
	}
	time.Sleep(3 * time.Second) // every loop is printing, the grid is up
	return c
}

// must runs a nexus command (a client of the UI's host) to completion.
func (c *chattyNexus) must(args ...string) string {
	c.b.Helper()
	cmd := exec.Command(c.bin, append([]string{"--state-dir", c.state}, args...)...)
	cmd.Env = c.env
	out, err := cmd.Output()
	if err != nil {
		c.b.Fatalf("nexus %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// stop ends the UI the way a person does (SIGTERM: the host stops its
// shells), killing it only if it does not.
func (c *chattyNexus) stop() {
	c.proc.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { c.proc.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		c.proc.Process.Kill()
		<-done
	}
	c.tty.Close()
}

// chattySample is one measurement window.
type chattySample struct {
	cpu       float64 // percent of a core, the nexus process
	termBytes int64   // written to the terminal
	diskBytes int64   // written to storage (/proc/PID/io write_bytes)
	textBytes int     // agent output journaled in the window
	secs      float64
}

// sample measures one window of d.
func (c *chattyNexus) sample(d time.Duration) chattySample {
	c.b.Helper()
	pid := c.proc.Process.Pid
	text0 := c.textBytes(false)
	cpu0, disk0, term0, t0 := procCPU(c.b, pid, false), procWriteBytes(c.b, pid), c.written.Load(), time.Now()
	time.Sleep(d)
	cpu1, disk1, term1, t1 := procCPU(c.b, pid, false), procWriteBytes(c.b, pid), c.written.Load(), time.Now()
	text1 := c.textBytes(false)
	wall := t1.Sub(t0)
	return chattySample{cpu: 100 * float64(cpu1-cpu0) / float64(wall), termBytes: term1 - term0,
		diskBytes: disk1 - disk0, textBytes: text1 - text0, secs: wall.Seconds()}
}

// textBytes is the journaled text of every thread; check: every numbered
// line from the first to the last is in it, none missing.
func (c *chattyNexus) textBytes(check bool) int {
	c.b.Helper()
	total := 0
	for _, th := range c.threads {
		var v cli.ThreadView
		if err := json.Unmarshal([]byte(c.must("thread", "show", th, "--json")), &v); err != nil {
			c.b.Fatal(err)
		}
		var text strings.Builder
		for _, r := range v.Runs {
			for _, a := range r.Attempts {
				for _, n := range a.Nodes {
					text.WriteString(n.Text)
				}
			}
		}
		total += text.Len()
		if !check {
			continue
		}
		next := 1
		for _, m := range chattyLineRE.FindAllStringSubmatch(text.String(), -1) {
			k, _ := strconv.Atoi(m[1])
			if k != next {
				c.b.Fatalf("thread %s: line %d follows line %d in the transcript", th, k, next-1)
			}
			next++
		}
		if next < 10 {
			c.b.Fatalf("thread %s: only %d lines in the transcript", th, next-1)
		}
	}
	return total
}

// procCPU is a process's user and system time; children adds what its
// waited-for children used (a shell's sleeps).
func procCPU(b *testing.B, pid int, children bool) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name (which may hold spaces) start at
	// state; utime, stime, cutime, cstime are fields 14-17.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ticks := 0
	last := 13
	if children {
		last = 15
	}
	for i := 11; i <= last; i++ {
		v, _ := strconv.Atoi(f[i])
		ticks += v
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// procWriteBytes is /proc/PID/io's write_bytes: what the process caused
// to be written to storage.
func procWriteBytes(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		b.Skipf("no /proc/%d/io: %v", pid, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "write_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Skip("no write_bytes in /proc/PID/io")
	return 0
}

// bareChatty is the baseline: n bash processes running chattyLoop on
// bare PTYs the benchmark reads and discards. Their own CPU is what the
// agents cost without nexus; stop ends them.
func bareChatty(b *testing.B, n int) (cpu func() time.Duration, stop func()) {
	b.Helper()
	var procs []*exec.Cmd
	for range n {
		p := exec.Command("bash", "--norc", "--noprofile", "-i")
		p.Env = append(os.Environ(), bashEnv...)
		tty, err := pty.StartWithSize(p, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			b.Fatal(err)
		}
		go io.Copy(io.Discard, tty)
		tty.WriteString(chattyLoop + "\r")
		procs = append(procs, p)
		b.Cleanup(func() { p.Process.Kill(); p.Wait(); tty.Close() })
	}
	cpu = func() time.Duration {
		var sum time.Duration
		for _, p := range procs {
			sum += procCPU(b, p.Process.Pid, true)
		}
		return sum
	}
	return cpu, func() {
		for _, p := range procs {
			p.Process.Kill()
		}
	}
}

// baselineCPU is the bare agents' CPU over one window, percent of a core.
func baselineCPU(b *testing.B, n int, window time.Duration) float64 {
	cpu, stop := bareChatty(b, n)
	defer stop()
	time.Sleep(2 * time.Second) // every loop is printing
	c0, t0 := cpu(), time.Now()
	time.Sleep(window)
	return 100 * float64(cpu()-c0) / float64(time.Since(t0))
}

// BenchmarkChatty measures chatty agents inside running turns: n shell
// threads each print an 80-byte line every 100 ms (chattyLoop), in the
// main view (the selected thread's transcript) or the grid. It reports
// the CPU of the nexus process (UI and host together), the bytes it
// writes to its terminal and to disk, and checks afterwards that every
// line is in each thread's transcript, none missing. Baseline in the
// same run: the same n loops in bare PTYs read and discarded (their own
// CPU, what the agents cost without nexus).
//
//	go test ./internal/e2e -run XXX -bench BenchmarkChatty -benchtime 1x
func BenchmarkChatty(b *testing.B) {
	window := chattyDuration("NEXUS_BENCH_WINDOW", 10*time.Second)
	for _, tc := range []struct {
		name string
		n    int
		grid bool
	}{{"4-main", 4, false}, {"4-grid", 4, true}, {"8-grid", 8, true}} {
		b.Run(tc.name, func(b *testing.B) {
			base := baselineCPU(b, tc.n, window)
			c := startChattyNexus(b, tc.n, tc.grid)
			var s chattySample
			for range b.N {
				s = c.sample(window)
			}
			b.StopTimer()
			c.textBytes(true)
			b.ReportMetric(s.cpu, "nexus-cpu-%")
			b.ReportMetric(base, "agents-cpu-%")
			b.ReportMetric(s.cpu/base, "x-agents")
			b.ReportMetric(float64(s.termBytes)/s.secs/1000, "term-kB/s")
			b.ReportMetric(float64(s.textBytes)/s.secs/1000, "text-kB/s")
			if s.textBytes > 0 {
				b.ReportMetric(float64(s.diskBytes)/float64(s.textBytes), "disk-B/text-B")
			}
		})
	}
}

// BenchmarkChattyGrowth measures whether the grid's cost grows with the
// run's length: 8 chatty threads inside turns in the grid, the CPU of a
// window early in the run against one NEXUS_BENCH_LATE seconds later
// (default 120; the target is 10 minutes). Baseline: the early
// window of the same run.
//
//	go test ./internal/e2e -run XXX -bench BenchmarkChattyGrowth -benchtime 1x -timeout 30m
func BenchmarkChattyGrowth(b *testing.B) {
	window := chattyDuration("NEXUS_BENCH_WINDOW", 10*time.Second)
	late := chattyDuration("NEXUS_BENCH_LATE", 120*time.Second)
	c := startChattyNexus(b, 8, true)
	var early, later chattySample
	for range b.N {
		early = c.sample(window)
		time.Sleep(late)
		later = c.sample(window)
	}
	b.StopTimer()
	c.textBytes(true)
	b.ReportMetric(early.cpu, "early-cpu-%")
	b.ReportMetric(later.cpu, "late-cpu-%")
	b.ReportMetric(later.cpu/early.cpu, "x-early")
}
