package host

import (
	"reflect"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/internal/config"
)

// TestConfigProfilesPrecedence: the file overrides and adds profiles;
// NEXUS_<PROFILE>_COMMAND and the model variables win over it.
func TestConfigProfilesPrecedence(t *testing.T) {
	cfg, err := config.Parse("/c.toml", []byte(`
[profiles.codex]
command = ["my-codex", "app-server"]
model = "file-model"
approval = "allow-writes"
env = { A = "1" }

[profiles.mysh]
kind = "shell"
command = ["/bin/sh"]
approval = "allow-all"

[profiles.goose]
kind = "acp"
command = ["goose", "acp"]
`), ReadyMadeKinds())
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry(nil, cfg)
	for _, tc := range []struct {
		name, kind, source string
		allow              []string
	}{
		{"codex", "codex", "built in + config file", []string{"write"}},
		{"mysh", "shell", "config file", []string{"write", "command"}},
		{"goose", "acp", "config file", nil},
		{"claude", "claude", "built in", nil},
		{"builtin", "builtin", "built in", nil},
	} {
		p, err := reg.Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != tc.kind || !reflect.DeepEqual(p.Allow, tc.allow) || ProfileSource(tc.name, cfg) != tc.source || p.New == nil {
			t.Errorf("%s: kind %s allow %q source %q, want %s %q %q", tc.name, p.Kind, p.Allow, ProfileSource(tc.name, cfg),
				tc.kind, tc.allow, tc.source)
		}
	}
	base, _ := NewRegistry(nil, nil).Lookup("codex")
	if p, _ := reg.Lookup("codex"); p.Description != base.Description || p.Caps != base.Caps {
		t.Errorf("an overridden profile keeps its description and capabilities: %+v", p)
	}

	fp, _ := cfg.Profile("codex")
	t.Setenv("NEXUS_CODEX_COMMAND", "")
	t.Setenv("NEXUS_CODEX_MODEL", "")
	if s := AgentSpecFor("codex", "codex", &fp); !slices.Equal(s.Command, []string{"my-codex", "app-server"}) {
		t.Errorf("the file's command: %q", s.Command)
	}
	t.Setenv("NEXUS_CODEX_COMMAND", "env-codex serve")
	if s := AgentSpecFor("codex", "codex", &fp); !slices.Equal(s.Command, []string{"env-codex", "serve"}) {
		t.Errorf("NEXUS_CODEX_COMMAND wins over the file: %q", s.Command)
	}
	if got := fileModel("NEXUS_CODEX_MODEL", "", &fp); got != "file-model" {
		t.Errorf("the file's model: %q", got)
	}
	t.Setenv("NEXUS_CODEX_MODEL", "env-model")
	if got := fileModel("NEXUS_CODEX_MODEL", "env-model", &fp); got != "env-model" {
		t.Errorf("NEXUS_CODEX_MODEL wins over the file: %q", got)
	}
	if s := AgentSpecFor("goose", "acp", ptr(cfg, "goose")); !slices.Equal(s.Command, []string{"goose", "acp"}) || s.Check == nil {
		t.Errorf("a custom acp profile: %q", s.Command)
	}
	t.Setenv("NEXUS_MYSH_COMMAND", "/bin/bash -i")
	if s := AgentSpecFor("mysh", "shell", ptr(cfg, "mysh")); !slices.Equal(s.Command, []string{"/bin/bash", "-i"}) {
		t.Errorf("NEXUS_MYSH_COMMAND wins over a custom profile's command: %q", s.Command)
	}
}

func ptr(cfg *config.Config, name string) *config.Profile {
	p, _ := cfg.Profile(name)
	return &p
}
