package cli

import (
	"os"

	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/providers"
)

// config reads the config file once per invocation. Only the commands
// that need provider profiles or the theme call it (every command that
// may become the host, since the host serves the profiles), so a broken
// file never stops verify, export, import, version or help. A broken
// file is a usage error (exit 2), like a bad --theme or an unknown
// --provider.
func (a *app) config() (*config.Config, error) {
	if a.cfg != nil {
		return a.cfg, nil
	}
	cfg, err := config.Load(config.Path(os.Getenv), host.ReadyMadeKinds())
	if err != nil {
		return nil, &exitError{code: ExitUsage, msg: err.Error()}
	}
	a.cfg = cfg
	return cfg, nil
}

// registry is newRegistry with this invocation's config file.
func (a *app) registry() (*providers.Registry, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return host.NewRegistry(nil, cfg), nil
}
