package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The values the file accepts. Themes must match the themes package
// (a test in internal/cli checks it: this package may not import it).
var (
	Kinds     = []string{"acp", "codex", "claude", "shell"}
	Themes    = []string{"dark", "light", "high-contrast", "none"}
	Approvals = []string{"ask", "allow-writes", "allow-commands", "allow-all"}
	HostModes = []string{"background", "inline"}
)

// MaxScrollback bounds [ui] scrollback: every attached terminal pane
// keeps that many rendered lines in memory.
const MaxScrollback = 100_000

// MaxBytes bounds the file: a config is a few hundred bytes, and a huge
// file is a mistake (a log or a binary given as NEXUS_CONFIG).
const MaxBytes = 1 << 20

// Config is the file, checked.
type Config struct {
	// Path is the file read, or the one that would have been read when
	// it does not exist; "" when no location could be found.
	Path string
	// Found reports whether the file existed.
	Found bool
	// Theme is the theme the file names; "" when it names none.
	Theme string
	// Profiles are the file's profiles, sorted by name.
	Profiles []Profile
	// HostMode is [host] mode: "background" (a host process that
	// outlives the UI and the commands), "inline" (the first nexus on a
	// state dir hosts in process), or "" when the file says nothing.
	HostMode string
	// HostLinger is [host] linger as written ("10m", "0", "never"), or
	// "" when the file says nothing; ParseLinger reads it.
	HostLinger string
	// UIScrollback is [ui] scrollback: how many lines a terminal pane
	// keeps above its screen, 0 for none; nil when the file says nothing
	// (the UI's default).
	UIScrollback *int
	// CommandEnv is [commands] env: the variables the built-in agent's
	// commands get on top of the defaults (workers/env.go), each a name
	// or a prefix ending in "*"; nil when the file says nothing.
	CommandEnv []string
	// WorktreeDir is [worktree] dir as written: an absolute path, or one
	// starting with ~/ (the user's home); "" when the file says nothing
	// (worktrees go in STATE_DIR/worktrees). WorktreeRoot expands it.
	WorktreeDir string
	// Notify is the [notify] table over its defaults; nil when the file
	// has none (NotifySettings gives the defaults then).
	Notify *Notify
	// Team is the [team] table: the hub the host keeps its journal on;
	// nil when the file has none (the journal is the state dir's).
	Team *Team
}

// WorktreeRoot is the directory the threads' worktrees go in, each in
// WorktreeRoot/<thread id>: [worktree] dir with ~ expanded to home, or
// "" when the file does not set it.
func (c *Config) WorktreeRoot(home string) string {
	if c == nil || c.WorktreeDir == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(c.WorktreeDir, "~"); ok {
		return filepath.Join(home, rest)
	}
	return filepath.Clean(c.WorktreeDir)
}

// Profile is one [profiles.NAME] table.
type Profile struct {
	Name string
	// Kind is acp, codex, claude or shell; for a ready-made profile it
	// is the ready-made one's kind.
	Kind string
	// ReadyMade reports that Name is a ready-made profile this table
	// overrides, rather than a new one.
	ReadyMade bool
	// Command is the program and its arguments; nil keeps the default of
	// the kind or of the ready-made profile.
	Command []string
	// Env are variables added to the agent's environment.
	Env map[string]string
	// Model is the agent's model (codex and claude); "" keeps its default.
	Model string
	// Approval is ask, allow-writes, allow-commands or allow-all; "" when
	// the table does not say (which means ask).
	Approval string
	// BudgetUSD and MaxTokens are a new thread's budget when nexus thread
	// new or run gives none (0: none).
	BudgetUSD float64
	MaxTokens int
	// Line is where the profile's table starts in the file.
	Line int
}

// Allow is the approval policy as the action kinds a new thread of this
// profile runs without asking (core.Command.Allow).
func (p Profile) Allow() []string {
	switch p.Approval {
	case "allow-writes":
		return []string{"write"}
	case "allow-commands":
		return []string{"command"}
	case "allow-all":
		return []string{"write", "command"}
	}
	return nil
}

// Environ is Env as NAME=VALUE strings, sorted, for exec.Cmd.Env.
func (p Profile) Environ() []string {
	if len(p.Env) == 0 {
		return nil
	}
	out := make([]string, 0, len(p.Env))
	for k, v := range p.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Profile returns the file's profile of that name.
func (c *Config) Profile(name string) (Profile, bool) {
	if c == nil {
		return Profile{}, false
	}
	for _, p := range c.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Error is a config file that cannot be used: the file, the line (0 when
// unknown) and what is wrong, on one line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	msg := strings.Join(strings.Fields(e.Msg), " ")
	if e.Line > 0 {
		return fmt.Sprintf("config %s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("config %s: %s", e.File, msg)
}

// Path is where the file is: $NEXUS_CONFIG when set, else
// $XDG_CONFIG_HOME/nexus/config.toml, else ~/.config/nexus/config.toml
// ($HOME); "" when none of them is set. getenv is os.Getenv in
// production.
func Path(getenv func(string) string) string {
	if p := getenv("NEXUS_CONFIG"); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "nexus", "config.toml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "nexus", "config.toml")
	}
	return ""
}

// Load reads and checks the file at path. A missing file (or path "")
// is an empty config, not an error. readyMade maps the ready-made
// profile names to their kinds (kind "builtin" cannot be configured).
func Load(path string, readyMade map[string]string) (*Config, error) {
	if path == "" {
		return &Config{}, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{Path: path}, nil
	}
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read it: %v; fix its permissions or set NEXUS_CONFIG to another file", err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &Error{File: path, Msg: "is a directory, not a file; point NEXUS_CONFIG at a TOML file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read it: %v", err)}
	}
	return Parse(path, data, readyMade)
}
