// Package config reads nexus's config file: the theme, the host, the UI,
// where worktrees go, notifications and the provider profiles (docs/ARCHITECTURE.md, "Providers and
// sessions").
//
// # Location
//
// $NEXUS_CONFIG when set (a path), else $XDG_CONFIG_HOME/nexus/config.toml,
// else ~/.config/nexus/config.toml. A missing file is not an error: nexus
// runs with the ready-made profiles and the default theme.
//
// # Format (TOML, github.com/BurntSushi/toml)
//
//	theme = "light"            # dark, light, high-contrast or none
//
//	[host]
//	mode = "background"        # or "inline": the first nexus hosts in process
//	linger = "10m"             # after the last client and live work; "0", "never"
//
//	[ui]
//	scrollback = 10000         # lines a terminal pane keeps; 0 keeps none
//
//	[commands]
//	env = ["GOPATH", "GOFLAGS", "NODE_*"]  # more variables for the agent's commands
//
//	[worktree]
//	dir = "~/worktrees"        # threads' own git worktrees: DIR/<thread id>
//
//	[notify]
//	bell = true                # the UI rings the terminal bell
//	desktop = true             # the UI writes desktop notifications (OSC 9, 777, 99)
//	title = true               # the UI keeps the title at "nexus · 2 waiting"
//	events = ["waiting", "failed", "finished"]   # which events notify
//	command = ["ntfy", "publish", "mytopic"]     # the host runs it per event
//
//	[profiles.codex]           # a ready-made name: overrides its settings
//	model = "gpt-5-codex"
//	approval = "allow-writes"
//
//	[profiles.review]          # a new name: a custom profile
//	kind = "acp"               # acp, codex, claude or shell
//	command = ["goose", "acp"] # program and arguments, one word each
//	env = { GOOSE_MODE = "smart_approve" }
//	approval = "ask"           # ask, allow-writes, allow-commands, allow-all
//	budget_usd = 5             # a new thread's budget in USD (0: none)
//	max_tokens = 2000000       # and its token cap (0: none)
//
// kind is required for a new profile and optional for a ready-made one
// (claude, codex, gemini, claude-acp, codex-acp, shell), where it must
// match. A new acp profile needs command; the other kinds default to the
// ready-made command (claude, codex app-server, $SHELL). model is for
// codex and claude only: ACP's model selection is an unstable protocol
// extension, and a shell has none, so for them the model goes in command.
// The built-in agent's profiles (builtin, builtin:*) take no settings
// here: their model comes from the environment.
//
// scrollback is how many lines of output a terminal pane (a shell
// thread's, an agent's command's) keeps above its screen for
// shift+pgup and the wheel: a whole number from 0 (none) to
// MaxScrollback (100,000); without it the UI keeps 10,000. Each attached
// pane holds its lines in memory, as text. Each UI reads [ui] when it
// opens.
//
// [commands] env names the variables the built-in agent's commands get
// on top of the defaults: PATH, HOME, USER, LOGNAME, SHELL, LANG,
// LANGUAGE, LC_*, TZ, TMPDIR, XDG_CONFIG_HOME, XDG_CACHE_HOME,
// XDG_DATA_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR, SSL_CERT_FILE and
// SSL_CERT_DIR (TERM is dumb, PWD the command's directory). Nothing else
// of the host's environment reaches a command (workers/doc.go,
// "Environment"). An entry is a variable name (GOPATH) or a prefix with
// one trailing * (NODE_*), which never passes a name that looks like a
// credential (NODE_AUTH_TOKEN); a name listed exactly always passes, so
// list a token only when commands must have it. A bare "*" is refused.
// External agents (profiles) run their own commands with their own
// environment; this key is not for them.
//
// dir is where a thread made with its own git worktree (`thread new
// --worktree`, `thread fork --worktree`, the UI's "own worktree") gets
// it: DIR/<thread id>. It is an absolute path or starts with ~/ (the
// user's home; ~user is not read); a relative path is an error, since
// nexus runs from any directory. Without it worktrees go in
// STATE_DIR/worktrees. Keep it outside the repositories: a worktree
// inside its own repository shows there as an untracked directory. The
// command or UI that makes a worktree reads it; a thread records its
// worktree's path, so a changed dir moves no existing worktree.
//
// [notify] says how a person is told that a run started waiting on an
// approval or a question (waiting), failed (failed) or completed
// (finished): the kinds in events, every kind without it, none with [].
// bell, desktop and title (each true when not set) are what the UI does
// for a thread the person is not looking at (tui/doc.go,
// "Notifications"). command is argv, run by the host (so with no UI
// attached too) once per event of those kinds, with the event as one
// JSON object on its stdin (internal/host/doc.go, "Notify command"); it
// is not run through a shell. `nexus notify test` tries each.
//
// [team] puts the host's journal on a hub (README, "Team mode"): url is
// one nats:// or tls:// URL, or several comma-separated for a cluster;
// credentials and ca are absolute paths (the host.creds file the hub
// wrote, the PEM of a hub certificate's authority); project names the
// journal, the same on every box of the project; lease is a duration
// from 1s to 1h (how long a dead host keeps the project; 15s when not
// set); replicas is 1, or 3 on a cluster of three hubs. url and project
// are required.
//
// approval is a new thread's policy: allow-writes lets it write files,
// allow-commands run commands, allow-all both, without asking; ask (the
// default) asks for each. It becomes the thread's allow list
// (core.Command.Allow, the same list as `thread new --yes` and "allow
// always") when the thread is created, by the command line and the UI;
// `--yes` still allows both. A thread keeps its list when it switches
// provider, and a fork inherits it. Each adapter turns the list into its
// agent's own controls (Codex's approval policy and sandbox, Claude
// Code's permission mode, ACP's permission options): README, "Approval
// policy", and providers/*/doc.go.
//
// budget_usd and max_tokens are a new thread's budget and token cap
// (core.Command.BudgetUSD, MaxTokens) when `thread new` or `run` gives
// none (a non-zero --budget-usd or --max-tokens wins), by the command
// line and the UI alike; the kernel holds the thread's next turn when it
// would pass them (README, "Cost, tokens and budgets").
//
// # Precedence
//
// Flags and the environment win over the file: --theme over theme (and
// NO_COLOR over both, as package themes decides), NEXUS_<PROFILE>_COMMAND
// over command, NEXUS_CODEX_MODEL and NEXUS_CLAUDE_MODEL over model. env
// is added after nexus's own environment, so it wins there. The host
// reads the file when it starts and runs the agents: a changed file takes
// effect with the next host. A client reads it too, to check the
// --provider it names and take that profile's approval policy; a profile
// the running host does not know fails its runs with "not configured on
// this host" until the host restarts.
//
// # Secrets
//
// Secrets belong in the user's environment, which every agent inherits;
// env values in the file are for settings. Profiles are not journaled: a
// thread records its profile's name, capabilities and allow list, never
// its env or model (a failed start may name the program in the run's
// error).
//
// # Errors
//
// A file that cannot be used is one error, one line, naming the file and
// the line when known, and what to do:
//
//	config /home/u/.config/nexus/config.toml:7: profiles.x.kind "acpp" is not one of acp, codex, claude, shell
//
// Unknown keys are errors too, so a typo does not silently do nothing.
// The first problem in file order is the one reported. BurntSushi/toml
// reports positions only for syntax errors and for values it fails to
// decode, so the line of any key comes from decoding the file once more
// into a struct built to fail at that key (parser.line). internal/cli
// makes the error exit code 2 (usage) for the commands that need
// profiles or the theme; verify, export, import, version and help never
// read the file.
//
// # Imports
//
// The standard library, core (the notice kinds) and BurntSushi/toml (MIT,
// no dependencies, the reference Go TOML decoder) only: internal/host turns profiles into
// provider registry entries, so the providers never import this package.
package config
