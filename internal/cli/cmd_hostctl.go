package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core/api"
)

// cmdHost is `nexus host status|stop`: what the host of the state dir is
// doing, and stopping it.
func (a *app) cmdHost(ctx context.Context, args []string) error {
	const usage = "nexus host status [--json] | nexus host stop [--force]"
	if len(args) == 0 {
		return usageErr("usage: %s", usage)
	}
	sub, args := args[0], args[1:]
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	switch sub {
	case "status":
		fs := flag.NewFlagSet("host status", flag.ContinueOnError)
		asJSON := fs.Bool("json", false, "JSON output")
		if _, err := parseArgs(fs, args, 0, 0, "nexus host status [--json]"); err != nil {
			return err
		}
		c := a.runningHost(ctx, dir)
		if c == nil {
			if *asJSON {
				fmt.Fprintln(a.stdout, `{"running":false}`)
				return nil
			}
			fmt.Fprintf(a.stdout, "no host serves %s\n", dir)
			return nil
		}
		defer c.Close()
		st, err := c.HostStatus(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(a.rawStdout).Encode(struct {
				Running bool `json:"running"`
				api.HostStatus
			}{true, st})
		}
		kind := "foreground (nexus serve or an inline host)"
		if st.Background {
			kind = "background, linger " + st.Linger
		}
		fmt.Fprintf(a.stdout, "host pid %d, %s\nserving %s\nup %s\nclient connections: %d\nlive work: %s\n",
			st.PID, kind, st.StateDir, time.Since(time.Unix(0, st.StartedAt)).Round(time.Second), st.Connections, st.Live)
		return nil
	case "stop":
		fs := flag.NewFlagSet("host stop", flag.ContinueOnError)
		force := fs.Bool("force", false, "stop even with live work (runs, pending requests, live terminals end)")
		if _, err := parseArgs(fs, args, 0, 0, "nexus host stop [--force]"); err != nil {
			return err
		}
		c := a.runningHost(ctx, dir)
		if c == nil {
			fmt.Fprintf(a.stdout, "no host serves %s\n", dir)
			return nil
		}
		pid := c.Info().PID
		before, _ := c.HostStatus(ctx) // its schedules, to say when they fire again
		err := c.StopHost(ctx, *force)
		c.Close()
		// A host that stops may close the connection before its answer
		// is out: that is the answer.
		if err != nil && !errors.Is(err, api.ErrHostGone) {
			return failErr("%v", err)
		}
		// The host closes in order (runs are interrupted and journaled):
		// wait for the process to be gone so the state dir is free.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if syscall.Kill(pid, 0) != nil {
				break
			}
			if time.Now().After(deadline) {
				return failErr("host %d did not stop within a minute; kill it with kill %d", pid, pid)
			}
		}
		fmt.Fprintf(a.stdout, "stopped host %d\n", pid)
		if n := before.Live.Schedules; n > 0 {
			what := "1 schedule fires"
			if n > 1 {
				what = fmt.Sprintf("%d schedules fire", n)
			}
			fmt.Fprintf(a.stdout, "%s again when a host runs (any nexus command starts one); slots missed meanwhile fire once then\n", what)
		}
		return nil
	}
	return usageErr("unknown host command %q; usage: %s", sub, usage)
}
