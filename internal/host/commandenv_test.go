package host

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/workers"
)

// TestCommandEnvFromConfig: [commands] env reaches the host's worker
// pool, so the built-in agent's commands get the variables it names and
// still none of the credentials.
func TestCommandEnvFromConfig(t *testing.T) {
	t.Setenv("NEXUSTEST_GOFLAGS", "-mod=mod")
	t.Setenv("NEXUSTEST_UNLISTED", "unlisted")
	t.Setenv("AZURE_OPENAI_KEY", "azure-secret")
	cfg, err := config.Parse("/c.toml", []byte("[commands]\nenv = [\"NEXUSTEST_GOFLAGS\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	h, err := Start(dir, time.Second, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res, err := h.pool.Execute(context.Background(), workers.Step{Task: "t", N: 1, Action: workers.ActionRunCommand,
		Args: workers.Args{Command: "env"}, Workspace: t.TempDir()}, nil)
	if err != nil || res.Status != workers.StatusOK {
		t.Fatalf("env: %+v %v", res, err)
	}
	if !strings.Contains(res.Output, "NEXUSTEST_GOFLAGS=-mod=mod\n") {
		t.Errorf("the configured variable did not reach the command:\n%s", res.Output)
	}
	for _, bad := range []string{"NEXUSTEST_UNLISTED", "azure-secret"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("the command sees %s", bad)
		}
	}
}

// TestCommandEnvRulesAgree: the config file accepts exactly the entries
// the workers accept (internal/config may not import workers, so each
// has its copy of the rule).
func TestCommandEnvRulesAgree(t *testing.T) {
	for _, e := range []string{"GOPATH", "NODE_*", "_x", "lc_*", "*", "", "A*B", "*_KEY", "A=B", "1A", "A**", "A B", "É"} {
		_, cerr := config.Parse("/c.toml", []byte(fmt.Sprintf("[commands]\nenv = [%q]\n", e)), nil)
		werr := workers.CheckEnvPattern(e)
		if (cerr == nil) != (werr == nil) {
			t.Errorf("entry %q: config says %v, workers say %v", e, cerr, werr)
		}
	}
}
