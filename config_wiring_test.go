package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/themes"
)

// TestConfigThemeReachesTUI: --theme wins over the file's theme, which
// wins over the default; the file accepts exactly the themes that exist.
func TestConfigThemeReachesTUI(t *testing.T) {
	file := &config.Config{Theme: "light"}
	for _, tc := range []struct {
		flag string
		cfg  *config.Config
		want string
	}{
		{"", nil, ""},
		{"", &config.Config{}, ""},
		{"", file, "light"},
		{"high-contrast", file, "high-contrast"},
		{"none", &config.Config{}, "none"},
	} {
		if got := tuiTheme(tc.flag, tc.cfg); got != tc.want {
			t.Errorf("tuiTheme(%q, %+v) = %q, want %q", tc.flag, tc.cfg, got, tc.want)
		}
	}
	// NO_COLOR still wins, as package themes decides.
	th, err := themes.Resolve(tuiTheme("", file), func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] })
	if err != nil || th.Name != themes.None {
		t.Errorf("NO_COLOR with the file's light theme: %v %v", th.Name, err)
	}
	if !slices.Equal(config.Themes, themes.Names()) {
		t.Errorf("config accepts themes %q, themes has %q", config.Themes, themes.Names())
	}
}

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
`), readyMadeKinds())
	if err != nil {
		t.Fatal(err)
	}
	reg := newRegistry(nil, cfg)
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
		if p.Kind != tc.kind || !reflect.DeepEqual(p.Allow, tc.allow) || profileSource(tc.name, cfg) != tc.source || p.New == nil {
			t.Errorf("%s: kind %s allow %q source %q, want %s %q %q", tc.name, p.Kind, p.Allow, profileSource(tc.name, cfg),
				tc.kind, tc.allow, tc.source)
		}
	}
	base, _ := newRegistry(nil, nil).Lookup("codex")
	if p, _ := reg.Lookup("codex"); p.Description != base.Description || p.Caps != base.Caps {
		t.Errorf("an overridden profile keeps its description and capabilities: %+v", p)
	}

	fp, _ := cfg.Profile("codex")
	t.Setenv("NEXUS_CODEX_COMMAND", "")
	t.Setenv("NEXUS_CODEX_MODEL", "")
	if s := agentSpecFor("codex", "codex", &fp); !slices.Equal(s.command, []string{"my-codex", "app-server"}) {
		t.Errorf("the file's command: %q", s.command)
	}
	t.Setenv("NEXUS_CODEX_COMMAND", "env-codex serve")
	if s := agentSpecFor("codex", "codex", &fp); !slices.Equal(s.command, []string{"env-codex", "serve"}) {
		t.Errorf("NEXUS_CODEX_COMMAND wins over the file: %q", s.command)
	}
	if got := fileModel("NEXUS_CODEX_MODEL", "", &fp); got != "file-model" {
		t.Errorf("the file's model: %q", got)
	}
	t.Setenv("NEXUS_CODEX_MODEL", "env-model")
	if got := fileModel("NEXUS_CODEX_MODEL", "env-model", &fp); got != "env-model" {
		t.Errorf("NEXUS_CODEX_MODEL wins over the file: %q", got)
	}
	if s := agentSpecFor("goose", "acp", ptr(cfg, "goose")); !slices.Equal(s.command, []string{"goose", "acp"}) || s.check == nil {
		t.Errorf("a custom acp profile: %q", s.command)
	}
	t.Setenv("NEXUS_MYSH_COMMAND", "/bin/bash -i")
	if s := agentSpecFor("mysh", "shell", ptr(cfg, "mysh")); !slices.Equal(s.command, []string{"/bin/bash", "-i"}) {
		t.Errorf("NEXUS_MYSH_COMMAND wins over a custom profile's command: %q", s.command)
	}
}

func ptr(cfg *config.Config, name string) *config.Profile {
	p, _ := cfg.Profile(name)
	return &p
}
