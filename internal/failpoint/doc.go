// Package failpoint lets crash tests kill the process at named points:
// before and after the journal commit (bbolt's fsyncs), around snapshot
// writes, and around the start and completion of a worker step's effect.
//
// It is compiled in only with the build tag `failpoints`; without it Hit is
// an empty function the compiler removes, so release builds pay nothing.
// With the tag, NEXUS_FAILPOINT=NAME kills the process with SIGKILL the
// first time Hit(NAME) runs, and NAME:N the N-th time. Names are listed in
// Names; a test checks every name is hit.
//
// NEXUS_FAILPOINT_EIO=NAME[:N] fails instead of killing: at the N-th
// Err(NAME) the disk "dies", and from then on every Err returns EIO, so a
// journal append fails and so does the reload that would recover from it
// ("store.append" and "store.read"). It tests that a host whose kernel
// stops says so and exits non-zero.
package failpoint

// Names are the failpoints of nexus.
var Names = []string{
	"store.commit.before",   // a batch is about to be committed (before bbolt's fsyncs)
	"store.commit.after",    // the commit returned (durable), before callers are answered
	"store.snapshot.before", // a snapshot is about to be written
	"store.snapshot.after",  // a snapshot was written
	"step.started.after",    // a worker step's start is durable, before it runs
	"step.done.before",      // a worker step ran, before its completion is journaled
	"checkpoint.capture",    // a checkpoint capture is about to run (refs not yet updated)
	"rollback.safety",       // a rollback or undo is about to save the workspace as it is
	"rollback.files.before", // a rollback's restore of the files is about to run
	"rollback.files.after",  // the files are restored, before the kernel hears of it
	"mission.worktree",      // a mission's worktree is about to be made
	"mission.verify",        // a verification command is about to run
	"mission.commit",        // a task's work is about to be committed
	"mission.merge",         // a task is about to be merged into the mission's worktree
	"mission.apply",         // the result is about to be merged into the base workspace
	"mission.undo",          // a mission's result is about to be taken out of the base workspace
	"mission.done",          // a mission step ran, before the kernel hears of it
}
