package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/cli"
)

// nexusBin is the binary the end-to-end tests run as real processes.
var nexusBin string

func TestMain(m *testing.M) {
	// The suites read the repository's testdata and build the binary
	// from the module root, two levels up from this package.
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "nexus-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	nexusBin = filepath.Join(dir, "nexus")
	// No test reads the developer's own config file: each nexus these
	// tests start sees an empty config dir unless the test says otherwise.
	os.Unsetenv("NEXUS_CONFIG")
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	// The first nexus on a state dir hosts in process unless a test asks
	// for a background host (e2e_background_test.go): a background host
	// outlives the command that started it, and these tests count on
	// every host ending with the processes they started.
	os.Setenv("NEXUS_HOST_MODE", "inline")
	args := []string{"build", "-o", nexusBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building nexus for the end-to-end tests: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	out, err string
	code     int
}

// env is one state dir with helpers to run nexus against it.
type env struct {
	t   *testing.T
	dir string
	ws  string
	// extra is added to every nexus's environment (after the test's
	// own, so it wins).
	extra []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, dir: filepath.Join(root, "state"), ws: filepath.Join(root, "ws")}
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stopHosts)
	return e
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(nexusBin, append([]string{"--state-dir", e.dir}, args...)...)
	c.Dir = e.ws
	c.Env = append(append(os.Environ(), "NO_COLOR=1"), e.extra...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// run runs nexus to completion with a generous deadline.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runStdin("", args...)
}

// runStdin runs nexus with the given standard input.
func (e *env) runStdin(stdin string, args ...string) result {
	e.t.Helper()
	c := e.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
		e.t.Fatalf("nexus %v did not finish in 60s; stderr: %s", args, se.String())
	}
	return result{out: so.String(), err: se.String(), code: c.ProcessState.ExitCode()}
}

// must runs nexus and fails the test unless it exits 0.
func (e *env) must(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("nexus %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.out, r.err)
	}
	return strings.TrimSpace(r.out)
}

// bg starts nexus in the background; wait collects its result.
type bgProc struct {
	c      *exec.Cmd
	so, se lockedBuffer
	done   chan struct{}
}

// lockedBuffer is a bytes.Buffer safe to read while the child writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (e *env) bg(args ...string) *bgProc {
	e.t.Helper()
	p := &bgProc{c: e.cmd(args...), done: make(chan struct{})}
	p.c.Stdout, p.c.Stderr = &p.so, &p.se
	if err := p.c.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.c.Wait(); close(p.done) }()
	return p
}

func (p *bgProc) wait(t *testing.T) result {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		syscall.Kill(-p.c.Process.Pid, syscall.SIGKILL)
		<-p.done
		t.Fatalf("background nexus did not finish; stderr: %s", p.se.String())
	}
	return result{out: p.so.String(), err: p.se.String(), code: p.c.ProcessState.ExitCode()}
}

func (e *env) stopHosts() {
	// Kill any host left serving this state dir (a failed test must not
	// leak processes).
	pid, err := os.ReadFile(filepath.Join(e.dir, "host.pid"))
	if err == nil {
		var n int
		// Not this process: a test may host in-process, and a pid file
		// left by a closed host can still name it.
		if _, err := fmt.Sscan(string(pid), &n); err == nil && n > 0 && n != os.Getpid() {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// show returns `thread show --json` decoded.
func (e *env) show(thread string) cli.ThreadView {
	e.t.Helper()
	var v cli.ThreadView
	if err := json.Unmarshal([]byte(e.must("thread", "show", thread, "--json")), &v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// Generous: the suite runs under -race with other tests in parallel.
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

var requestIDRE = regexp.MustCompile(`(?m)^R\d+$`)

// lastEvent returns the seq and raw JSON of the journal's last event.
func (e *env) lastEvent() string {
	e.t.Helper()
	out := e.must("log", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
