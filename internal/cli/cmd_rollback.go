package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

func (a *app) cmdRollback(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rollback", flag.ContinueOnError)
	to := fs.Int("to-run", -1, "the run whose end state to restore (0: before run 1)")
	node := fs.String("to-node", "", "a subagent node whose checkpoint to restore (its id in `thread show --json`)")
	mark := fs.String("to-checkpoint", "", "a checkpoint to restore: its id, or its scope (mark/1)")
	undo := fs.Bool("undo", false, "undo the thread's last rollback: files and runs as they were before it (again: redo)")
	force := fs.Bool("force", false, "overwrite files changed since by hand or by another thread (kept otherwise)")
	pos, err := parseArgs(fs, args, 1, 1, "nexus rollback THREAD --to-run N | --to-node NODE | --to-checkpoint CP | --undo")
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	cmd := core.Command{Kind: core.CmdRollbackToRun, Thread: pos[0], Run: *to}
	switch given := btoi(*to >= 0) + btoi(*node != "") + btoi(*mark != "") + btoi(*undo); {
	case given == 0:
		return usageErr("--to-run N is required (0 restores the workspace as it was before run 1), or --to-node NODE, --to-checkpoint CP or --undo")
	case given > 1:
		return usageErr("give one of --to-run, --to-node, --to-checkpoint and --undo")
	case *undo:
		cmd = core.Command{Kind: core.CmdRollbackUndo, Thread: pos[0]}
	case *node != "":
		cmd = core.Command{Kind: core.CmdRollbackNode, Thread: pos[0], Node: *node}
	case *mark != "":
		cmd.Run, cmd.Checkpoint = 0, *mark
		if !strings.Contains(*mark, "/cp/") {
			cmd.Checkpoint = core.CheckpointID(pos[0], *mark)
		}
	}
	cmd.Force = *force
	return a.submitFollow(ctx, cmd, func(sub *core.Subscription, rec *core.Receipt) error {
		return a.waitOp(ctx, sub, rec.Op)
	})
}

// submitFollow submits a command to the host, subscribed from the start
// so no event of its outcome is missed, and waits with wait.
func (a *app) submitFollow(ctx context.Context, cmd core.Command, wait func(*core.Subscription, *core.Receipt) error) error {
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	sub, err := s.subscribeOf(ctx, 0, api.StateQuery{Threads: []string{cmd.Thread}})
	if err != nil {
		return err
	}
	rec, err := a.submit(ctx, s, cmd)
	if err != nil {
		return err
	}
	err = wait(sub, rec)
	s.linger(ctx)
	return err
}

// waitOp follows the journal until an operation is no longer running and
// reports its outcome.
func (a *app) waitOp(ctx context.Context, sub *core.Subscription, id string) error {
	return a.follow(ctx, sub, "the rollback (%v); `nexus resume` finishes it", func(st *core.State) (bool, error) {
		op := st.Operations[id]
		if op == nil || op.Status == core.OpRunning {
			return false, nil
		}
		if op.Status != core.OpCompleted {
			return true, failErr("rollback %s %s: %s", id, op.Status, op.Detail)
		}
		if op.Undoes != "" {
			fmt.Fprintf(a.stdout, "undid %s of %s (`nexus rollback %s --undo` again redoes it): %s\n", op.Undoes, op.Thread, op.Thread, op.Detail)
			return true, keptErr(op)
		}
		to := fmt.Sprintf("run %d", op.ToRun)
		if op.Target != "" {
			to = fmt.Sprintf("%s (run %d)", op.Target, op.ToRun)
		}
		fmt.Fprintf(a.stdout, "rolled back %s to %s (`nexus rollback %s --undo` undoes it): %s\n", op.Thread, to, op.Thread, op.Detail)
		return true, keptErr(op)
	})
}

// keptErr is exit 1 naming the paths a rollback kept because someone
// else changed them since: the rest is done, and --force overwrites them.
func keptErr(op *core.Operation) error {
	if len(op.Kept) == 0 {
		return nil
	}
	return failErr("rollback %s kept %d path(s) changed since by hand or by another thread: %s; "+
		"the rest is rolled back; to overwrite them too: `nexus rollback %s --undo`, then the same rollback with --force",
		op.ID, len(op.Kept), strings.Join(op.Kept, ", "), op.Thread)
}

// follow applies the subscription's events to its state until done says
// so (with the command's outcome). lost completes "lost the host during
// " with the error when the host goes away first.
func (a *app) follow(ctx context.Context, sub *core.Subscription, lost string, done func(*core.State) (bool, error)) error {
	st := sub.State
	for {
		if ok, err := done(st); ok {
			return err
		}
		ev, ok := <-sub.Events
		if !ok {
			if err := sub.Err(); err != nil && !errors.Is(err, context.Canceled) {
				return failErr("lost the host during "+lost, err)
			}
			return ctx.Err()
		}
		if ev.Seq > 0 {
			if err := st.Apply(&ev); err != nil {
				return err
			}
		}
	}
}

func (a *app) cmdDiff(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	run := fs.Int("run", 0, "the run whose changes to show (default: the latest)")
	stat := fs.Bool("stat", false, "only the file list with line counts")
	from := fs.String("from", "", "diff from this checkpoint (a run number, base, mark/1, a node scope or an id) ...")
	to := fs.String("to", "", "... to this one")
	pos, err := parseArgs(fs, args, 1, 1, "nexus diff THREAD [--run N | --from CP --to CP] [--stat]")
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	if (*from == "") != (*to == "") || *from != "" && *run != 0 {
		return usageErr("give --from and --to together, or --run N")
	}
	s, err := a.dialOrHost(ctx, true)
	if err != nil {
		return err
	}
	a.atExit = append(a.atExit, s.stop)
	var st *core.State
	if _, remote := s.Backend.(*natsjournal.Remote); !remote {
		if st, err = s.stateOf(ctx, api.StateQuery{Threads: []string{pos[0]}}); err != nil {
			return err
		}
	}
	out, err := diffOn(ctx, s.Backend, st, s.dir, host.DiffQuery{Thread: pos[0], Run: *run, From: *from, To: *to, Stat: *stat})
	if err != nil {
		return err
	}
	fmt.Fprint(a.stdout, out)
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
