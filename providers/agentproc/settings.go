package agentproc

import (
	"os"
	"strings"
	"time"
)

// Settings are the deadlines every adapter runs with.
type Settings struct {
	// Handshake bounds starting the agent and its protocol handshake.
	Handshake time.Duration
	// Silence is how long a turn may send nothing before a warning
	// (0 disables the watchdog).
	Silence time.Duration
	// Grace is how long the protocol's cancel and the end of stdin get
	// before SIGTERM; Term is how long SIGTERM gets before SIGKILL.
	Grace, Term time.Duration
}

// DefaultSettings are the deadlines unless the environment says otherwise.
var DefaultSettings = Settings{Handshake: 60 * time.Second, Silence: 3 * time.Minute, Grace: 3 * time.Second, Term: 3 * time.Second}

// SettingsFromEnv reads NEXUS_AGENT_HANDSHAKE, NEXUS_AGENT_SILENCE,
// NEXUS_AGENT_STOP_GRACE and NEXUS_AGENT_STOP_TERM (Go durations, such as
// 20s); a value that does not parse keeps the default.
func SettingsFromEnv() Settings {
	s := DefaultSettings
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{{"NEXUS_AGENT_HANDSHAKE", &s.Handshake}, {"NEXUS_AGENT_SILENCE", &s.Silence},
		{"NEXUS_AGENT_STOP_GRACE", &s.Grace}, {"NEXUS_AGENT_STOP_TERM", &s.Term}} {
		if d, err := time.ParseDuration(os.Getenv(v.name)); err == nil && d >= 0 {
			*v.dst = d
		}
	}
	return s
}

// CommandEnv is the variable that overrides a profile's command:
// NEXUS_<PROFILE>_COMMAND with the profile name upper-cased and dashes as
// underscores (NEXUS_CLAUDE_ACP_COMMAND).
func CommandEnv(profile string) string {
	return "NEXUS_" + strings.ToUpper(strings.NewReplacer("-", "_", ":", "_").Replace(profile)) + "_COMMAND"
}

// CommandFromEnv returns the profile's command line: the words of its
// CommandEnv variable when set (split on spaces, no quoting), else def.
func CommandFromEnv(profile string, def []string) []string {
	if v := strings.Fields(os.Getenv(CommandEnv(profile))); len(v) > 0 {
		return v
	}
	return def
}
