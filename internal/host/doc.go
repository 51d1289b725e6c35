// Package host owns a state dir for as long as it runs: the journal
// (store), the Runner (core), the provider registry, the worker pool,
// the checkpoint executor and the socket server (core/api). Start
// opens it; Close stops it in the order that keeps the journal honest
// (the Runner first, so providers can no longer report; then the
// providers, the checkpoint executor, the worker pool, the socket and the
// journal).
//
// The effect router (Start's exec) sends checkpoint and restore effects
// to the checkpoint executor (checkpoints.go: one workspace at a time,
// in the kernel's order) and every other effect to the provider registry.
// The backend the socket serves adds the providers' live terminals to
// the Runner (terminals.go).
//
// A host tells what it does and is stopped through api.Admin (admin.go):
// Live counts runs not yet ended, pending requests, live terminals,
// missions at work and schedules; Stop refuses without force while any
// but schedules is live (LiveWork.Ongoing); Verify and Export work on
// the journal it holds open. Dead is closed when the Runner stops on its
// own (the journal failed beyond recovery), with Err saying why: its
// owner closes the host and exits non-zero.
//
// Whoever decides when a host may leave (a command-line host's linger
// and drain, a background host's linger period) does it through Watch
// (watch.go): a check of the state called again only when a client
// connects or leaves, an event is journaled, or a deadline the check
// asked for comes. Nothing polls: an idle host wakes only for a failsafe
// check every 30 s, so no lost wake-up can keep it alive for good.
//
// # Team mode
//
// With [team] in the config (team.go) the Runner's journal is the
// project's on a hub (store/natsjournal) instead of the state dir's. The
// host first takes the project's writer lease (one writing host per
// project: a second one fails, naming the holder), then opens the
// journal with its name as the writer of every message, and passes the
// name to the Runner, whose Recover journals it before anything else, so
// the new writer's first commit moves the journal past whatever a host it
// took over from still tries to append. The Runner appends through
// leasedJournal, which refuses once the lease's own deadline has passed;
// watchLease stops the host (StopRequested) when the lease is lost, and
// LeaseErr says why, so `nexus serve` exits non-zero. The state dir's
// bbolt journal is still opened, for its lock and host.pid, and must be
// empty; Verify and Export refuse. `nexus serve --take-over` retries
// Start while the lease is held (internal/cli). Checkpoints, worktrees,
// the socket and the agents' processes stay in the state dir. On the hub
// the host serves (serveTeam) the project's command queue, live text to
// remote viewers, its threads' terminals and their diffs (Diff, made
// from this host's checkpoints, which no other machine has).
//
// # Diffs
//
// Diff (diff.go) is the text of `nexus diff`: a run's changes or those
// between two checkpoints, one line a file with its counts, a total and
// the patch. The CLI and the UI compute it in their own process from a
// copy of the state (it only reads git objects); a host in team mode
// makes it for the hub's other machines.
//
// # Mission steps
//
// The missioner (missions.go) runs the kernel's mission effects: it
// makes worktrees (STATE_DIR/worktrees/<thread or mission id>, or under
// [worktree] dir), runs the verification command with /bin/sh in its own
// process group (the host's environment with pagers off; output kept up
// to 1 MiB, then the kernel keeps its head and tail; killed after
// VerifyTimeout), and commits, merges and reads the diff a reviewer is
// shown (from the mission's base, bounded by core.MaxReviewDiff, cut at
// a line with a note that says so) with the checkpoint manager's
// neutral git (no hook, filter, merge driver or signing program runs).
// Steps of one mission run one at a time in the order issued; steps of
// different missions at once. A step's outcome is reported only while
// the host lives: one cut off by a stop is issued again by the next
// host's recovery, and each step is safe to run again.
//
// A mission at work (Mission.Working) is live work: a background host
// does not linger out while one runs, and a command-line host serves
// until it ends or waits on the person.
//
// # Schedules
//
// Schedules fire from the Runner's timers, so only while a host runs.
// A schedule (not removed) is live work: a background host with one does
// not linger out, and serves until it is stopped (`nexus host stop`,
// which schedules alone do not refuse: they are durable, and the next
// host fires each one whose slot passed meanwhile once, at its start).
// A command-line host (inline mode) does not stay for schedules: it
// fires them while it serves, and the next host catches up. A private
// host (Start's private: one read-only command) runs its Runner with
// NoSchedules: it neither fires nor arms them, since it exits as soon as
// its command has printed. NEXUS_SCHEDULE_MIN_EVERY (a Go duration) is a
// tuning knob the end-to-end tests use: the shortest "every" schedule.add
// takes, a minute otherwise.
//
// # Notify command
//
// With [notify] command set, the host follows its own journal
// (notify.go) and runs the command once per notice (core.NoticeOf: a
// request opened, a run failed, a run finished) of the kinds [notify]
// events names, whether or not a UI is attached. The command reads one
// JSON object and a newline on stdin (NotifyEvent: kind, thread, title,
// run, request, requestKind, prompt, text, at); it is argv, not a shell
// line, and inherits the host's environment. It must never stop or slow
// the host: the journal reader only queues (256 notices; beyond, one is
// dropped with a log line), four workers run commands, each in its own
// process group, killed with its children after NotifyTimeout (30 s) or
// when the host stops. A command that fails or times out, and whatever
// one writes on stderr (its first 2 KiB), is one line in the log
// SetNotifyLog sets (`nexus serve`: its stderr, host.log for a
// background host); stdout is dropped. Notices from before the host
// started are not sent again.
//
// Profiles (profiles.go) are the ready-made agents plus the config
// file's, resolved against the environment: NEXUS_<PROFILE>_COMMAND and
// the model variables win over the file.
package host
