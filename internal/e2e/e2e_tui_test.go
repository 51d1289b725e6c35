package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/cli"
)

// tmuxTUI is the nexus TUI running in a detached tmux session on a
// private tmux server, so the test sees exactly what a person would.
type tmuxTUI struct {
	t      *testing.T
	sock   string // tmux -L name: a private server per test
	exitTo string // file the pane's shell writes the exit code to
}

// startTUI runs `nexus --state-dir DIR` in a 120x40 tmux window.
func (e *env) startTUI(t *testing.T) *tmuxTUI {
	t.Helper()
	return e.startTUIEnv(t)
}

// startTUIEnv is startTUI with extra NAME=VALUE environment variables for
// nexus (and so for the agents its host starts).
func (e *env) startTUIEnv(t *testing.T, vars ...string) *tmuxTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: install tmux (apt-get install tmux) to run the TUI end-to-end tests")
	}
	tt := &tmuxTUI{t: t, sock: fmt.Sprintf("nexus-test-%d-%d", os.Getpid(), time.Now().UnixNano()),
		exitTo: filepath.Join(t.TempDir(), "exit")}
	prefix := ""
	for _, v := range vars {
		prefix += fmt.Sprintf("%q ", v)
	}
	if prefix != "" {
		prefix = "env " + prefix
	}
	shell := fmt.Sprintf("%s%q --state-dir %q; echo $? > %q", prefix, nexusBin, e.dir, tt.exitTo)
	tt.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "-c", e.ws, shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tt.sock, "kill-server").Run() })
	// A pane whose nexus ended stays on screen (with whatever it printed
	// last, a panic's trace included) until the test ends.
	tt.tmux("set-option", "-t", "main", "remain-on-exit", "on")
	return tt
}

func (tt *tmuxTUI) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, C-n, ...); text sends literal text.
func (tt *tmuxTUI) keys(names ...string) {
	tt.t.Helper()
	tt.tmux(append([]string{"send-keys", "-t", "main"}, names...)...)
}

func (tt *tmuxTUI) text(s string) {
	tt.t.Helper()
	tt.tmux("send-keys", "-t", "main", "-l", s)
}

func (tt *tmuxTUI) screen() string {
	tt.t.Helper()
	return tt.tmux("capture-pane", "-p", "-t", "main")
}

// waitFor polls the screen until it contains want.
func (tt *tmuxTUI) waitFor(want string) {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := tt.screen()
		if strings.Contains(scr, want) {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %q on screen; the screen is:\n%s", want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitExit waits for the TUI process to exit and returns its exit code.
func (tt *tmuxTUI) waitExit() string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(tt.exitTo); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("nexus did not exit after quitting; the screen is:\n%s", tt.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTUIHostChatApproveAnswerQuit is the tmux acceptance: create
// a thread, send "hello" and see the reply, approve a #approve run with 1
// (the request shows in the composer area), answer a #ask question by
// typing, then quit and see the process exit.
func TestTUIHostChatApproveAnswerQuit(t *testing.T) {
	e := newEnv(t)
	tt := e.startTUI(t)
	tt.waitFor("No threads yet")
	tt.waitFor("host · " + e.dir)

	tt.keys("C-n")
	tt.waitFor("New thread")
	tt.text("greeting")
	tt.keys("Enter")
	tt.waitFor("Threads (1)")
	tt.waitFor("auto: start a run")

	tt.text("hello")
	tt.keys("Enter")
	tt.waitFor(`[sim] acted on: "hello"`)

	tt.text("go #approve")
	tt.keys("Enter")
	tt.waitFor("waiting for you")
	tt.waitFor("ctrl+o to answer")
	tt.waitForAll("╭─ Approval", "1 allow once", "press 1-3")
	tt.keys("1")
	tt.waitFor(`[sim] acted on: "go"`)
	tt.waitFor("allowed once")

	tt.text("pick #ask=Which colour?")
	tt.keys("Enter")
	tt.waitFor("question: Which colour?")
	tt.waitForAll("1 type an answer…", "press 1-1")
	tt.keys("1")
	tt.waitFor("enter sends")
	tt.text("blue")
	tt.keys("Enter")
	tt.waitFor(`You answered "blue" to "Which colour?"`)

	tt.quitIdle() // nothing runs: quits at once
	// The journal kept what the screen showed.
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(e.must("thread", "list", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("thread list after the TUI quit: %v, %d threads", err, len(list))
	}
	v := e.show(list[0].ID)
	if len(v.Runs) != 3 || v.Runs[2].Status != "completed" {
		t.Errorf("after the TUI quit, thread show has %d runs (last %+v), want 3 completed", len(v.Runs), v.Runs)
	}
}

// TestTUIClientQuitLeavesHostRunning attaches the TUI to `nexus serve`:
// it works as a client, and quitting it (after confirming, since a run is
// active) leaves the host and the run going.
func TestTUIClientQuitLeavesHostRunning(t *testing.T) {
	e := newEnv(t)
	host := e.bg("serve")
	defer func() {
		syscall.Kill(host.c.Process.Pid, syscall.SIGTERM)
		host.wait(t)
	}()
	eventually(t, "the host to serve", func() bool { return strings.Contains(host.so.String(), "serving") })
	th := e.must("thread", "new", "--title", "remote")

	tt := e.startTUI(t)
	tt.waitFor("client of pid")
	tt.waitFor("remote")
	tt.text("work #slow=3s")
	tt.keys("Enter")
	tt.waitFor("● 1 active")
	tt.keys("C-c")
	tt.waitFor("keep running in the")
	tt.keys("y")
	if code := tt.waitExit(); code != "0" {
		t.Fatalf("the client exited with %s, want 0", code)
	}
	select {
	case <-host.done:
		t.Fatalf("quitting the client stopped the host: %s", host.se.String())
	default:
	}
	eventually(t, "the run to complete in the host", func() bool {
		v := e.show(th)
		return len(v.Runs) == 1 && v.Runs[0].Status == "completed"
	})
}

// TestTUIRefusesBadThemeAndNoTerminal checks the UI's edge: an unknown
// --theme is a usage error naming the themes, and without a terminal the
// UI says to use the subcommands instead of hanging.
func TestTUIRefusesBadThemeAndNoTerminal(t *testing.T) {
	e := newEnv(t)
	r := e.run("--theme", "solarized")
	if r.code != cli.ExitUsage || !strings.Contains(r.err, "unknown theme") || !strings.Contains(r.err, "high-contrast") {
		t.Errorf("--theme solarized: exit %d, stderr %q; want exit 2 naming the themes", r.code, r.err)
	}
	r = e.run("tui")
	if r.code != cli.ExitUsage || !strings.Contains(r.err, "needs a terminal") {
		t.Errorf("tui without a terminal: exit %d, stderr %q; want exit 2 and a hint", r.code, r.err)
	}
}
