package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// TestBrokenAgentsFailClearly: an agent that never answers initialize,
// one that writes garbage, and one that exits at once each end their run
// with a clear error within the handshake deadline, while the same host
// keeps serving another thread.
func TestBrokenAgentsFailClearly(t *testing.T) {
	bin := agenttest.Scripted(t)
	t.Setenv("NEXUS_CLAUDE_COMMAND", bin+" "+agenttest.Script("claude/hang.txt"))
	t.Setenv("NEXUS_CODEX_COMMAND", bin+" "+agenttest.Script("codex/garbage.txt"))
	t.Setenv("NEXUS_GEMINI_COMMAND", bin+" "+agenttest.Script("acp/exit.txt"))
	t.Setenv("NEXUS_AGENT_HANDSHAKE", "2s")
	e := newEnv(t)
	e.serve()
	other := e.must("thread", "new", "--workspace", e.ws)
	for _, tc := range []struct {
		provider string
		want     []string
	}{
		{"claude", []string{"did not answer initialize within 2s"}},
		{"codex", []string{"not app-server JSON", "this is not JSON", "really `"}},
		{"gemini", []string{"exited with status 3", "invalid API key"}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			th := e.must("thread", "new", "--provider", tc.provider, "--workspace", e.ws)
			start := time.Now()
			bg := e.bg("send", th, "hello")
			// The host answers other threads while this one starts.
			if out := e.must("send", other, "still serving?"); !strings.Contains(out, "still serving?") {
				t.Fatalf("the other thread: %q", out)
			}
			res := bg.wait(t)
			if res.code != 1 {
				t.Fatalf("send to a broken %s: exit %d, want 1: %s %s", tc.provider, res.code, res.out, res.err)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("it took %s to fail", d)
			}
			r := e.show(th).Runs[0]
			for _, w := range tc.want {
				if r.Status != "failed" || !strings.Contains(r.Error, w) {
					t.Errorf("run = %s %q; the error should say %q", r.Status, r.Error, w)
				}
			}
		})
	}
}
