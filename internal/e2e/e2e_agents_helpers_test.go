package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/cli"
	"github.com/nexus-tui/nexus/internal/host"
)

// The real agent CLIs are pinned here and installed by .ci/test into
// .cache/npm (npm install --prefix .cache/npm PACKAGE@VERSION).
var pinnedCLIs = map[string][2]string{
	"claude":           {"@anthropic-ai/claude-code", "2.1.332"},
	"codex":            {"@openai/codex", "0.171.0"},
	"gemini":           {"@google/gemini-cli", "0.61.0"},
	"claude-agent-acp": {"@zed-industries/claude-agent-acp", "0.23.1"},
	"codex-acp":        {"@zed-industries/codex-acp", "0.16.0"},
}

// needCLI puts the pinned CLIs on PATH and fails, saying what to install,
// when the command is missing. It also isolates the agents' homes.
func needCLI(t *testing.T, command string) string {
	t.Helper()
	bin, _ := filepath.Abs(filepath.Join(".cache", "npm", "node_modules", ".bin"))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	path, err := exec.LookPath(command)
	if err != nil {
		pin := pinnedCLIs[command]
		t.Fatalf("%s is not installed: run .ci/test, which installs the pinned agent CLIs into .cache/npm, or "+
			"`npm install --prefix .cache/npm %s@%s`", command, pin[0], pin[1])
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	t.Setenv("GEMINI_CLI_HOME", home)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	t.Setenv("DISABLE_AUTOUPDATER", "1")
	t.Setenv("IS_SANDBOX", "1")
	t.Setenv("NEXUS_AGENT_HANDSHAKE", "60s")
	return path
}

// serve starts `nexus serve` on the env's state dir, so agent processes
// live between commands (requests of external agents need a live host);
// it returns a function that stops it with SIGTERM.
func (e *env) serve() func() {
	e.t.Helper()
	p := e.serveProc()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		syscall.Kill(p.c.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			syscall.Kill(-p.c.Process.Pid, syscall.SIGKILL)
			<-p.done
			e.t.Errorf("nexus serve did not stop on SIGTERM; stderr: %s", p.se.String())
		}
	}
	e.t.Cleanup(stop)
	return stop
}

// serveProc starts `nexus serve` and waits until it serves; the caller
// stops it.
func (e *env) serveProc() *bgProc {
	e.t.Helper()
	p := e.bg("serve")
	eventually(e.t, "the host to serve", func() bool {
		_, err := os.Stat(filepath.Join(e.dir, host.SocketName))
		return err == nil && strings.Contains(p.so.String(), "serving")
	})
	return p
}

// waitRun waits until run n of a thread has a status in want and returns
// the thread view.
func (e *env) waitRun(thread string, n int, want ...core.RunStatus) cli.ThreadView {
	e.t.Helper()
	var v cli.ThreadView
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		v = e.show(thread)
		if len(v.Runs) >= n {
			for _, w := range want {
				if v.Runs[n-1].Status == w {
					return v
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("run %d of %s never became %v: %+v", n, thread, want, v.Runs)
	return v
}

// request returns the id of the pending request of a thread's run.
func (e *env) pendingRequest(thread string) cli.RequestView {
	e.t.Helper()
	var q cli.RequestView
	eventually(e.t, "a pending request", func() bool {
		for _, r := range e.show(thread).Requests {
			if r.Status == "pending" {
				q = r
				return true
			}
		}
		return false
	})
	return q
}
