package agentproc

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzSettingsFromEnv sets the four NEXUS_AGENT_* deadlines to arbitrary
// text. SettingsFromEnv must never panic or return a negative deadline,
// and each deadline is the Go duration given when it parses and is not
// negative, else the default: a typo never disables a deadline.
func FuzzSettingsFromEnv(f *testing.F) {
	f.Add("20s", "0", "3s", "1m30s")
	f.Add("", "-1s", "soon", "9223372036854775807ns")
	f.Add("1h", "3m", "", "0.5s")
	f.Fuzz(func(t *testing.T, handshake, silence, grace, term string) {
		vals := []string{handshake, silence, grace, term}
		names := []string{"NEXUS_AGENT_HANDSHAKE", "NEXUS_AGENT_SILENCE", "NEXUS_AGENT_STOP_GRACE", "NEXUS_AGENT_STOP_TERM"}
		for i, v := range vals {
			if strings.ContainsRune(v, 0) {
				t.Skip("the environment cannot hold NUL")
			}
			t.Setenv(names[i], v)
		}
		s := SettingsFromEnv()
		got := []time.Duration{s.Handshake, s.Silence, s.Grace, s.Term}
		def := []time.Duration{DefaultSettings.Handshake, DefaultSettings.Silence, DefaultSettings.Grace, DefaultSettings.Term}
		for i, v := range vals {
			want := def[i]
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				want = d
			}
			if got[i] < 0 || got[i] != want {
				t.Fatalf("%s=%q gave %s, want %s", names[i], v, got[i], want)
			}
		}
	})
}

// FuzzCommandFromEnv names arbitrary profiles and gives their command
// variable arbitrary text. The variable's name must be NEXUS_..._COMMAND
// with no dash or colon (shells cannot set those), and the command is the
// variable's words, or the default when it holds none: never an empty
// command, never an empty or blank word.
func FuzzCommandFromEnv(f *testing.F) {
	f.Add("claude", "claude --model opus")
	f.Add("claude-acp", "  ")
	f.Add("builtin:openai", "/opt/bin/agent\t--acp\n")
	f.Fuzz(func(t *testing.T, profile, value string) {
		name := CommandEnv(profile)
		if !strings.HasPrefix(name, "NEXUS_") || !strings.HasSuffix(name, "_COMMAND") || strings.ContainsAny(name, "-:") {
			t.Fatalf("CommandEnv(%q) = %q", profile, name)
		}
		if strings.ContainsAny(name, "=\x00") || strings.ContainsRune(value, 0) {
			t.Skip("the environment cannot hold this variable")
		}
		t.Setenv(name, value)
		def := []string{"agent", "--stdio"}
		got := CommandFromEnv(profile, def)
		want := strings.Fields(value)
		if len(want) == 0 {
			want = def
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s=%q gave %q, want %q", name, value, got, want)
		}
		for _, w := range got {
			if strings.TrimSpace(w) != w || w == "" {
				t.Fatalf("%s=%q gave the word %q", name, value, w)
			}
		}
	})
}
