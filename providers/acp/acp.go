package acp

import (
	"context"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// Caps is what an ACP agent can do through the protocol: session/cancel
// interrupts, session/load or session/resume continue a session from a
// new process, session/request_permission becomes an approval, plan
// updates the todo list. ACP has no steering (the kernel interrupts and
// restarts the turn with the new message) and questions are an unstable
// extension nexus does not use yet.
var Caps = core.Capabilities{Interrupt: true, Resume: true, Approvals: true, Plans: true}

// Config is how the adapter starts an ACP agent.
type Config struct {
	Name     string
	Command  []string
	Env      []string
	Home     string
	Install  string
	Settings agentproc.Settings
}

// Profile is an ACP profile: the command ($NEXUS_<NAME>_COMMAND overrides
// it) and the advice when it is missing.
func Profile(name, desc, install string, command ...string) providers.Profile {
	return providers.Profile{Name: name, Kind: "acp", Caps: Caps, Description: desc,
		New: func(ctx context.Context, sink providers.Sink) providers.Provider {
			return New(ctx, sink, Config{Name: name, Command: agentproc.CommandFromEnv(name, command), Install: install,
				Settings: agentproc.SettingsFromEnv()})
		}}
}

// Profiles are the ready-made ACP profiles.
func Profiles() []providers.Profile {
	return []providers.Profile{
		Profile("gemini", "Gemini CLI over ACP (gemini --acp; needs its login or GEMINI_API_KEY)",
			"install the Gemini CLI: npm install -g @google/gemini-cli", "gemini", "--acp"),
		Profile("claude-acp", "Claude Code over ACP (claude-agent-acp; needs the claude login or ANTHROPIC_API_KEY)",
			"install it: npm install -g @zed-industries/claude-agent-acp", "claude-agent-acp"),
		Profile("codex-acp", "Codex over ACP (codex-acp; needs the codex login or OPENAI_API_KEY)",
			"install it: npm install -g @zed-industries/codex-acp", "codex-acp"),
	}
}

// New returns the provider: one agent process per nexus thread.
func New(ctx context.Context, sink providers.Sink, cfg Config) providers.Provider {
	if cfg.Name == "" {
		cfg.Name = "acp"
	}
	if cfg.Settings == (agentproc.Settings{}) {
		cfg.Settings = agentproc.DefaultSettings
	}
	return agentproc.NewRuntime(ctx, sink, Caps, func(thread string, out *agentproc.Emitter) agentproc.Session {
		return newSession(cfg, thread, out)
	})
}
