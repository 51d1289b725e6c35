package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// timedSeqTo is a shell command line that runs `seq 1 200000` and writes
// how long it took, in microseconds as the shell measured it, to file:
// the child's own time, which a reader slower than its output stretches
// (the PTY's buffer fills and seq's writes block).
func timedSeqTo(file string) string {
	return fmt.Sprintf("s=$EPOCHREALTIME; seq 1 200000; e=$EPOCHREALTIME; echo $(( ${e/./}-${s/./} )) > %s.tmp; mv %s.tmp %s\r",
		file, file, file)
}

// waitTook waits for file and returns the duration in it.
func waitTook(b *testing.B, file string) time.Duration {
	b.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if data, err := os.ReadFile(file); err == nil {
			us, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				b.Fatalf("%s: %v", file, err)
			}
			os.Remove(file)
			return time.Duration(us) * time.Microsecond
		}
		if time.Now().After(deadline) {
			b.Fatalf("the timed command did not write %s within 60s", file)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// bashEnv is how both sides start bash: no rc files, a plain prompt.
var bashEnv = []string{"TERM=xterm-256color", "PS1=bash$ ", "HISTFILE=/dev/null"}

// BenchmarkPTYPane measures what a visible terminal pane costs the program
// in it (target: `seq 1 200000` in a visible pane finishes within 1.5x
// of its time with the PTY read and discarded).
//
// Baseline, in the same run: bash in a bare PTY (120x40) whose output the
// benchmark reads and discards. Measured: the real nexus binary (host and
// TUI in one process) on a PTY of its own (120x40) that the benchmark
// reads and discards like a fast terminal; a shell thread (bash in the
// host's PTY) zoomed, so its pane is on screen and every byte goes
// through the host's ring, the TUI's vt emulator and its frames. The
// command is typed into the pane through the TUI. Each iteration runs
// both once, alternating; the ratio is of the medians.
func BenchmarkPTYPane(b *testing.B) {
	dir := b.TempDir()
	state := filepath.Join(dir, "state")
	bashCmd := []string{"bash", "--norc", "--noprofile", "-i"}

	// Baseline bash.
	base := exec.Command(bashCmd[0], bashCmd[1:]...)
	base.Env = append(os.Environ(), bashEnv...)
	baseTTY, err := pty.StartWithSize(base, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { base.Process.Kill(); base.Wait(); baseTTY.Close() }()
	go io.Copy(io.Discard, baseTTY)

	// nexus with a zoomed shell thread.
	env := append(os.Environ(), bashEnv...)
	env = append(env, "NEXUS_SHELL_COMMAND="+strings.Join(bashCmd, " "))
	newThread := exec.Command(nexusBin, "--state-dir", state, "thread", "new", "--provider", "shell", "--title", "sh")
	newThread.Env = env
	if out, err := newThread.CombinedOutput(); err != nil {
		b.Fatalf("thread new: %v\n%s", err, out)
	}
	tui := exec.Command(nexusBin, "--state-dir", state)
	tui.Env = env
	tuiTTY, err := pty.StartWithSize(tui, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { tui.Process.Kill(); tui.Wait(); tuiTTY.Close() }()
	go io.Copy(io.Discard, tuiTTY)
	ready := filepath.Join(dir, "ready")
	time.Sleep(time.Second)                     // the TUI's first frame; keys before it would be read as replies
	fmt.Fprintf(tuiTTY, "echo 1 > %s\r", ready) // the composer: the first run starts bash
	waitTook(b, ready)
	tuiTTY.WriteString("\x06") // ctrl+f: zoom the pane
	time.Sleep(500 * time.Millisecond)

	took := filepath.Join(dir, "took")
	var discarded, watched []time.Duration
	b.ResetTimer()
	for range b.N {
		baseTTY.WriteString(timedSeqTo(took))
		discarded = append(discarded, waitTook(b, took))
		tuiTTY.WriteString(timedSeqTo(took))
		watched = append(watched, waitTook(b, took))
	}
	b.StopTimer()
	md, mw := median(discarded), median(watched)
	b.ReportMetric(float64(md.Microseconds())/1000, "discarded-ms")
	b.ReportMetric(float64(mw.Microseconds())/1000, "pane-ms")
	b.ReportMetric(float64(mw)/float64(md), "x-discarded")
}
