package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

func (a *app) cmdRollback(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rollback", flag.ContinueOnError)
	to := fs.Int("to-run", -1, "the run whose end state to restore (0: before run 1)")
	pos, err := parseArgs(fs, args, 1, 1, "nexus rollback THREAD --to-run N")
	if err != nil {
		return err
	}
	if *to < 0 {
		return usageErr("--to-run N is required (0 restores the workspace as it was before run 1)")
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	sub, err := s.Subscribe(ctx, 0)
	if err != nil {
		return err
	}
	rec, err := a.submit(ctx, s, core.Command{Kind: core.CmdRollbackToRun, Thread: pos[0], Run: *to})
	if err != nil {
		return err
	}
	err = a.waitOp(ctx, sub, rec.Op)
	s.linger(ctx)
	return err
}

// waitOp follows the journal until an operation is no longer running and
// reports its outcome.
func (a *app) waitOp(ctx context.Context, sub *core.Subscription, id string) error {
	st := sub.State
	for {
		if op := st.Operations[id]; op != nil && op.Status != core.OpRunning {
			switch op.Status {
			case core.OpCompleted:
				fmt.Fprintf(a.stdout, "rolled back %s to run %d: %s\n", op.Thread, op.ToRun, op.Detail)
				return nil
			default:
				return failErr("rollback %s %s: %s", id, op.Status, op.Detail)
			}
		}
		ev, ok := <-sub.Events
		if !ok {
			if err := sub.Err(); err != nil && !errors.Is(err, context.Canceled) {
				return failErr("lost the host during the rollback (%v); `nexus resume` finishes it", err)
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
	pos, err := parseArgs(fs, args, 1, 1, "nexus diff THREAD [--run N] [--stat]")
	if err != nil {
		return err
	}
	st, err := a.state(ctx)
	if err != nil {
		return err
	}
	th := st.Threads[pos[0]]
	if th == nil {
		return failErr("unknown thread %q: list threads with `nexus thread list`", pos[0])
	}
	n := *run
	if n == 0 {
		for _, r := range st.RunsOf(th.ID) {
			if c := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(r.Ordinal))]; c != nil && c.Status == core.CkReady {
				n = r.Ordinal
			}
		}
		if n == 0 {
			return failErr("thread %s has no run with a checkpoint yet", th.ID)
		}
	}
	to := st.Checkpoints[core.CheckpointID(th.ID, core.RunScope(n))]
	if to == nil || to.Status != core.CkReady {
		return failErr("run %d of %s has no ready checkpoint (%s)", n, th.ID, checkpointState(to))
	}
	from := st.ParentCommit(th.ID, n)
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	d, err := checkpoint.New(dir, checkpoint.Options{}).Diff(ctx, th.Workspace, from, to.Commit)
	if err != nil {
		return failErr("diff of run %d: %v", n, err)
	}
	for _, f := range d.Files {
		fmt.Fprintf(a.stdout, " %s %s | +%d -%d\n", f.Status, f.Path, f.Added, f.Deleted)
	}
	fmt.Fprintf(a.stdout, " %d file(s) changed, %d insertion(s), %d deletion(s)\n", len(d.Files), d.Added, d.Deleted)
	if !*stat {
		fmt.Fprint(a.stdout, "\n"+strings.TrimRight(d.Patch, "\n")+"\n")
		if d.Truncated {
			fmt.Fprintln(a.stdout, "[diff truncated]")
		}
	}
	return nil
}

func checkpointState(c *core.Checkpoint) string {
	if c == nil {
		return "none"
	}
	return c.Status + " " + c.Reason
}
