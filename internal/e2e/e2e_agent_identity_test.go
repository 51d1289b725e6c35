package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/nexus-tui/nexus/internal/cli"
)

// An agent identity survives a kill -9 of the host right after it was
// acknowledged and a clean host restart; a thread started as it takes its
// profile, names it, and its instructions reach the turn (the sim model
// says so); a removed alias is refused for new threads while the thread
// started as it keeps it.
func TestAgentIdentityAcrossRestarts(t *testing.T) {
	t.Parallel()
	e := backgroundEnv(t, "10m")
	const instr = "Review carefully; answer pass or fail.\nSecond line stays out of the note."
	id := e.must("agent", "add", "reviewer", "--instructions", instr)
	if !strings.HasPrefix(id, "g") {
		t.Fatalf("agent add printed %q; want the agent's id", id)
	}
	// The host dies at once after acknowledging: nothing acknowledged
	// may be lost.
	pid := e.servingPID()
	if pid <= 0 {
		t.Fatal("no background host after agent add")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(t, "the killed host to be gone", func() bool { return !alive(pid) })

	var shown cli.AgentView
	if err := json.Unmarshal([]byte(e.must("agent", "show", "reviewer", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`[{"id":%q,"alias":"reviewer","profile":"builtin","instructions":%q,"createdAt":%d}]`, id, instr, shown.CreatedAt)
	if got := e.must("agent", "list", "--json"); got != want || shown.CreatedAt <= 0 {
		t.Fatalf("agent list --json after kill -9:\n got %s\nwant %s", got, want)
	}
	if r := e.run("agent", "add", "reviewer", "--profile", "builtin:nosteer"); r.code != 1 || !strings.Contains(r.err, `agent "reviewer" already exists`) {
		t.Fatalf("a second agent add of the alias: exit %d %q; want exit 1 naming the alias", r.code, r.err)
	}
	if r := e.run("agent", "add", "Bad Alias"); r.code != 2 || !strings.Contains(r.err, "lower-case letters") {
		t.Fatalf("agent add of a bad alias: exit %d %q; want a usage error saying what an alias is", r.code, r.err)
	}
	if r := e.run("agent", "add", "x", "--profile", "nope"); r.code != 2 || !strings.Contains(r.err, `unknown provider "nope"`) {
		t.Fatalf("agent add with an unknown profile: exit %d %q; want a usage error", r.code, r.err)
	}

	e.must("host", "stop")
	th := e.must("thread", "new", "--agent", "reviewer")
	v := e.show(th)
	if v.Agent != id || v.AgentAlias != "reviewer" || v.Provider != "builtin" {
		t.Fatalf("thread started as reviewer after a restart: agent %q alias %q provider %q; want %s reviewer builtin",
			v.Agent, v.AgentAlias, v.Provider, id)
	}
	reply := e.must("send", th, "list the files")
	if !strings.Contains(reply, "As agent @reviewer I follow my instructions: Review carefully; answer pass or fail.") {
		t.Fatalf("the turn's reply does not show the agent's instructions:\n%s", reply)
	}
	if r := e.run("thread", "new", "--agent", "reviewer", "--provider", "shell"); r.code != 2 {
		t.Fatalf("thread new --agent with another --provider: exit %d %q; want a usage error", r.code, r.err)
	}

	e.must("agent", "remove", "reviewer")
	if r := e.run("thread", "new", "--agent", "reviewer"); r.code != 2 || !strings.Contains(r.err, `unknown agent "reviewer"`) {
		t.Fatalf("thread new as a removed agent: exit %d %q; want a usage error naming it", r.code, r.err)
	}
	if got := e.must("agent", "list", "--json"); got != "[]" {
		t.Fatalf("agent list after remove: %s", got)
	}
	if v := e.show(th); v.Agent != id || v.AgentAlias != "reviewer" {
		t.Fatalf("the thread lost its agent when the agent was removed: %q %q", v.Agent, v.AgentAlias)
	}
	// Its next turn still carries the identity it was started as.
	if reply := e.must("send", th, "list the files"); !strings.Contains(reply, "As agent @reviewer") {
		t.Fatalf("a turn after the agent was removed lost its instructions:\n%s", reply)
	}
	if again := e.must("agent", "add", "reviewer"); again == id {
		t.Fatalf("re-adding a removed alias reused the old id %s", id)
	}
}
