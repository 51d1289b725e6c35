package host

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/acp"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/builtin"
	"github.com/nexus-tui/nexus/providers/claude"
	"github.com/nexus-tui/nexus/providers/codex"
	"github.com/nexus-tui/nexus/providers/shell"
)

// readyMade are the profiles nexus ships; exec (nil for a mere lookup)
// runs the built-in agent's worker steps.
func readyMade(exec builtin.Executor) []providers.Profile {
	out := builtin.Profiles(exec)
	// External agents: one process per thread each (providers/agentproc).
	out = append(out, claude.Profile("claude"), codex.Profile("codex"))
	out = append(out, acp.Profiles()...)
	return append(out, shell.Profile("shell"))
}

// ReadyMadeKinds maps the ready-made profile names to their kinds, for
// the config file's checks.
func ReadyMadeKinds() map[string]string {
	m := map[string]string{}
	for _, p := range readyMade(nil) {
		m[p.Name] = p.Kind
	}
	return m
}

// NewRegistry lists the provider profiles: the ready-made ones, then the
// config file's, which override a ready-made one of the same name or add
// a new one. exec (nil for a mere lookup) runs the built-in agent's
// worker steps.
func NewRegistry(exec builtin.Executor, cfg *config.Config) *providers.Registry {
	reg := providers.NewRegistry()
	for _, p := range readyMade(exec) {
		reg.Add(p)
	}
	if cfg == nil {
		return reg
	}
	for _, fp := range cfg.Profiles {
		desc := fmt.Sprintf("%s agent from the config file", fp.Kind)
		if base, err := reg.Lookup(fp.Name); err == nil {
			desc = base.Description
		}
		spec := AgentSpecFor(fp.Name, fp.Kind, &fp)
		reg.Add(providers.Profile{Name: fp.Name, Kind: fp.Kind, Description: desc, Caps: spec.Caps,
			Allow: fp.Allow(), BudgetUSD: fp.BudgetUSD, MaxTokens: fp.MaxTokens, New: spec.Start})
	}
	return reg
}

// ProfileSource says where a profile comes from, for `nexus providers`.
func ProfileSource(name string, cfg *config.Config) string {
	fp, ok := cfg.Profile(name)
	switch {
	case !ok:
		return "built in"
	case fp.ReadyMade:
		return "built in + config file"
	}
	return "config file"
}

// AgentSpec is an external agent profile resolved against the config
// file and the environment: how to start it, and how `nexus providers`
// checks it.
type AgentSpec struct {
	Command []string
	Install string
	Caps    core.Capabilities
	// check runs the protocol handshake; nil for a shell (it has none).
	Check func(dir string, timeout time.Duration) error
	Start func(ctx context.Context, sink providers.Sink) providers.Provider
}

// AgentSpecFor resolves an external profile of kind; fp is its config
// file table, or nil. The environment wins over the file:
// NEXUS_<PROFILE>_COMMAND over command, NEXUS_CODEX_MODEL and
// NEXUS_CLAUDE_MODEL over model. The file's env is added to the agent's
// environment (after nexus's own, so it wins there).
func AgentSpecFor(name, kind string, fp *config.Profile) AgentSpec {
	var env []string
	if fp != nil {
		env = fp.Environ()
	}
	switch kind {
	case "claude":
		c := claude.ConfigFromEnv(name)
		c.Command, c.Model, c.Env = fileCommand(name, c.Command, fp), fileModel("NEXUS_CLAUDE_MODEL", c.Model, fp), env
		return AgentSpec{Command: c.Command, Install: claude.Install, Caps: claude.Caps,
			Check: func(dir string, t time.Duration) error { return claude.CheckConfig(c, dir, t) },
			Start: func(ctx context.Context, s providers.Sink) providers.Provider { return claude.New(ctx, s, c) }}
	case "codex":
		c := codex.ConfigFromEnv(name)
		c.Command, c.Model, c.Env = fileCommand(name, c.Command, fp), fileModel("NEXUS_CODEX_MODEL", c.Model, fp), env
		return AgentSpec{Command: c.Command, Install: codex.Install, Caps: codex.Caps,
			Check: func(dir string, t time.Duration) error { return codex.CheckConfig(c, dir, t) },
			Start: func(ctx context.Context, s providers.Sink) providers.Provider { return codex.New(ctx, s, c) }}
	case "acp":
		c := acp.ConfigFromEnv(name)
		c.Command, c.Env = fileCommand(name, c.Command, fp), env
		if c.Install == "" {
			c.Install = "fix its command in the config file, or set " + agentproc.CommandEnv(name)
		}
		return AgentSpec{Command: c.Command, Install: c.Install, Caps: acp.Caps,
			Check: func(dir string, t time.Duration) error { return acp.CheckConfig(c, dir, t) },
			Start: func(ctx context.Context, s providers.Sink) providers.Provider { return acp.New(ctx, s, c) }}
	case "shell":
		c := shell.ConfigFromEnv(name)
		c.Command, c.Env = fileCommand(name, c.Command, fp), env
		return AgentSpec{Command: c.Command, Install: "set $SHELL, its command in the config file, or " + agentproc.CommandEnv(name),
			Caps:  shell.Caps,
			Start: func(ctx context.Context, s providers.Sink) providers.Provider { return shell.New(ctx, s, c) }}
	}
	return AgentSpec{}
}

// fileCommand is the profile's command: NEXUS_<PROFILE>_COMMAND when set
// (def already holds it), else the file's, else def.
func fileCommand(name string, def []string, fp *config.Profile) []string {
	if fp == nil || fp.Command == nil || strings.TrimSpace(os.Getenv(agentproc.CommandEnv(name))) != "" {
		return def
	}
	return append([]string(nil), fp.Command...)
}

// fileModel is the model: the variable when set (def already holds it),
// else the file's, else def.
func fileModel(envVar, def string, fp *config.Profile) string {
	if fp == nil || fp.Model == "" || os.Getenv(envVar) != "" {
		return def
	}
	return fp.Model
}
