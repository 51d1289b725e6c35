// Package cli is nexus's command line: it parses the arguments of one
// invocation, reaches the kernel (session.go) and runs the command. Run
// is the whole program; package main only wires signals to it.
//
// # Reaching the kernel
//
// connect dials the host of the state dir. With none answering it starts
// a background host (background.go: `nexus serve --background`, detached,
// its log in host.log) and dials it, or in inline mode becomes the host
// in process (internal/host). A command that only reads (thread show,
// requests, diff) and finds no host hosts only itself, serving nobody.
// verify and export go through a running host; verify --repair and
// import open the journal exclusively. A command that became the host
// lingers while clients are connected or runs run, and drains its
// clients before it exits; a background host leaves after its linger
// period with no client and no live work. All three wait on
// host.Host.Watch: signals, never a polling loop.
//
// Team mode (cmd_team.go): `--project P` makes the invocation a client
// of project P on the hub of the config's [team] table instead of the
// state dir's host: its session's backend is a natsjournal.Remote (state
// and events from the project's journal, commands through the project's
// command queue to whichever host holds it). Every command and the UI
// run on it unchanged; a command with no host to run it fails saying it
// is queued ("no owner"). `nexus team` lists the hub's projects by host.
// The UI loops on tui.SwitchProject: the team dialog's pick reopens it on
// that project (this box's own project through its own host, any other
// through the hub). Paths on a hub project are its host's machine's
// (edge.go): a new thread's workspace defaults to the project's latest
// thread's and is never checked here; worktrees and missions, made at
// the edge, are refused with a line saying to run them there. `nexus
// diff` and the UI's diff view ask the host (host.Diff, through the hub).
//
// # Waiting
//
// send, respond, run and resume wait until the runs they started or let
// go on are terminal (exit 0, or 1 when one failed) or wait on a request
// (exit 3, each request id printed on stdout), so scripts can chain
// `nexus send` and `nexus respond`. --no-wait returns once the command is
// journaled.
//
// # Worktrees
//
// A thread's own git worktree is made here, at the edge, before the
// kernel journals the thread that works in it, and removed here after
// the thread is archived (cmd_worktree.go): in STATE_DIR/worktrees/<id>,
// or the config file's [worktree] dir. The UI gets the same operations,
// and the worktree dialog's diff, commit and merge, through
// tui.Options.Worktrees (tui_worktree.go), run in its own process on a
// fresh copy of the state, off its event loop.
//
// # Missions
//
// mission new resolves at the edge what the kernel cannot: the
// repository of the workspace and its HEAD (the tasks' base; a workspace
// outside git, or a repository with no commit, is a usage error saying
// how to make one), each --agents name as an agent alias or else a
// profile with its capabilities, and the repository's conventions file
// (AGENTS.md, CLAUDE.md or CONVENTIONS.md, at most 32 KiB). --wait
// follows the journal (a subscription, no polling) and prints a line per
// change of the mission.
//
// # Schedules
//
// schedule add SPEC TARGET TEXT checks SPEC before any host is involved
// (a usage error saying what a valid spec looks like), then resolves
// TARGET: the word `mission` takes mission new's flags and resolves the
// mission's shape as it does (mission_shape.go: repository, base commit,
// agents), stored in the schedule; any other word is a THREAD (a thread
// titled "mission" is named by its id), and mission flags with it are a
// usage error. schedule list shows times in UTC, as cron specs are.
//
// # Output
//
// --json prints the views of view.go: a contract (README.md "JSON
// output"); testdata/json pins their field names (TestJSONShapes).
// Errors are one line on stderr starting "nexus: "; the exit codes are
// ExitOK, ExitFailed, ExitUsage, ExitWaiting and ExitLocked. On a
// terminal, stdout and stderr clean agent text (internal/textsafe: no
// escape sequences, bidi overrides shown); --json output is exact.
//
// # Decisions
//
// Where this package chose for the user, the choice and its reason are
// in docs/decisions/ (cli-*.md).
package cli
