package claude

import (
	"context"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// Caps is what Claude Code stream-json can do: steering is a user message
// sent mid-turn (the CLI queues it and answers it in the same session),
// interrupt is a control request, resume is --resume with the session id,
// approvals and questions come as can_use_tool, todos as TodoWrite or
// TaskCreate/TaskUpdate, subagents as the Task tool. A fork, and a
// rollback, go on in a fork of the session through a run's last message
// (--resume --fork-session --resume-session-at). Requests do not survive
// the process.
var Caps = core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Approvals: true, UserInput: true,
	Plans: true, Subagents: true}

// Install is the advice when the CLI is missing.
const Install = "install Claude Code: npm install -g @anthropic-ai/claude-code"

// Config is how the adapter starts Claude Code.
type Config struct {
	// Name is the profile name (the provider of the threads it serves).
	Name string
	// Command is the CLI and any fixed arguments (default "claude").
	Command []string
	// Model is passed as --model when set.
	Model string
	// Env adds variables; Home isolates the CLI's home when set.
	Env  []string
	Home string
	// Settings are the deadlines (handshake, silence, stop).
	Settings agentproc.Settings
}

// Profile is the `claude` profile: the CLI on PATH (or the words of
// $NEXUS_CLAUDE_COMMAND), the model in $NEXUS_CLAUDE_MODEL.
func Profile(name string) providers.Profile {
	return providers.Profile{Name: name, Kind: "claude", Caps: Caps,
		Description: "Claude Code (stream-json; needs the claude CLI and its login or ANTHROPIC_API_KEY)",
		New: func(ctx context.Context, sink providers.Sink) providers.Provider {
			return New(ctx, sink, ConfigFromEnv(name))
		}}
}

// ConfigFromEnv is the profile's configuration from the environment.
func ConfigFromEnv(name string) Config {
	return Config{Name: name, Command: agentproc.CommandFromEnv(name, []string{"claude"}),
		Model: envOr("NEXUS_CLAUDE_MODEL", ""), Settings: agentproc.SettingsFromEnv()}
}

// New returns the provider: one Claude Code process per nexus thread.
func New(ctx context.Context, sink providers.Sink, cfg Config) providers.Provider {
	if len(cfg.Command) == 0 {
		cfg.Command = []string{"claude"}
	}
	if cfg.Name == "" {
		cfg.Name = "claude"
	}
	if cfg.Settings == (agentproc.Settings{}) {
		cfg.Settings = agentproc.DefaultSettings
	}
	return agentproc.NewRuntime(ctx, sink, Caps, func(thread string, out *agentproc.Emitter) agentproc.Session {
		return newSession(cfg, thread, out)
	})
}

// Args is the command line for a session; resume is a session id or "",
// more follows it (the fork flags).
func (c Config) Args(resume string, more ...string) []string {
	args := append([]string(nil), c.Command[1:]...)
	// Default mode, whatever the user's settings say (defaultMode): the
	// CLI asks nexus before every edit and command, and nexus answers by
	// the thread's policy (control.go).
	args = append(args, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", "default")
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	if resume != "" {
		args = append(args, "--resume", resume)
		args = append(args, more...)
	}
	return args
}

// spec is how to start the CLI in dir; resume and more are as for Args.
func (c Config) spec(dir, resume string, more ...string) agentproc.Spec {
	return agentproc.Spec{Name: c.Name, Path: c.Command[0], Args: c.Args(resume, more...), Dir: dir, Env: c.Env,
		Home: c.Home, Install: Install}
}

// Check starts the profile's CLI, runs the initialize handshake within
// timeout, and stops it: what `nexus providers --check` reports.
func Check(name, dir string, timeout time.Duration) error {
	return CheckConfig(ConfigFromEnv(name), dir, timeout)
}

// CheckConfig is Check for a configuration built elsewhere (a profile of
// the config file).
func CheckConfig(cfg Config, dir string, timeout time.Duration) error {
	cfg.Settings.Handshake = timeout
	return newSession(cfg, "check", agentproc.NewEmitter(context.Background(), agentproc.NopSink{})).Check(cfg.spec(dir, ""))
}
