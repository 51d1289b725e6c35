package workers

import (
	"strings"
	"testing"
)

// TestRunCommandEnvironmentIsAllowListed: a command sees the allow-listed
// variables and the configured extras, and none of the host's
// credentials, whatever they are called.
func TestRunCommandEnvironmentIsAllowListed(t *testing.T) {
	ws := tempWorkspace(t)
	for k, v := range map[string]string{
		"AZURE_OPENAI_KEY":       "azure-secret",
		"FOO_PASSWD":             "passwd-secret",
		"DATABASE_URL":           "postgres://u:db-secret@h/db",
		"ANTHROPIC_API_KEY":      "anthropic-secret",
		"NEXUSTEST_PLAIN":        "not-listed",
		"NEXUSTEST_EXTRA":        "extra-visible",
		"NEXUSTEST_NODE_OPTIONS": "prefix-visible",
		"NEXUSTEST_NODE_TOKEN":   "prefix-secret",
		"NEXUSTEST_DEPLOY_TOKEN": "named-visible",
		"HOME":                   "/home/nexus-test",
		"PWD":                    "/somewhere/else",
	} {
		t.Setenv(k, v)
	}
	p := newTestPool(t, ws, func(c *PoolConfig) {
		c.Env = append(c.Env, "NEXUSTEST_WORKER_ONLY=worker-only")
		c.CommandEnv = []string{"NEXUSTEST_EXTRA", "NEXUSTEST_NODE_*", "NEXUSTEST_DEPLOY_TOKEN"}
	})
	res := mustExec(t, p, Step{N: 1, Action: ActionRunCommand, Args: Args{Command: "env"}}, nil)
	if res.Status != StatusOK {
		t.Fatalf("env: %+v", res)
	}
	got := map[string]string{}
	for _, l := range strings.Split(res.Output, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	for k, want := range map[string]string{
		"PATH": "", "HOME": "/home/nexus-test", "TERM": "dumb", "PWD": ws, "PAGER": "cat", "GIT_PAGER": "cat",
		"NEXUSTEST_EXTRA": "extra-visible", "NEXUSTEST_NODE_OPTIONS": "prefix-visible",
		"NEXUSTEST_DEPLOY_TOKEN": "named-visible",
	} {
		if v, ok := got[k]; !ok || (want != "" && v != want) {
			t.Errorf("the command's %s = %q (set %v), want %q", k, v, ok, want)
		}
	}
	for _, k := range []string{"AZURE_OPENAI_KEY", "FOO_PASSWD", "DATABASE_URL", "ANTHROPIC_API_KEY",
		"NEXUSTEST_PLAIN", "NEXUSTEST_NODE_TOKEN", "NEXUSTEST_WORKER_ONLY", workerEnv} {
		if v, ok := got[k]; ok {
			t.Errorf("the command sees %s=%s", k, v)
		}
	}
	for _, secret := range []string{"azure-secret", "passwd-secret", "db-secret", "anthropic-secret", "prefix-secret"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("a credential reached the command: %q", secret)
		}
	}
}

func TestEnvAllow(t *testing.T) {
	a := commandAllow([]string{"GOFLAGS", "NODE_*", "GITHUB_TOKEN", "GIT_*"})
	for name, want := range map[string]bool{
		"PATH": true, "HOME": true, "LC_ALL": true, "LANG": true, "TMPDIR": true,
		"GOFLAGS": true, "NODE_OPTIONS": true, "GITHUB_TOKEN": true,
		"NODE_AUTH_TOKEN": false, "NODE_PASSWD": false, "NODE_REGISTRY_URL": false,
		"AZURE_OPENAI_KEY": false, "DATABASE_URL": false, "OPENAI_API_KEY": false, "AWS_SECRET_ACCESS_KEY": false,
		"GOPATH": false, "PATHS": false, "path": false, "LC": false,
		"GIT_AUTHOR_NAME": true, "GIT_CONFIG_GLOBAL": true, "GIT_ASKPASS": false, "GIT_HTTP_AUTHORIZATION": false, "GIT_AUTH_AUTHOR": false,
	} {
		if got := a.allows(name); got != want {
			t.Errorf("allows(%s) = %v, want %v", name, got, want)
		}
	}
	for p, ok := range map[string]bool{"GOPATH": true, "NODE_*": true, "_X": true, "LC_*": true,
		"*": false, "": false, "A*B": false, "*_KEY": false, "A=B": false, "1A": false, "A**": false, "A B": false} {
		if err := CheckEnvPattern(p); (err == nil) != ok {
			t.Errorf("CheckEnvPattern(%q) = %v, want ok %v", p, err, ok)
		}
	}
	if _, err := NewPool(PoolConfig{CommandEnv: []string{"*"}}); err == nil || !strings.Contains(err.Error(), `"*" is not a variable name`) {
		t.Errorf("NewPool with env \"*\": %v", err)
	}
}
