// Package core is the kernel of nexus: the domain model, the commands and
// events, a pure decider, the synchronous Kernel and the Runner goroutine
// that owns it. It imports only the standard library (deps_test.go checks).
//
// # Shape
//
// Every input (a Command from a person or script, an Observation from a
// provider or effect, a TimerFired, the Recover pass at host start, the
// Shutdown pass at clean exit) goes through Decide(state, input), which
// returns events, effects and, for a command, its Receipt. Decide is pure:
// no clock, no randomness, no I/O; the edge (Runner.Submit, Observe) stamps
// the time and new ids. Each emitted event is applied to the State at once
// (State.Apply: upsert the entities it carries by id), so later decisions
// in the same pass see it.
//
// The Kernel accumulates Ready{Events, Commits, Effects}. The Runner, the
// only goroutine that touches the Kernel, drains up to 512 queued inputs,
// steps each, appends all their events in one Journal.Append (one fsync),
// and only then publishes the events to subscribers, starts the effects and
// answers the callers; then it calls Advance. If the append fails, the
// in-memory state is ahead of the journal: the Runner rebuilds it from the
// journal and every caller of the batch gets the error. Reads (State,
// Subscribe) are answered between batches, so they see only durable state
// and a subscriber's snapshot never overlaps its first event.
//
// # Invariants
//
//   - Entities in State are never mutated after they are stored; Decide
//     copies before it changes. Clone is therefore a cheap shallow copy.
//   - Seq is gapless from 1; Apply refuses a gap.
//   - A finished run's history may be sealed (sealed.go): kept out of the
//     maps behind a Seal that loads it on first use, as a State loaded
//     from a snapshot does. Code reads attempts, nodes, todo lists and
//     effect records through the accessors (Attempt, Node, Plan, Effect,
//     AttemptsOf, NodesOf, EffectsOf), never the maps directly, and Apply
//     thaws a sealed run before an event changes it. Sealing changes the
//     representation only: every accessor answers the same either way, and
//     JSON of a State (the socket) is sent with everything thawed.
//   - A command id seen before is answered with its first Receipt and
//     journals nothing (receipts are part of the State, so this survives
//     restarts). Input that cannot form a valid command (*InputError) is
//     refused at the edge and journals nothing; a well-formed command the
//     decider rejects against the state is journaled as command.rejected
//     with a typed reason.
//   - Ids are derived from their parents so the decider stays pure and
//     people can read them: thread t3f9a2c, run t3f9a2c/1, attempt
//     t3f9a2c/1/a2, node t3f9a2c/1/a2/n3, request R7.
//   - Late observations for an attempt that is not its run's current one,
//     or that already ended, produce no events.
//   - A run becomes terminal only at the completion barrier of its current
//     attempt (turn.ended): open child nodes are closed, pending requests
//     of the attempt settled, the todo list finalized, the reply recorded.
//     Workspace checkpoints join the barrier when they exist.
//
// # Decisions where DESIGN.md is silent
//
//   - The capability policy lives in the decider: message.send auto picks
//     start, steer or restart from the thread's Capabilities; an explicit
//     steer to a provider that cannot steer becomes a steering restart when
//     it can interrupt, else unsupported_capability.
//   - queue_after_active with nothing active starts at once (unless the
//     queue is held). queue.release also clears a thread-wide hold set by
//     `interrupt --hold-queue`.
//   - A run interrupted by a host restart is marked Recoverable and blocks
//     its thread's queue until `nexus resume` continues it (a new attempt,
//     reason provider_recovery) or `nexus interrupt` gives it up. A new
//     message in mode auto, steer or restart continues it too, folded in
//     as steering (`nexus send T "continue"` after a crash does what it
//     says); mode start_immediately is refused with the two ways out.
//   - DurableRequests (the built-in agent): pending requests survive the
//     provider process. Answering one after a restart resolves it and
//     continues the run with a provider_recovery attempt that carries the
//     settled answers, so nothing is asked twice. For other providers a
//     pending request of a dead process becomes not_resumable, visibly.
//   - The session registry allows STARTING -> STOPPING and STARTING ->
//     FAILED besides DESIGN.md §2's list: a process can die or be stopped
//     before its first turn.
//   - Streamed text: the Runner publishes each delta live as an unjournaled
//     node.delta event (Seq 0) and journals the joined text as node.text at
//     most TextFlushInterval later, at the node's final delta, or before any
//     other input of the same thread, so journal order equals provider order.
//   - Snapshots: once the journal is DefaultSnapshotEvery events past the
//     newest snapshot, whichever host appended them (asynchronously, from
//     a Clone), and at clean exit when anything changed since the last one.
//     Counting from the snapshot rather than from the host's start keeps
//     recovery short even when hosts keep dying before they reach N.
//   - Checkpoint files: a run's checkpoint records the files it changed
//     against the parent commit its capture effect named (the empty tree
//     when there was none, as `nexus diff` compares), sorted by path, at
//     most MaxCheckpointFiles with MoreFiles counting the rest; the
//     baseline records none. The executor reports them in the checkpoint
//     observation (Files, MoreFiles). When it cannot compute them the
//     checkpoint is still ready, without files, and its Reason says why:
//     a capture is never lost to its statistics. Checkpoints are not part
//     of a sealed run's history, so they stay in the live projection.
//   - Merge-back lists "Files changed" from the fork's run checkpoints,
//     one line per path, sorted: "a.txt (modified, +3 -1)", "b.txt (added,
//     +10)", "c.txt (deleted, -4)", "p.png (added, binary)", line counts
//     summed over the runs, the latest status kept except that a file the
//     fork added stays "added" ("added, then deleted" once removed again)
//     and one deleted and added back is "modified"; then "and N more
//     file(s) the checkpoints do not list" for capped lists. A run whose
//     checkpoint lists no file (no workspace, file list not recorded, or
//     a journal from before checkpoints had files) contributes its
//     write_file and edit_file steps as before: "d.txt (write_file)".
//   - Rollback's provider step: the built-in agent (DurableRequests: its
//     context is the journal) needs nothing, rolled-back runs simply
//     leave its context; a terminal (PTY) keeps no conversation. An agent
//     that can revert its own conversation (Caps.Rollback: Codex's
//     thread/revert) keeps it: the first native turn after the run
//     (Attempt.NativeTurn, reported with turn.started) is recorded as the
//     provider thread's RevertBefore, the live session stopped, and the
//     next turn reverts the resumed conversation before it starts; the
//     provider's next native ref clears it, and a refused revert is a
//     failed resume (handoff, new conversation). Every other agent holds
//     the later runs in a conversation of its own, so the rollback sets it
//     aside: the provider thread is marked unavailable, the live session
//     stopped, and a full_thread_summary handoff records the history up to
//     the run, which the next turn starts a new conversation from. An
//     agent that can fork its own conversation but not revert it
//     (Caps.Fork without Caps.Rollback: Claude Code) goes on in a fork of
//     it through the run's last native turn (ProviderThread.ForkOf/ForkAt,
//     opened at the next turn), leaving the old conversation as it was.
//   - Child scopes and marks (decide_scope.go): a subagent node that ran
//     a step which can change files (a worker step other than a read, or
//     any tool call of an external agent) is captured when it ends, as
//     scope node/<run>/<attempt>/<node> with the run's parent, so its
//     files are the run's changes up to the node's end. checkpoint.capture
//     marks an idle thread's workspace as scope mark/<k>, belonging to the
//     newest run not rolled back; one capture of either kind at a time,
//     and a run sent while a mark is captured waits for it (AwaitBase).
//     A run's parent checkpoint (State.ParentCommit: what its files and
//     `nexus diff --run` compare with) is the newest ready mark taken
//     after the run before it, else that run's own checkpoint, so edits a
//     person marked between runs are not counted as the next run's.
//     rollback.node (and rollback.to_run with Command.Checkpoint, for a
//     mark) restores that checkpoint, drops the runs after its run like a
//     run rollback (no provider step when there are none), marks their
//     checkpoints stale, and records in Operation.Dirty whether the files
//     now differ from the run's own checkpoint. A node or mark capture a
//     restart cut short is recorded as an error at recovery, not redone:
//     the workspace has moved on since.
//   - Forks: a fork of a thread whose agent can fork its conversation
//     (Caps.Fork) gets a provider thread to be forked from the source's
//     through the fork point's last native turn; its first turn opens it
//     (Codex thread/fork, Claude --fork-session --resume-session-at) and
//     sends only the new message. Otherwise, and when the agent refuses,
//     the fork's first turn starts a new conversation with the history.
//   - Runtime capability downgrade: a provider reports an effect its
//     installed version cannot do with status EffUnsupported. For a steer
//     the thread's Steer capability is cleared (journaled; it holds until
//     the thread switches provider) and the run restarts with the
//     message, as mode restart would (decide_downgrade.go).
package core
