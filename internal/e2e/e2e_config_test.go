package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/internal/cli"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
)

// fakeACPTurn is an ACP agent's transcript for the scripted fake agent:
// one turn that asks permission to run a command, which the profile's
// approval policy answers without a request, then replies.
const fakeACPTurn = `expect {"jsonrpc":"2.0","method":"initialize"}
capture id id
send {"jsonrpc":"2.0","id":$id,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}
expect {"jsonrpc":"2.0","method":"session/new","params":{"cwd":"$cwd"}}
capture id id
send {"jsonrpc":"2.0","id":$id,"result":{"sessionId":"s-1"}}
expect {"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"hello"}]}}
capture pid id
send {"jsonrpc":"2.0","id":100,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"tc1","title":"make","kind":"execute"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}
expect {"jsonrpc":"2.0","id":100,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}
send {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"configured by the file"}}}}
send {"jsonrpc":"2.0","id":$pid,"result":{"stopReason":"end_turn"}}
eof
`

// TestConfigFileProfiles: a config file in $XDG_CONFIG_HOME adds a shell
// profile and an ACP profile (the scripted fake agent, found through the
// file's env); `nexus providers` lists them as the file's, threads are
// created with --provider NAME, and the ACP profile's approval policy
// lets its command run without a request.
func TestConfigFileProfiles(t *testing.T) {
	bin := agenttest.Scripted(t)
	xdg := t.TempDir()
	t.Setenv("NEXUS_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	script := filepath.Join(xdg, "turn.txt")
	log := filepath.Join(xdg, "agent.log")
	if err := os.WriteFile(script, []byte(fakeACPTurn), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(xdg, "nexus", "config.toml")
	writeConfig(t, path, fmt.Sprintf(`theme = "light"

[profiles.mysh]
kind = "shell"
command = ["/bin/sh"]

[profiles.fake]
kind = "acp"
command = [%q]
env = { SCRIPTED_FILE = %q, SCRIPTED_LOG = %q }
approval = "allow-commands"
`, bin, script, log))
	e := newEnv(t)

	out := e.must("providers")
	for _, want := range []string{"mysh", "fake", "config file: " + path} {
		if !strings.Contains(out, want) {
			t.Fatalf("nexus providers does not list %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 4 && f[0] == "mysh":
			if f[1] != "shell" || f[2] != "config" || f[4] != "found" {
				t.Errorf("mysh row: %q", l)
			}
		case len(f) > 4 && f[0] == "fake":
			if f[1] != "acp" || f[2] != "config" || f[4] != "found" {
				t.Errorf("fake row: %q", l)
			}
		case len(f) > 4 && f[0] == "codex":
			if f[2] != "built" {
				t.Errorf("codex row: %q", l)
			}
		}
	}

	sh := e.must("thread", "new", "--provider", "mysh", "--workspace", e.ws)
	if v := e.show(sh); v.Provider != "mysh" {
		t.Fatalf("thread %s provider %q, want mysh", sh, v.Provider)
	}
	th := e.must("thread", "new", "--provider", "fake", "--workspace", e.ws)
	r := e.run("send", th, "hello")
	if r.code != 0 || !strings.Contains(r.out, "configured by the file") {
		t.Fatalf("send to the config's ACP agent: exit %d\nstdout: %s\nstderr: %s\nagent log: %s",
			r.code, r.out, r.err, agenttest.Log(t, log))
	}
	v := e.show(th)
	if v.Provider != "fake" || len(v.Runs) != 1 || v.Runs[0].Status != "completed" || len(v.Requests) != 0 {
		t.Fatalf("thread %s: provider %s runs %+v requests %+v", th, v.Provider, v.Runs, v.Requests)
	}
}

// TestConfigFileBroken: a broken file is one error line naming the file,
// the line and the bad value, exit 2, for the commands that need
// profiles; version, help and verify still work.
func TestConfigFileBroken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexus.toml")
	t.Setenv("NEXUS_CONFIG", path)
	writeConfig(t, path, "theme = \"dark\"\n\n[profiles.x]\nkind = \"acpp\"\ncommand = [\"x\"]\n")
	e := newEnv(t)
	want := fmt.Sprintf("nexus: config %s:4: profiles.x.kind \"acpp\" is not one of acp, codex, claude, shell\n", path)
	for _, args := range [][]string{{"providers"}, {"thread", "list"}, {"thread", "new"}, {"serve"}, {"tui"}} {
		if r := e.run(args...); r.code != cli.ExitUsage || r.err != want {
			t.Errorf("nexus %v: exit %d, stderr %q; want exit 2 and %q", args, r.code, r.err, want)
		}
	}
	for _, args := range [][]string{{"version"}, {"help"}, {"verify"}} {
		if r := e.run(args...); r.code != 0 {
			t.Errorf("nexus %v with a broken config: exit %d, stderr %q", args, r.code, r.err)
		}
	}
}

func writeConfig(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
