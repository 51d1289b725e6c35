package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	pid := e.servingPID()
	if pid <= 0 {
		t.Fatal("no background host after send")
	}
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
