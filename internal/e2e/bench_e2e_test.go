package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/host"
)

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func pct(ds []time.Duration, p float64) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[int(float64(len(ds)-1)*p)]
}

// BenchmarkRunThreeStepPlan times `nexus run` of a three-step plan on the
// sim model, process start to exit, against `nexus version` measured in
// the same run (target: <= 25x).
func BenchmarkRunThreeStepPlan(b *testing.B) {
	var base, runs []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command(nexusBin, "version").Run(); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(t0))
		dir := b.TempDir()
		c := exec.Command(nexusBin, "--state-dir", filepath.Join(dir, "state"), "run",
			"write a to a.txt and write b to b.txt and write c to c.txt", "--yes")
		c.Dir = dir
		t0 = time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		runs = append(runs, time.Since(t0))
	}
	mb, mr := median(base), median(runs)
	b.ReportMetric(float64(mr.Microseconds())/1000, "run-ms")
	b.ReportMetric(float64(mb.Microseconds())/1000, "version-ms")
	b.ReportMetric(float64(mr)/float64(mb), "x-version")
}

var stampRE = regexp.MustCompile(`\b(1[0-9]{18})\b`)

// BenchmarkCommandOutputLatency measures how long after a command writes a
// line its output reaches subscribers (live) and the journal (durable and
// published): the command prints nanosecond timestamps; a client
// subscribed over the socket compares them with its clock (target: 50 ms).
func BenchmarkCommandOutputLatency(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "state")
	// The workspace must not hold the state dir (nexus refuses it).
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	serve := exec.Command(nexusBin, "--state-dir", dir, "serve")
	serve.Dir = root
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { syscall.Kill(-serve.Process.Pid, syscall.SIGKILL); serve.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var c *api.Client
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if c, err = api.Dial(ctx, filepath.Join(dir, host.SocketName), time.Second); err == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer c.Close()
	sub, err := c.Subscribe(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	var live, journal []time.Duration
	seen, steps := map[string]bool{}, map[string]bool{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(nexusBin, "--state-dir", dir, "run", "--yes",
			"run `for i in 1 2 3 4 5 6 7 8 9 10; do date +%s%N; sleep 0.05; done`")
		cmd.Dir = ws
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		exited := false
	loop:
		for {
			var idle <-chan time.Time
			if exited {
				idle = time.After(200 * time.Millisecond)
			}
			select {
			case <-idle:
				break loop
			case ev := <-sub.Events:
				now := time.Now().UnixNano()
				if n := ev.Payload.Node; n != nil && n.Kind == "worker_step" {
					steps[n.ID] = true
				}
				if !steps[ev.Node] {
					continue // the reply quotes the output later; only the step's own output counts
				}
				for _, m := range stampRE.FindAllString(ev.Payload.Text, -1) {
					ts, _ := strconv.ParseInt(m, 10, 64)
					key := strconv.FormatUint(ev.Seq, 10) + m
					if ev.Seq == 0 && ev.Type == "node.delta" {
						live = append(live, time.Duration(now-ts))
					} else if ev.Type == "node.text" && !seen[key] {
						seen[key] = true
						journal = append(journal, time.Duration(now-ts))
					}
				}
			case err := <-done:
				if err != nil {
					b.Fatal(err)
				}
				exited, done = true, nil // drain what is already delivered
			}
		}
	}
	b.StopTimer()
	if len(live) == 0 || len(journal) == 0 {
		b.Fatalf("no timestamps seen: live %d journal %d", len(live), len(journal))
	}
	b.ReportMetric(float64(pct(live, 0.5).Microseconds())/1000, "live-p50-ms")
	b.ReportMetric(float64(pct(live, 0.99).Microseconds())/1000, "live-p99-ms")
	b.ReportMetric(float64(pct(journal, 0.5).Microseconds())/1000, "journal-p50-ms")
	b.ReportMetric(float64(pct(journal, 0.99).Microseconds())/1000, "journal-p99-ms")
}
