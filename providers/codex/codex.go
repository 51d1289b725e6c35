package codex

import (
	"context"
	"os"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
)

// Caps is what `codex app-server` can do: turn/steer folds a message into
// the running turn, turn/interrupt ends it, thread/resume continues a
// thread from a new process, approvals (commands, file changes) and
// requestUserInput become requests, turn/plan/updated the todo list,
// thread/revert drops a rolled-back run's turns, thread/fork opens a
// fork's thread from the source's.
var Caps = core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Rollback: true, Approvals: true,
	UserInput: true, Plans: true}

// Install is the advice when the CLI is missing.
const Install = "install Codex: npm install -g @openai/codex"

// Config is how the adapter starts the app-server.
type Config struct {
	Name     string
	Command  []string // default: codex app-server
	Model    string   // thread/start model, when set
	Env      []string
	Home     string
	Settings agentproc.Settings
}

// Profile is the `codex` profile ($NEXUS_CODEX_COMMAND overrides the
// command line, $NEXUS_CODEX_MODEL the model).
func Profile(name string) providers.Profile {
	return providers.Profile{Name: name, Kind: "codex", Caps: Caps,
		Description: "OpenAI Codex (codex app-server; needs the codex CLI and its login or OPENAI_API_KEY)",
		New: func(ctx context.Context, sink providers.Sink) providers.Provider {
			return New(ctx, sink, ConfigFromEnv(name))
		}}
}

// New returns the provider: one app-server process per nexus thread.
func New(ctx context.Context, sink providers.Sink, cfg Config) providers.Provider {
	if len(cfg.Command) == 0 {
		cfg.Command = []string{"codex", "app-server"}
	}
	if cfg.Name == "" {
		cfg.Name = "codex"
	}
	if cfg.Settings == (agentproc.Settings{}) {
		cfg.Settings = agentproc.DefaultSettings
	}
	return agentproc.NewRuntime(ctx, sink, Caps, func(thread string, out *agentproc.Emitter) agentproc.Session {
		return newSession(cfg, thread, out)
	})
}

// ConfigFromEnv is the profile's configuration from the environment.
func ConfigFromEnv(name string) Config {
	return Config{Name: name, Command: agentproc.CommandFromEnv(name, []string{"codex", "app-server"}),
		Model: os.Getenv("NEXUS_CODEX_MODEL"), Settings: agentproc.SettingsFromEnv()}
}

// spec is how to start the app-server in dir.
func (c Config) spec(dir string) agentproc.Spec {
	return agentproc.Spec{Name: c.Name, Path: c.Command[0], Args: c.Command[1:], Dir: dir, Env: c.Env, Home: c.Home,
		Install: Install}
}

// Check starts the app-server, runs initialize within timeout, and stops
// it: what `nexus providers --check` reports.
func Check(name, dir string, timeout time.Duration) error {
	return CheckConfig(ConfigFromEnv(name), dir, timeout)
}

// CheckConfig is Check for a configuration built elsewhere (a profile of
// the config file).
func CheckConfig(cfg Config, dir string, timeout time.Duration) error {
	cfg.Settings.Handshake = timeout
	return newSession(cfg, "check", agentproc.NewEmitter(context.Background(), agentproc.NopSink{})).Check(cfg.spec(dir))
}
