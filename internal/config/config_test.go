package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// readyMade is the registry's ready-made profiles, as internal/host
// passes them (ReadyMadeKinds).
var readyMade = map[string]string{"builtin": "builtin", "builtin:openai": "builtin", "claude": "claude",
	"codex": "codex", "gemini": "acp", "claude-acp": "acp", "codex-acp": "acp", "shell": "shell"}

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"NEXUS_CONFIG": "/a/b.toml", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/a/b.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/nexus/config.toml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/nexus/config.toml"},
		{map[string]string{"NEXUS_CONFIG": "", "XDG_CONFIG_HOME": "", "HOME": "/h"}, "/h/.config/nexus/config.toml"},
		{map[string]string{}, ""},
	} {
		if got := Path(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("Path(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestLoadEveryField(t *testing.T) {
	cfg, err := Load("testdata/full.toml", readyMade)
	if err != nil {
		t.Fatal(err)
	}
	lines := 25000
	want := &Config{Path: "testdata/full.toml", Found: true, Theme: "high-contrast", UIScrollback: &lines,
		CommandEnv: []string{"GOPATH", "GOFLAGS", "NODE_*"}, Profiles: []Profile{
			{Name: "codex", Kind: "codex", ReadyMade: true, Model: "gpt-5-codex", Approval: "allow-writes", Line: 4},
			{Name: "gemini", Kind: "acp", ReadyMade: true, Command: []string{"gemini", "--acp", "-m", "gemini-2.5-pro"}, Line: 8},
			{Name: "opus", Kind: "claude", Model: "opus", Env: map[string]string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "32000"},
				BudgetUSD: 2.5, MaxTokens: 500000, Line: 23},
			{Name: "review", Kind: "acp", Command: []string{"goose", "acp"},
				Env: map[string]string{"GOOSE_MODE": "smart_approve", "EMPTY": ""}, Approval: "allow-all", Line: 12},
			{Name: "sh", Kind: "shell", Command: []string{"/bin/sh", "-i"}, Approval: "allow-commands", Line: 18},
		}}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg, want)
	}
	for _, tc := range []struct {
		name  string
		allow []string
		env   []string
	}{
		{"codex", []string{"write"}, nil},
		{"gemini", nil, nil},
		{"review", []string{"write", "command"}, []string{"EMPTY=", "GOOSE_MODE=smart_approve"}},
		{"sh", []string{"command"}, nil},
		{"opus", nil, []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000"}},
	} {
		p, ok := cfg.Profile(tc.name)
		if !ok {
			t.Fatalf("no profile %s", tc.name)
		}
		if !reflect.DeepEqual(p.Allow(), tc.allow) || !reflect.DeepEqual(p.Environ(), tc.env) {
			t.Errorf("%s: Allow %q Environ %q, want %q %q", tc.name, p.Allow(), p.Environ(), tc.allow, tc.env)
		}
	}
	if _, ok := cfg.Profile("claude"); ok {
		t.Error("a ready-made profile the file does not name is not the file's")
	}
}

func TestLoadMissingOrEmpty(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nexus", "config.toml")
	for _, path := range []string{"", missing, "testdata/empty.toml"} {
		cfg, err := Load(path, readyMade)
		if err != nil {
			t.Fatalf("Load(%q): %v", path, err)
		}
		if cfg.Theme != "" || len(cfg.Profiles) != 0 || cfg.Path != path || cfg.Found != (path == "testdata/empty.toml") {
			t.Errorf("Load(%q) = %+v, want an empty config", path, cfg)
		}
	}
	var nilCfg *Config
	if _, ok := nilCfg.Profile("x"); ok {
		t.Error("a nil config has no profiles")
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, readyMade)
	if err == nil || err.Error() != "config "+dir+": is a directory, not a file; point NEXUS_CONFIG at a TOML file" {
		t.Fatalf("a directory: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# x\n", MaxBytes/4+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big, readyMade); err == nil || !strings.Contains(err.Error(), "is over 1048576 bytes") {
		t.Fatalf("a huge file: %v", err)
	}
}

// TestErrors: every bad input is one line naming the file, the line of
// the offending key and the bad value, and says what is allowed.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"theme = \"dark\"\n\n[profiles.x]\nkind = \"acpp\"\n",
			`config /c.toml:4: profiles.x.kind "acpp" is not one of acp, codex, claude, shell`},
		{"theme = \"solarized\"\n", `config /c.toml:1: theme "solarized" is not one of dark, light, high-contrast, none`},
		{"theme = 3\n", `config /c.toml:1: theme is an integer; use one of "dark", "light", "high-contrast", "none"`},
		{"them = \"dark\"\n", `config /c.toml:1: unknown key them; the file has theme = "...", [host], [ui], [commands], [worktree], [notify] and [team] tables and [profiles.NAME] tables`},
		{"[team]\nurl = \"http://hub:80\"\nproject = \"p\"\n", `config /c.toml:2: team.url "http://hub:80" is not a hub URL like nats://host:4222 (several comma-separated)`},
		{"[team]\nurl = \"nats://hub:4222\"\n", `config /c.toml:1: [team] needs url and project (and credentials for a hub with users)`},
		{"[team]\nurl = \"nats://hub:4222\"\nproject = \"p\"\ncredentials = \"host.creds\"\n",
			`config /c.toml:4: team.credentials "host.creds" is not an absolute path; name the file the hub wrote (host.creds) by its full path`},
		{"[team]\nurl = \"nats://hub:4222\"\nproject = \"p\"\nlease = \"1ms\"\n", `config /c.toml:4: team.lease "1ms" is not a duration from 1s to 1h (like "15s")`},
		{"[team]\nurl = \"nats://hub:4222\"\nproject = \"p\"\nreplicas = 2\n", `config /c.toml:4: team.replicas must be 1 or 3 (a cluster of three hubs)`},
		{"[team]\nurl = \"nats://hub:4222\"\nprojekt = \"p\"\n", `config /c.toml:3: unknown key team.projekt; [team] has url, credentials, ca, project, lease and replicas`},
		{"[profiles.claude]\n\nmodle = \"opus\"\n",
			`config /c.toml:3: unknown key profiles.claude.modle; a profile has kind, command, env, model, approval, budget_usd and max_tokens`},
		{"[profiles.x]\ncommand = [\"x\"]\n",
			`config /c.toml:1: profiles.x needs kind = one of acp, codex, claude, shell (or use a ready-made profile's name to override it)`},
		{"[profiles.codex]\nkind = \"acp\"\n",
			`config /c.toml:2: profiles.codex.kind "acp" does not match the ready-made codex profile, which is codex; drop kind, or give a new profile another name`},
		{"[profiles.builtin]\n", `config /c.toml:1: profiles.builtin is the built-in agent, which has nothing to configure; give your profile another name`},
		{"[profiles.\"My Agent\"]\nkind = \"shell\"\n",
			`config /c.toml:1: profile name "My Agent" must be 1 to 64 lower-case letters, digits, - and _, starting with a letter or digit`},
		{"[profiles.x]\nkind = \"shell\"\ncommand = \"bash -l\"\n",
			`config /c.toml:3: profiles.x.command is a string; write it as an array of words, such as ["codex", "app-server"]`},
		{"[profiles.x]\nkind = \"shell\"\ncommand = []\n", `config /c.toml:3: profiles.x.command is empty; its first word is the program to run`},
		{"[profiles.x]\nkind = \"shell\"\ncommand = [\"sh\", 1]\n", `config /c.toml:3: profiles.x.command word 2 is an integer; every word must be a string`},
		{"[profiles.x]\nkind = \"shell\"\ncommand = [\" \"]\n",
			`config /c.toml:3: profiles.x.command starts with an empty word; the first word is the program to run`},
		{"[profiles.x]\nkind = \"acp\"\n",
			`config /c.toml:1: profiles.x of kind acp needs command = ["program", "args"...], the ACP agent to start`},
		{"[profiles.gemini]\nmodel = \"pro\"\n",
			`config /c.toml:2: profiles.gemini.model: kind acp has no model setting; put the agent's own model flag in command instead`},
		{"[profiles.codex]\nmodel = \"\"\n", `config /c.toml:2: profiles.codex.model "" must be a non-empty string without control characters`},
		{"[profiles.codex]\nbudget_usd = \"5\"\n",
			`config /c.toml:2: profiles.codex.budget_usd is a string; write an amount in US dollars, such as 5 or 0.50 (0 for none)`},
		{"[profiles.codex]\nbudget_usd = -1\n", `config /c.toml:2: profiles.codex.budget_usd -1 is not an amount in US dollars from 0 (none) up`},
		{"[profiles.codex]\nmax_tokens = 1.5\n",
			`config /c.toml:2: profiles.codex.max_tokens is a float; write a whole number of tokens, such as 200000 (0 for none)`},
		{"[profiles.codex]\napproval = \"yes\"\n",
			`config /c.toml:2: profiles.codex.approval "yes" is not one of ask, allow-writes, allow-commands, allow-all`},
		{"[profiles.codex]\nenv = [\"A=b\"]\n",
			`config /c.toml:2: profiles.codex.env is an array; write it as a table of strings, such as env = { FOO = "bar" }`},
		{"[profiles.codex.env]\nA = \"1\"\nB = 2\n", `config /c.toml:3: profiles.codex.env.B is an integer; environment values are strings (quote numbers)`},
		{"[profiles.codex.env]\n\"A=B\" = \"1\"\n", `config /c.toml:2: profiles.codex.env."A=B" is not a valid environment variable name`},
		{"[profiles]\ncodex = 1\n", `config /c.toml:2: profiles.codex is an integer; write it as a table: [profiles.codex]`},
		{"[[profiles]]\nkind = \"shell\"\n", `config /c.toml:1: profiles is an array of tables; write each profile as a table: [profiles.NAME]`},
		{"theme = \"dark\"\n[profiles.x\n", `config /c.toml:2: not valid TOML: expected '.' or ']' to end table name, but got '\n' instead`},
		{"[profiles.\"a\\nb\"]\n", `config /c.toml:1: profile name "a\nb" must be 1 to 64 lower-case letters, digits, - and _, starting with a letter or digit`},
		{"\xff = 1\n", `config /c.toml: is not UTF-8 text; it must be TOML`},
		// The first problem in the file is the one reported.
		{"[profiles.b]\nkind = \"nope\"\n[profiles.a]\nkind = \"nope\"\n", `config /c.toml:2: profiles.b.kind "nope" is not one of acp, codex, claude, shell`},
	} {
		_, err := Parse("/c.toml", []byte(tc.in), readyMade)
		got := ""
		if err != nil {
			got = err.Error()
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("%q: error %T is not a *config.Error", tc.in, err)
			}
		}
		if got != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.in, got, tc.want)
		}
	}
}

// The [host] table: its two keys, checked, with a clear error naming the
// key for a bad value.
func TestHostTable(t *testing.T) {
	cfg, err := Parse("/c.toml", []byte("[host]\nmode = \"inline\"\nlinger = \"90s\"\n"), nil)
	if err != nil || cfg.HostMode != "inline" || cfg.HostLinger != "90s" {
		t.Fatalf("parse: %+v %v", cfg, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"[host]\nmode = \"detached\"\n", "host.mode"},
		{"[host]\nlinger = \"soon\"\n", "linger \"soon\" is not a duration"},
		{"[host]\nlingr = \"1m\"\n", "unknown key host.lingr"},
		{"host = 3\n", "write it as a table: [host]"},
	} {
		if _, err := Parse("/c.toml", []byte(tc.file), nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.file, err, tc.want)
		}
	}
	for in, want := range map[string]time.Duration{"never": -1, "0": 0, "10m": 10 * time.Minute} {
		if got, err := ParseLinger(in); err != nil || got != want {
			t.Errorf("ParseLinger(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// The [ui] table: scrollback is a whole number of lines from 0 (none) to
// MaxScrollback; anything else is one line naming the key and the value.
func TestUITable(t *testing.T) {
	for in, want := range map[string]int{"[ui]\nscrollback = 10000\n": 10000, "[ui]\nscrollback = 0\n": 0,
		"[ui]\nscrollback = 100_000\n": MaxScrollback} {
		cfg, err := Parse("/c.toml", []byte(in), nil)
		if err != nil || cfg.UIScrollback == nil || *cfg.UIScrollback != want {
			t.Errorf("%q: %+v %v, want scrollback %d", in, cfg, err, want)
		}
	}
	if cfg, err := Parse("/c.toml", []byte("[ui]\n"), nil); err != nil || cfg.UIScrollback != nil {
		t.Errorf("an empty [ui]: %+v %v, want scrollback unset", cfg, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"[ui]\nscrollback = -1\n", `config /c.toml:2: ui.scrollback -1 is not 0 (none) to 100000 lines`},
		{"[ui]\nscrollback = 100001\n", `config /c.toml:2: ui.scrollback 100001 is not 0 (none) to 100000 lines`},
		{"[ui]\nscrollback = \"10000\"\n",
			`config /c.toml:2: ui.scrollback is a string; write a whole number of lines, such as 10000 (0 keeps none)`},
		{"[ui]\nscrollback = 1e4\n",
			`config /c.toml:2: ui.scrollback is a float; write a whole number of lines, such as 10000 (0 keeps none)`},
		{"theme = \"dark\"\n[ui]\nscrolback = 5\n", `config /c.toml:3: unknown key ui.scrolback; [ui] has scrollback`},
		{"ui = 3\n", `config /c.toml:1: ui is an integer; write it as a table: [ui]`},
	} {
		_, err := Parse("/c.toml", []byte(tc.file), nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got  %v\n want %s", tc.file, err, tc.want)
		}
	}
}

// The [commands] table: env is an array of variable names and prefixes
// ending in "*"; anything else is one line naming the key and the entry.
func TestCommandsTable(t *testing.T) {
	cfg, err := Parse("/c.toml", []byte("[commands]\nenv = [\"GOPATH\", \"NODE_*\", \"_X\"]\n"), nil)
	if err != nil || !reflect.DeepEqual(cfg.CommandEnv, []string{"GOPATH", "NODE_*", "_X"}) {
		t.Fatalf("parse: %+v %v", cfg, err)
	}
	if cfg, err := Parse("/c.toml", []byte("[commands]\nenv = []\n"), nil); err != nil || cfg.CommandEnv == nil || len(cfg.CommandEnv) != 0 {
		t.Errorf("an empty env: %+v %v, want an empty list", cfg, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"[commands]\nenv = [\"*\"]\n",
			`config /c.toml:2: commands.env entry "*" would pass every variable, credentials included; name each variable (GOPATH) or a prefix (NODE_*)`},
		{"[commands]\nenv = [\"GOPATH\", \"A=B\"]\n",
			`config /c.toml:2: commands.env entry "A=B" is not a variable name (GOPATH) or a name prefix with one trailing * (NODE_*)`},
		{"[commands]\nenv = [\"*_KEY\"]\n",
			`config /c.toml:2: commands.env entry "*_KEY" is not a variable name (GOPATH) or a name prefix with one trailing * (NODE_*)`},
		{"[commands]\nenv = [\"GOPATH\", 3]\n", `config /c.toml:2: commands.env entry 2 is an integer; every entry must be a string`},
		{"[commands]\nenv = \"GOPATH\"\n",
			`config /c.toml:2: commands.env is a string; write it as an array of variable names, such as ["GOPATH", "NODE_*"]`},
		{"[commands]\nenvs = []\n", `config /c.toml:2: unknown key commands.envs; [commands] has env`},
		{"commands = 1\n", `config /c.toml:1: commands is an integer; write it as a table: [commands]`},
	} {
		_, err := Parse("/c.toml", []byte(tc.file), nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got  %v\n want %s", tc.file, err, tc.want)
		}
	}
}

// The [worktree] table: dir is absolute or starts with ~/, and
// WorktreeRoot expands the ~; anything else is one line naming the key.
func TestWorktreeTable(t *testing.T) {
	for in, want := range map[string]string{
		"[worktree]\ndir = \"/srv/wt\"\n":     "/srv/wt",
		"[worktree]\ndir = \"/srv/wt/\"\n":    "/srv/wt",
		"[worktree]\ndir = \"~/worktrees\"\n": "/home/u/worktrees",
		"[worktree]\ndir = \"~\"\n":           "/home/u",
		"[worktree]\n":                        "",
		"theme = \"dark\"\n":                  "",
	} {
		cfg, err := Parse("/c.toml", []byte(in), nil)
		if err != nil || cfg.WorktreeRoot("/home/u") != want {
			t.Errorf("%q: %+v %v, want the root %q", in, cfg, err, want)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{"[worktree]\ndir = \"wt\"\n",
			`config /c.toml:2: worktree.dir "wt" is a relative path; write an absolute one or one starting with ~/ (each thread's worktree goes in DIR/<thread id>)`},
		{"[worktree]\ndir = \"~bob/wt\"\n",
			`config /c.toml:2: worktree.dir "~bob/wt" is a relative path; write an absolute one or one starting with ~/ (each thread's worktree goes in DIR/<thread id>)`},
		{"[worktree]\ndir = \"\"\n", `config /c.toml:2: worktree.dir "" must be a non-empty string without control characters`},
		{"[worktree]\ndir = 3\n", `config /c.toml:2: worktree.dir is an integer; it must be a string`},
		{"[worktree]\npath = \"/x\"\n", `config /c.toml:2: unknown key worktree.path; [worktree] has dir`},
		{"worktree = \"/x\"\n", `config /c.toml:1: worktree is a string; write it as a table: [worktree]`},
	} {
		_, err := Parse("/c.toml", []byte(tc.file), nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v\nwant %s", tc.file, err, tc.want)
		}
	}
}

// A [team] table names the hub, the credentials and the project.
func TestTeam(t *testing.T) {
	cfg, err := Parse("/c.toml", []byte("[team]\nurl = \"nats://a:4222,nats://b:4222\"\ncredentials = \"/h/host.creds\"\nproject = \"acme/web\"\nlease = \"20s\"\nreplicas = 3\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Team{URL: "nats://a:4222,nats://b:4222", Credentials: "/h/host.creds", Project: "acme/web", Lease: 20 * time.Second, Replicas: 3}
	if cfg.Team == nil || *cfg.Team != want {
		t.Fatalf("[team] read as %+v, want %+v", cfg.Team, want)
	}
	if cfg, _ := Parse("/c.toml", []byte("theme = \"dark\"\n"), nil); cfg.Team != nil {
		t.Fatal("a file without [team] has a team")
	}
}
