package acp

import (
	"context"
	"time"

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

// known are the ready-made ACP profiles: description, install advice,
// default command.
var known = []struct {
	name, desc, install string
	command             []string
}{
	{"gemini", "Gemini CLI over ACP (gemini --acp; needs its login or GEMINI_API_KEY)",
		"install the Gemini CLI: npm install -g @google/gemini-cli", []string{"gemini", "--acp"}},
	{"claude-acp", "Claude Code over ACP (claude-agent-acp; needs the claude login or ANTHROPIC_API_KEY)",
		"install it: npm install -g @zed-industries/claude-agent-acp", []string{"claude-agent-acp"}},
	{"codex-acp", "Codex over ACP (codex-acp; needs the codex login or OPENAI_API_KEY)",
		"install it: npm install -g @zed-industries/codex-acp", []string{"codex-acp"}},
}

// ConfigFromEnv is a ready-made profile's configuration; the command
// comes from $NEXUS_<NAME>_COMMAND when set.
func ConfigFromEnv(name string) Config {
	for _, k := range known {
		if k.name == name {
			return Config{Name: name, Command: agentproc.CommandFromEnv(name, k.command), Install: k.install,
				Settings: agentproc.SettingsFromEnv()}
		}
	}
	return Config{Name: name, Command: agentproc.CommandFromEnv(name, nil), Settings: agentproc.SettingsFromEnv()}
}

// Profiles are the ready-made ACP profiles.
func Profiles() []providers.Profile {
	var out []providers.Profile
	for _, k := range known {
		name := k.name
		out = append(out, providers.Profile{Name: name, Kind: "acp", Caps: Caps, Description: k.desc,
			New: func(ctx context.Context, sink providers.Sink) providers.Provider {
				return New(ctx, sink, ConfigFromEnv(name))
			}})
	}
	return out
}

// Check starts the profile's agent, runs initialize within timeout, and
// stops it: what `nexus providers --check` reports.
func Check(name, dir string, timeout time.Duration) error {
	return CheckConfig(ConfigFromEnv(name), dir, timeout)
}

// CheckConfig is Check for a configuration built elsewhere (a profile of
// the config file).
func CheckConfig(cfg Config, dir string, timeout time.Duration) error {
	cfg.Settings.Handshake = timeout
	return newSession(cfg, "check", agentproc.NewEmitter(context.Background(), agentproc.NopSink{})).Check(cfg.spec(dir))
}

// spec is how to start the agent in dir (a Config without a command
// gives a Spec that Start refuses).
func (c Config) spec(dir string) agentproc.Spec {
	spec := agentproc.Spec{Name: c.Name, Dir: dir, Env: c.Env, Home: c.Home, Install: c.Install}
	if len(c.Command) > 0 {
		spec.Path, spec.Args = c.Command[0], c.Command[1:]
	}
	return spec
}

// New returns the provider: one agent process per nexus thread.
func New(ctx context.Context, sink providers.Sink, cfg Config) providers.Provider {
	if cfg.Name == "" {
		cfg.Name = "acp"
	}
	if cfg.Settings == (agentproc.Settings{}) {
		cfg.Settings = agentproc.DefaultSettings
	}
	return provider{agentproc.NewRuntime(ctx, sink, Caps, func(thread string, out *agentproc.Emitter) agentproc.Session {
		return newSession(cfg, thread, out)
	})}
}

// provider is the runtime plus the terminals of its threads.
type provider struct{ *agentproc.Runtime }

var _ providers.Terminals = provider{}

// Terminal implements providers.Terminals: the thread's most recent
// terminal (live or exited) until its session ends; false before the
// agent created one (see screen). Caps.PTY stays false: the agent's
// conversation is not a PTY, only the commands it runs are.
func (p provider) Terminal(thread string) (providers.Terminal, bool) {
	s, _ := p.Session(thread).(*session)
	if s == nil {
		return nil, false
	}
	return s.terms.terminal()
}
