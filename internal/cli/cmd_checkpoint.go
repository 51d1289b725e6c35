package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// cmdCheckpoint marks the workspace of an idle thread (checkpoint.capture)
// and waits until the capture is done: `nexus rollback T --to-checkpoint
// mark/K` restores it later.
func (a *app) cmdCheckpoint(ctx context.Context, args []string) error {
	pos, err := parseArgs(flag.NewFlagSet("checkpoint", flag.ContinueOnError), args, 1, 1, "nexus checkpoint THREAD")
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	return a.submitFollow(ctx, core.Command{Kind: core.CmdCheckpoint, Thread: pos[0]}, func(sub *core.Subscription, rec *core.Receipt) error {
		return a.waitCheckpoint(ctx, sub, rec.Checkpoint)
	})
}

// waitCheckpoint follows the journal until the checkpoint is recorded and
// prints it.
func (a *app) waitCheckpoint(ctx context.Context, sub *core.Subscription, id string) error {
	return a.follow(ctx, sub, "the capture (%v); `nexus thread show` says whether it was taken", func(st *core.State) (bool, error) {
		cp := st.Checkpoints[id]
		switch {
		case cp == nil:
			return false, nil
		case cp.Status != core.CkReady:
			return true, failErr("checkpoint %s: %s: %s", id, cp.Status, cp.Reason)
		}
		fmt.Fprintf(a.stdout, "checkpoint %s ready: %s (%s)\n", id, shortCommit(cp.Commit), changedSince(cp))
		return true, nil
	})
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// changedSince says what a mark holds against the checkpoint before it
// (the newest of its run's own and the marks taken after that run).
func changedSince(cp *core.Checkpoint) string {
	since := "the last checkpoint"
	n := len(cp.Files) + cp.MoreFiles
	if n == 0 {
		return "no change since " + since
	}
	var names []string
	for _, f := range cp.Files {
		names = append(names, f.Path)
	}
	if cp.MoreFiles > 0 {
		names = append(names, fmt.Sprintf("%d more", cp.MoreFiles))
	}
	return fmt.Sprintf("%d file(s) changed since %s: %s", n, since, strings.Join(names, ", "))
}
