// Package core is the kernel of nexus: the domain model, the commands and
// events, a deterministic decider, the synchronous Kernel and the Runner
// goroutine that owns it. It imports only the standard library
// (internal/layout/deps_test.go checks).
//
// # Shape
//
// Every input (a Command from a person or script, an Observation from a
// provider or effect, a TimerFired, the Recover pass at host start, the
// Shutdown pass at clean exit) goes through Decide(state, input), which
// returns events, effects and, for a command, its Receipt. Decide is
// deterministic: no clock, no randomness, no I/O, nothing read but the
// State and the input; the edge (Runner.Submit, Observe) stamps the time
// and new ids. It is not free of effects on the State it is given: each
// emitted event is applied to it at once (State.Apply: upsert the entities
// it carries by id), so later decisions in the same pass see it. What it
// may touch is listed under Invariants.
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
// Streamed text is the one input not stepped as it comes: the Runner
// publishes each text delta live as an unjournaled node.delta event (Seq
// 0) and hands the joined text to Decide later (runner_text.go): at most
// TextFlushInterval after the first delta (UrgentFlushInterval for an
// Observation marked Urgent), at the node's Final delta, or before any
// other input of the same thread, so the journal keeps the provider's
// order. The buffers share one flush timer, set for the earliest deadline
// any of them has: when it fires every buffer is handed over in the same
// batch, so the text of all threads costs one commit per flush.
//
// Text is journaled once. A node.updated or run.updated whose node text
// or run reply is the one the state holds carries none and sets
// Payload.KeepText (State.Apply keeps the held text), and a whole text a
// provider re-sends that only grew (a command's output so far) is
// journaled as a node.text of what it added. A long reply costs its
// deltas and the run's reply once, not a copy per status change.
//
// # Who calls what
//
// The Runner's methods (Submit, State, Subscribe, Observe, Record) are
// safe for concurrent use; Run is called once and owns the Kernel until
// its context ends. Kernel, Decide and State are not safe for concurrent
// use. A State returned by State or in a Subscription is the caller's own
// copy: it may read it and Apply later events to it. RunnerConfig.Exec is
// called on the Runner's goroutine and must not block.
//
// # Invariants
//
//   - Entities in State are never mutated after they are stored; Decide
//     copies before it changes. Clone is therefore a cheap shallow copy.
//   - Decide(st, in) touches st only as State.Apply of the events it
//     returns, in order, would: Seq, RequestCount and Receipts; the entity
//     maps, where a stored pointer is replaced by the event's, never
//     written through; the derived index (built on first use, then
//     appended to); Sealed, from which a run an event changes is thawed
//     into the maps (the representation changes, not what any accessor
//     answers). Reading a sealed history loads it into its Seal, which
//     clones share, and records a failure to read as SealErr. Nothing else:
//     no entity value, slice or map it finds in st is changed, so a Clone
//     taken before Decide, and a snapshot being encoded from one, stay as
//     they were; st after Decide equals st before plus the returned
//     events; a refused input leaves st as it was. Making Decide work on a
//     copy instead would cost a Clone of the whole projection per input.
//     TestDecideTouchesOnlyWhatDocSays checks this at every step of the
//     testdata/decide scenarios, hot and sealed.
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
//   - Ids are derived from their parents so the decider stays
//     deterministic and people can read them: thread t3f9a2c, run t3f9a2c/1, attempt
//     t3f9a2c/1/a2, node t3f9a2c/1/a2/n3, request R7.
//   - Late observations for an attempt that is not its run's current one,
//     or that already ended, produce no events.
//   - A run becomes terminal only at the completion barrier of its current
//     attempt (turn.ended): open child nodes are closed, pending requests
//     of the attempt settled, the todo list finalized, the reply recorded.
//     Workspace checkpoints join the barrier when they exist.
//   - A node keeps at most MaxNodeText bytes of agent text (bound.go):
//     what an agent says cannot grow the journal or the state without
//     bound.
//   - A rollback changes only what its thread changed (own.go): a run's
//     checkpoint lists its own paths; an operation records what it
//     changes before it changes it, and can be undone (decide_undo.go).
//   - A new run's turn does not start while the thread's spend plus the
//     cost of its latest run would pass its budget, or the day's spend
//     of all threads the daily budget (budget.go): the run
//     waits on a budget request, the kernel's own, until it is answered
//     or thread.budget raises the budget. Usage is summed onto the run
//     and the thread as the provider reports it (decide_step.go).
//   - The Runner never drops what an effect reported: when an append
//     fails, those observations are held and decided again, in order,
//     once the journal takes appends (a full disk with room made).
//
// # Agents
//
// An Agent (agent.go) is a durable identity: an alias, the provider
// profile it runs on (the profile names the provider, model and approval
// policy) and instructions. Its project is the state dir: one state dir
// holds one set of aliases, whatever workspace a thread runs in, because
// the journal, not a workspace, is what survives restarts and what every
// client of the host shares (separate projects use separate state dirs,
// NEXUS_STATE_DIR). agent.add journals an agent.updated with a new id
// the edge made; a second agent with a live alias is rejected
// (invalid_state). An alias that is not 1..32 lower-case letters, digits,
// - or _ starting with a letter, a missing profile, instructions over
// MaxInstructionsBytes, an unknown alias to remove or start a thread as,
// are refused at the edge. Whether the profile exists is the edge's
// check (the host and CLI know the profiles; core does not).
//
// agent.remove marks the agent Removed and frees its alias; a later
// agent.add of the alias is a new identity with a new id. A thread
// created as an agent (thread.create with Agent) records the agent's id
// and alias (Thread.Agent, AgentAlias), and so do its forks; it keeps
// them after the agent is removed, and TurnFor puts the agent's alias and
// instructions on every turn of the thread (Turn.Agent, Instructions),
// removed or not: the thread was started as that identity. The edge
// gives such a thread the agent's profile as its provider and policy.
//
// # Missions
//
// A Mission (mission.go, decide_mission.go) is the orchestrated
// lifecycle: a goal, a strategy, a verification command and/or a
// reviewer, the agents that work it, and its tasks. mission.create
// carries the whole mission as the edge resolved it (its id, the
// repository and the commit Base the tasks start from, each agent's
// profile and capabilities); every change of it is one mission.updated
// event carrying it whole. The decider drives it;
// nothing else does:
//
//   - split: a planner thread (PlanThreadID, a child of the mission) gets
//     PlanPrompt and the goal; when its run ends, ParsePlan reads the
//     tasks from its reply (numbered or bulleted lines, "(after N)" for a
//     dependency on an earlier task) and the mission waits for
//     mission.approve (awaiting_plan_approval), or runs at once with
//     AutoApprove. Agents are assigned to tasks in turn.
//   - race: one task per agent, each the whole goal, at once.
//
// A task whose dependencies passed gets a worktree (a mission step, see
// below) from Base, then a thread of its own (TaskThreadID, linked both
// ways: Thread.Mission and Task, Task.Thread) and a run whose message is
// compiled (below). When its run completes, a race's task is verified in
// its worktree; a split's task is one part of the goal, so it is only
// committed, and verification runs on the merged result. A failed
// verification (or a failed run) sends the verifier's output to the
// task's thread as its next run while the task has attempts left
// (MaxAttempts, default 3); a run someone interrupted is not retried.
// Then a race goes on without the task and a split sets Question and
// waits: mission.approve gives one more attempt, mission.stop ends it.
//
// A run someone stopped (thread.stop on a task's thread, an interrupt)
// cancels its task, and the tasks that depend on it, with no retry; the
// mission goes on without them. thread.stop on the planner's thread is
// mission.stop. mission.approve of a plan waiting for approval may carry
// the person's edit of it (NewMission.Tasks, read with ParsePlan at the
// edge), which replaces the proposed tasks.
//
// With a Reviewer (an agent or profile, resolved at the edge as the
// agents are), verification is the command and then the reviewer's
// verdict. Once a result passed its command, or when there is none (a
// race's task once committed, a split's merged result), the diff step
// (OpDiff) reads its change from Base, bounded by MaxReviewDiff, and the
// reviewer's thread gets a compiled review: one thread per mission
// (ReviewThreadID, in the base workspace, made at the first review,
// linked with Thread.Mission and Task ReviewTask, which no task is), each
// review queued behind the ones before and named by Task.Review or
// Mission.Review while in flight. When its run ends, ParseVerdict reads
// the reply: the first line PASS or FAIL, then the reasons; any other
// reply, or a review run that did not complete, is a FAIL that says why.
// The verdict is journaled as a Check (Review, Command "@" and the
// reviewer's name, Exit 0 or 1, Output the reasons) and decides as the
// command's exit would: a PASS passes the task or applies the merged
// result, a FAIL goes back to the task's thread (the merged result's: to
// every task's) as its next run with the reasons, and counts as a failed
// attempt (a failed round of the merged result, as a failed command
// does).
//
// Once every task is settled a split makes the mission's worktree,
// merges the passed tasks into it in order (tasks are numbered after
// their dependencies), verifies the merged result (on failure every task
// gets the output and another attempt, within MaxAttempts rounds, then
// Question; a merge that fails, as on a conflict, sets Question too and
// approve merges again, finding what the person merged by hand), and
// applies it: a merge of the mission's branch into the
// branch checked out in the base workspace, as `git merge` would (a
// fast-forward when the base did not move), which git can undo in one
// step. A race votes: nexus votes for the passing task with the smallest
// diff; with a reviewer, its PASS is its vote for that task (Voter "@"
// and its name), so it votes once for every task it passed and nexus's
// vote decides among those unless the person's does; the person's
// mission.vote counts the same as any; the most votes win and a tie goes
// to the smaller diff. The winner's branch is applied and the losers'
// threads archived. Every vote is journaled in the mission.
//
// mission.rollback takes a completed mission's result out of the base
// workspace in one step (OpUndo: the branch back to the merge's first
// parent, or to Base after a fast-forward; refused by the host when the
// branch has moved on), and the mission is rolled_back.
//
// mission.stop cancels the mission and stops its threads depth first:
// the tasks (last first), then the reviewer, then the planner, each as
// thread.stop does (queue held, session stopped), in one pass.
// mission.resume resumes the threads a host restart cut off, the
// reviewer's too: a review's verdict is taken when its run ends.
//
// Mission steps are effects of kind EffMission (Op: worktree, verify,
// commit, merge, diff, apply), journaled effect.started before they run
// and completed when their ObsMission comes back. Each is idempotent (a
// worktree add finishes, a commit finds nothing left to commit, a merge
// finds its branch merged, a diff reads the same change), and at most
// one is in flight per task and per mission (Task.Pending,
// Mission.Pending), so the Recover pass issues an unfinished one again:
// no step is journaled twice, no verification whose result is journaled
// runs again, and no merge is applied twice.
//
// # Compiled context
//
// A task's run is sent a message compiled from sections (Section,
// CompileText) that say where each part comes from: agent (its identity
// when it is one), project (the worktree, branch and base commit, the
// repository's conventions file as the edge read it), task (the goal,
// what the tasks it depends on replied, the verification command, then
// the task itself, last), runtime (a verifier's output, a reviewer's
// reasons, the person's request for another attempt). The sections are
// journaled with the run (Run.Context); thread show --json shows them,
// and for any other run the sections it is made of (its agent's
// instructions, handoff, merge-back and the person's message). A review
// is compiled the same way: agent (the reviewer's identity), project
// (where the change is, the conventions), task (the goal, the work under
// review), runtime (the change), and last the instruction, which begins
// with ReviewPrompt.
//
// # Schedules
//
// A Schedule (schedule.go, decide_schedule.go) sends its text to a
// thread, or starts a mission with its text as the goal, whenever its
// spec comes due: "every D" (slots at CreatedAt + k*D, so a late fire
// does not shift the next) or a 5-field cron expression in UTC (minute,
// hour, day of the month, month, day of the week: numbers, *, ranges,
// lists, steps; when both day fields are restricted a day matches
// either, as in cron). ParseSpec and Spec.Next are pure: the next slot
// comes from the spec and a time the input carries, never a clock.
// schedule.add carries the schedule as the edge resolved it (its id;
// for a mission target, the mission's shape as mission.create would
// carry it, resolved when the schedule is added: workspace, repository,
// base commit, agents), and journals a schedule.updated;
// schedule.remove marks it Removed. A spec that does not parse or never
// comes due, a missing target, an unknown thread or agent are refused
// at the edge; the Runner also refuses an "every" under its
// MinScheduleEvery (a minute by default; the kernel's own floor is
// MinEvery, a second).
//
// Firing: each schedule has a timer (EffTimer, key
// "schedule:<id>:<NextAt>"), armed by schedule.add, by each fire and by
// the Recover pass; timers are not journaled. A TimerFired whose key's
// NextAt is not the schedule's is stale (it fired, or was removed) and
// does nothing; one early by the wall clock is armed again. A fire
// journals cron.fired carrying the schedule whole (LastAt, the NextAt
// after the fire's time, the counts) with a Note of what it did, then
// does the work in the same pass: a message.send in queue mode (it
// never steers or interrupts the thread's work; the thread's next run),
// or a mission.create of a copy of the stored shape whose id is
// ScheduleMissionID(schedule, fire number) and whose goal is the text.
// Work that cannot be done (the thread was archived) leaves the reason
// in Schedule.Error with a schedule.updated; the schedule goes on. A
// fire whose previous fire's work has not begun (its run still queued)
// or ended (its mission) is skipped: journaled and counted (Skipped),
// nothing piled up.
//
// Slots pass without a fire while no host runs. The Recover pass fires
// each schedule whose NextAt has passed once, whatever the number of
// slots it missed, and its note says so ("missed 3 fires while no host
// ran; fired once at start"; Missed adds them up); then it arms the
// others. Recover.At is the time the edge stamped, so this too is
// deterministic. A Recover with NoSchedules (a host that serves one
// read-only command and exits) neither fires nor arms: a fire there
// would start work the exit cuts off. A timer whose fire the journal
// could not take (a full disk) is held and decided again, as an
// observation is.
//
// # Decisions
//
// Where the decider had to choose (the capability policy, queues after a
// restart, durable requests, text coalescing, snapshots, checkpoint file
// lists, merge-back, how a rollback or a fork reaches each agent, child
// scopes and marks, runtime downgrades, undo, a run's own paths, budgets, schedules), docs/decisions/ records the
// choice, why, and what was rejected (the core-* files).
// docs/ARCHITECTURE.md places the kernel in the whole: the path of a
// command and of an agent's output, where each effect runs, recovery.
package core
