package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// backgroundEnv is an env whose nexus processes start and use a
// background host, as a user's do. The host is stopped when the test
// ends, whatever happened (CI leaves nothing running).
func backgroundEnv(t *testing.T, linger string) *env {
	e := newEnv(t)
	e.extra = []string{"NEXUS_HOST_MODE=background", "NEXUS_HOST_LINGER=" + linger}
	t.Cleanup(func() {
		if pid := e.servingPID(); pid > 0 {
			e.run("host", "stop", "--force")
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return e
}

// hostStatus is `nexus host status --json`.
type hostStatus struct {
	Running    bool   `json:"running"`
	PID        int    `json:"pid"`
	Background bool   `json:"background"`
	Linger     string `json:"linger"`
	Live       struct {
		Runs, Requests, Terminals int
	} `json:"live"`
}

func (e *env) hostStatus() hostStatus {
	e.t.Helper()
	var st hostStatus
	if err := json.Unmarshal([]byte(e.must("host", "status", "--json")), &st); err != nil {
		e.t.Fatal(err)
	}
	return st
}

// servingPID is the pid of the host answering on the state dir, or 0.
func (e *env) servingPID() int {
	r := e.run("host", "status", "--json")
	var st hostStatus
	if r.code != 0 || json.Unmarshal([]byte(r.out), &st) != nil || !st.Running {
		return 0
	}
	return st.PID
}

// The agents outlive the commands that started them: a send killed with
// SIGKILL mid-run (an ssh drop takes the terminal and its processes) does
// not stop the run, which the background host finishes; the host reports
// it as live work, refuses to stop without --force while it runs, stops
// when asked once it is done, and a later command starts a new one.
func TestBackgroundHostOutlivesItsCommands(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "10m")
	th := e.must("thread", "new", "--title", "demo", "--yes")
	st := e.hostStatus()
	if !st.Running || !st.Background || st.PID <= 0 || st.Linger != "10m0s" {
		t.Fatalf("after thread new: %+v; want a background host lingering 10m", st)
	}
	first := st.PID
	send := e.bg("send", th, "#slow=4s write hello to a.txt")
	eventually(t, "the run to start", func() bool {
		r := e.show(th).Runs
		return len(r) == 1 && r[0].Status == "running"
	})
	syscall.Kill(-send.c.Process.Pid, syscall.SIGKILL)
	<-send.done
	if st := e.hostStatus(); st.PID != first || st.Live.Runs != 1 {
		t.Fatalf("after the send was killed: %+v; want host %d still running the run", st, first)
	}
	if r := e.run("host", "stop"); r.code == 0 || !strings.Contains(r.err, "live work (1 run)") {
		t.Fatalf("host stop with a run going: exit %d %q; want a refusal naming the run", r.code, r.err)
	}
	eventually(t, "the run to complete in the background", func() bool {
		r := e.show(th).Runs
		return len(r) == 1 && r[0].Status == "completed"
	})
	if b, err := os.ReadFile(filepath.Join(e.ws, "a.txt")); err != nil || strings.TrimSpace(string(b)) != "hello" {
		t.Fatalf("a.txt after the run: %q %v", b, err)
	}
	if out := e.must("host", "stop"); !strings.Contains(out, "stopped host") {
		t.Fatalf("host stop: %q", out)
	}
	if alive(first) {
		t.Fatalf("host %d still runs after host stop", first)
	}
	if out := e.must("verify"); !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify after the host stopped: %q", out)
	}
	e.must("send", th, "list the files")
	if st := e.hostStatus(); !st.Running || st.PID == first {
		t.Fatalf("after a new send: %+v; want a new background host", st)
	}
	// verify and export go through a running host.
	if out := e.must("verify"); !strings.HasPrefix(out, "ok:") {
		t.Fatalf("verify through the host: %q", out)
	}
	if out := e.must("export", filepath.Join(t.TempDir(), "journal.export")); !strings.Contains(out, "exported") {
		t.Fatalf("export through the host: %q", out)
	}
}

// A background host with nothing to do leaves when its linger ends.
func TestBackgroundHostLeavesAfterItsLinger(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "0")
	th := e.must("thread", "new")
	e.must("send", th, "list the files")
	// The host may be gone already (linger 0, and nothing polls): its
	// log names it.
	b, _ := os.ReadFile(filepath.Join(e.dir, "host.log"))
	// The last host the log names is the one send started (thread new's
	// may have come and gone before it).
	all := regexp.MustCompile(`background host serving .* \(pid (\d+),`).FindAllSubmatch(b, -1)
	if all == nil {
		t.Fatalf("host.log names no background host after send:\n%s", b)
	}
	pid, _ := strconv.Atoi(string(all[len(all)-1][1]))
	// Nothing needs it: no client, no live work, linger 0. The first
	// client's grace is over once a client has come and gone.
	for deadline := time.Now().Add(60 * time.Second); alive(pid); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("host %d still runs a minute after its last client, with linger 0", pid)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "host.log")); !strings.Contains(string(b), "stopped") {
		t.Fatalf("host.log does not record the stop:\n%s", b)
	}
}

// The tmux promise: closing the terminal the UI runs in (SIGHUP: the
// tmux session is killed, as an ssh drop does) or killing the UI stops no
// agent. A slow run and a shell loop keep going in the background host,
// and Claude Code keeps its approval; a new UI finds them, the loop still
// counting, and answering the approval completes Claude's run.
func TestBackgroundHostOutlivesTheUI(t *testing.T) {
	needCLI(t, "claude") // sets the environment: not parallel
	e := backgroundEnv(t, "10m")
	// The host the first command starts gets the fake model from its
	// environment (no t.Setenv: the test runs in parallel).
	model := startFakeModel(t, anthropicAPI)
	e.extra = append(e.extra, "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=fake-key")
	th := e.must("thread", "new", "--title", "slow", "--yes")
	sh := e.must("thread", "new", "--provider", "shell", "--title", "loop")
	cl := e.must("thread", "new", "--provider", "claude", "--title", "claude", "--workspace", e.ws)
	if r := e.run("send", cl, "run: touch allowed.txt"); r.code != 3 {
		t.Fatalf("send to claude needing approval: exit %d, want 3: %s %s", r.code, r.out, r.err)
	}
	vars := append([]string{"NEXUS_SHELL_COMMAND=sh", "PS1=$ "}, e.extra...)
	for _, kill := range []string{"SIGHUP", "SIGKILL"} {
		tt := e.startTUIEnv(t, vars...)
		tt.waitFor("client of pid")
		tt.waitFor("Threads (3)")
		if kill == "SIGHUP" {
			e.bg("send", sh, "i=0; while true; do i=$((i+1)); echo tick $i > ticks; sleep 0.2; done")
			e.bg("send", th, "#slow=5s write hello to a.txt")
			eventually(t, "the slow run to start", func() bool {
				r := e.show(th).Runs
				return len(r) == 1 && r[0].Status == "running"
			})
		}
		ui := tt.uiPID()
		if kill == "SIGHUP" {
			tt.tmux("kill-server") // the terminal goes away: SIGHUP to the UI
		} else {
			syscall.Kill(ui, syscall.SIGKILL)
		}
		for deadline := time.Now().Add(30 * time.Second); alive(ui); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the UI survived %s", kill)
			}
		}
		ticks := func() string {
			b, _ := os.ReadFile(filepath.Join(e.ws, "ticks"))
			return strings.TrimSpace(string(b))
		}
		before := ticks()
		eventually(t, "the shell loop to keep counting after "+kill, func() bool { return ticks() != before && ticks() != "" })
	}
	eventually(t, "the slow run to complete without a UI", func() bool {
		r := e.show(th).Runs
		return len(r) == 1 && r[0].Status == "completed"
	})
	if b, err := os.ReadFile(filepath.Join(e.ws, "a.txt")); err != nil || strings.TrimSpace(string(b)) != "hello" {
		t.Fatalf("a.txt: %q %v", b, err)
	}
	tt := e.startTUIEnv(t, vars...)
	tt.waitFor("client of pid")
	tt.waitFor("loop")
	if st := e.hostStatus(); st.Live.Terminals != 1 || st.Live.Requests != 1 {
		t.Fatalf("host status after the UIs went: %+v; want the shell's terminal live and Claude's approval pending", st)
	}
	// Claude Code's approval outlived both UIs: answered in the third,
	// it completes the run the first send started.
	tt.keys("C-o") // the request shows in the composer area, ready for its digit
	tt.waitFor("1 allow once")
	tt.keys("1")
	eventually(t, "the Claude run to complete after the approval", func() bool {
		r := e.show(cl).Runs
		return len(r) == 1 && r[0].Status == "completed"
	})
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	// Quitting asks (the shell's run is active), and back on the plain
	// terminal says what keeps running.
	tt.keys("C-c")
	tt.waitFor("They keep running in the background host")
	tt.keys("y")
	if code := tt.waitExit(); code != "0" {
		t.Fatalf("the UI exited %s", code)
	}
	// The line may have scrolled above the pane: read its history, the
	// wrapped line joined.
	want := "nexus: 1 run, 1 live terminal keep running in the background host"
	eventually(t, "the line saying what keeps running", func() bool {
		return strings.Contains(tt.tmux("capture-pane", "-p", "-J", "-S", "-100", "-t", "main"), want)
	})
}

// uiPID is the pid of the nexus UI the tmux pane runs: the child of the
// pane's shell.
func (tt *tmuxTUI) uiPID() int {
	tt.t.Helper()
	shell := strings.TrimSpace(tt.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join("/proc", shell, "task", shell, "children"))
		var pid int
		if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
			return pid
		}
	}
	tt.t.Fatalf("no nexus process under the pane's shell %s", shell)
	return 0
}

// An agent that holds its approval in its own process (Claude Code) is
// not lost when the command that asked exits 3: the background host the
// send started keeps the agent and its request, and `nexus respond`
// completes the run, waiting for it as send does.
func TestBackgroundHostKeepsAnAgentsApproval(t *testing.T) {
	needCLI(t, "claude")
	anthropicModel(t)
	e := backgroundEnv(t, "10m")
	th := e.must("thread", "new", "--provider", "claude", "--workspace", e.ws)
	res := e.run("send", th, "run: touch allowed.txt")
	if res.code != 3 {
		t.Fatalf("send needing approval: exit %d, want 3: %s %s", res.code, res.out, res.err)
	}
	q := strings.TrimSpace(res.out)
	host := e.hostStatus()
	if !host.Running || host.Live.Requests != 1 {
		t.Fatalf("after send exited 3: host %+v; want a background host holding the request", host)
	}
	out := e.must("respond", q, "--allow")
	if !strings.Contains(out, "tool said") {
		t.Fatalf("respond printed %q; want the run's reply", out)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "allowed.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	if v := e.show(th); v.Runs[0].Status != "completed" || len(v.Runs[0].Attempts) != 1 {
		t.Fatalf("run 1: %s in %d attempts; want completed in the one the send started", v.Runs[0].Status, len(v.Runs[0].Attempts))
	}
	if st := e.hostStatus(); st.PID != host.PID {
		t.Fatalf("the host changed from %d to %d", host.PID, st.PID)
	}
}

// A UI whose background host dies (kill -9) says so, starts the next
// host, names its pid in the status line, and goes on working.
func TestUIReconnectsToTheNextHost(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "10m")
	e.must("thread", "new", "--title", "demo", "--yes")
	first := e.servingPID()
	tt := e.startTUIEnv(t, e.extra...)
	tt.waitFor(fmt.Sprintf("client of pid %d", first))
	syscall.Kill(first, syscall.SIGKILL)
	var second int
	eventually(t, "a new host after the first was killed", func() bool {
		second = e.servingPID()
		return second > 0 && second != first
	})
	tt.waitFor(fmt.Sprintf("client of pid %d", second))
	tt.text("write again to b.txt")
	tt.keys("Enter")
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(e.ws, "b.txt")); err == nil && strings.TrimSpace(string(b)) == "again" {
			break
		}
		if time.Now().After(deadline) {
			code, _ := os.ReadFile(tt.exitTo)
			log, _ := os.ReadFile(filepath.Join(e.dir, "host.log"))
			t.Fatalf("the run on the new host did not write b.txt (the UI's exit code: %q); host.log:\n%s\nthe screen is:\n%s",
				code, log, tt.screen())
		}
	}
	tt.quitIdle()
}

// Each thread keeps its own draft, and the drafts outlive the UI: typed
// in two threads, the terminal closed (SIGHUP), a new UI shows each one
// in its thread.
func TestUIDraftsOutliveTheUI(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "10m")
	e.must("thread", "new", "--title", "first")
	e.must("thread", "new", "--title", "second")
	tt := e.startTUIEnv(t, e.extra...)
	tt.waitFor("Threads (2)")
	tt.text("half a thought for second")
	tt.waitFor("half a thought for second")
	tt.keys("M-Up")
	tt.waitFor("Message → first")
	tt.text("draft for first")
	tt.waitFor("draft for first")
	ui := tt.uiPID()
	tt.tmux("kill-server")
	for deadline := time.Now().Add(30 * time.Second); alive(ui); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the UI survived its terminal")
		}
	}
	tt = e.startTUIEnv(t, e.extra...)
	tt.waitFor("Threads (2)")
	tt.waitFor("half a thought for second")
	tt.keys("M-Up")
	tt.waitFor("draft for first")
	if strings.Contains(tt.screen(), "half a thought") {
		t.Fatalf("the second thread's draft shows on the first:\n%s", tt.screen())
	}
}
