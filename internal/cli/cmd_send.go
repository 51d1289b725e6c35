package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

var sendModes = map[string]core.SendMode{
	"auto": core.ModeAuto, "steer": core.ModeSteer, "restart": core.ModeRestart, "queue": core.ModeQueue,
	"immediate": core.ModeImmediate,
}

func (a *app) cmdSend(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	mode := fs.String("mode", "auto", "auto, steer, restart or queue")
	provider := fs.String("provider", "", "switch the thread to this provider first")
	noWait := fs.Bool("no-wait", false, "return once the message is journaled")
	mergeBack := fs.String("merge-back", "", "bring this thread's (a fork's) conclusions with the message")
	pos, err := parseArgs(fs, args, 2, 2, `nexus send THREAD TEXT|- [--mode auto|steer|restart|queue]`)
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	m, ok := sendModes[*mode]
	if !ok {
		return usageErr("unknown mode %q: use auto, steer, restart or queue", *mode)
	}
	if pos[1] == "-" {
		text, err := a.readStdin()
		if err != nil {
			return err
		}
		pos[1] = text
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if *provider != "" {
		reg, err := a.registry()
		if err != nil {
			return err
		}
		prof, err := reg.Lookup(*provider)
		if err != nil {
			return usageErr("%v", err)
		}
		if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdProviderSwitch, Thread: pos[0],
			Provider: prof.Name, Caps: prof.Caps}); err != nil {
			return err
		}
	}
	rec, err := a.submit(ctx, s, core.Command{Kind: core.CmdMessageSend, Thread: pos[0], Text: pos[1], Mode: m, MergeBack: *mergeBack})
	if err != nil {
		return err
	}
	if *noWait {
		fmt.Fprintf(a.stdout, "%s\n", rec.Run)
		return nil
	}
	err = a.waitRuns(ctx, s, []string{rec.Run}, false, nil)
	s.linger(ctx)
	return err
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	// run --mission GOAL is mission new GOAL --wait: the mission's flags
	// apply, and it waits until the mission ends or needs you.
	for i, arg := range args {
		if arg == "--mission" || arg == "-mission" {
			rest := append(append(slices.Clone(args[:i]), args[i+1:]...), "--wait")
			return a.missionNew(ctx, rest)
		}
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var o threadOpts
	o.flags(fs)
	asJSON := fs.Bool("json", false, "print the journal events as JSON lines")
	pos, err := parseArgs(fs, args, 1, 1, `nexus run TEXT [--provider P] [--workspace DIR] [--yes] [--budget-usd X] [--max-tokens N] [--json]`)
	if err != nil {
		return err
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	rec, err := a.createThread(ctx, s, o)
	if err != nil {
		return err
	}
	th := rec.Thread
	if !*asJSON {
		fmt.Fprintf(a.stdout, "Thread %s (%s)\n", th, o.provider)
	}
	rec, err = a.submit(ctx, s, core.Command{Kind: core.CmdMessageSend, Thread: th, Text: pos[0]})
	if err != nil {
		return err
	}
	var pr *progress
	if !*asJSON {
		pr = &progress{w: a.stdout, run: rec.Run}
	}
	err = a.waitRuns(ctx, s, []string{rec.Run}, *asJSON, pr)
	s.linger(ctx)
	return err
}

func (a *app) cmdResume(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("resume", flag.ContinueOnError)
	pos, err := parseArgs(fs, args, 0, 1, "nexus resume [THREAD]")
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
			return err
		}
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	cmd := core.Command{Kind: core.CmdRunResume}
	if len(pos) == 1 {
		cmd.Thread = pos[0]
	}
	sub, err := s.subscribeOf(ctx, 0, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	rec, err := a.submit(ctx, s, cmd)
	if err != nil {
		return err
	}
	if rec.Op != "" {
		if err := a.waitOp(ctx, sub, rec.Op); err != nil {
			return err
		}
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	var runs []string
	for _, th := range sortedThreads(st) {
		if cmd.Thread != "" && th.ID != cmd.Thread {
			continue
		}
		// Running, or already waiting on a question it asked at once (an
		// unknown command outcome): waitRuns reports both.
		if r := st.ActiveRun(th.ID); r != nil {
			runs = append(runs, r.ID)
		}
	}
	if len(runs) == 0 {
		if rec.Op == "" {
			fmt.Fprintln(a.stdout, "nothing to resume")
		}
		s.linger(ctx)
		return nil
	}
	err = a.waitRuns(ctx, s, runs, false, nil)
	s.linger(ctx)
	return err
}

// waitRuns follows the journal until each run is terminal (exit 0, or 1 if
// one failed) or waiting on a request (exit 3, the request ids printed).
// A queued run that becomes active is followed the same way.
func (a *app) waitRuns(ctx context.Context, s *session, runs []string, asJSON bool, pr *progress) error {
	var threads []string
	for _, id := range runs {
		if th, _, ok := strings.Cut(id, "/"); ok && !slices.Contains(threads, th) {
			threads = append(threads, th)
		}
	}
	sub, err := s.subscribeOf(ctx, 0, api.StateQuery{Threads: threads, Brief: len(threads) == 0})
	if err != nil {
		return err
	}
	st := sub.State
	pending := map[string]bool{}
	for _, id := range runs {
		pending[id] = true
	}
	var failed []string
	var waiting []*core.Request
	check := func() {
		for id := range pending {
			r := st.Runs[id]
			if r == nil {
				continue
			}
			switch {
			case r.Status == core.RunWaiting:
				for _, q := range st.RequestsOf(id) {
					if q.Status == core.RequestPending {
						waiting = append(waiting, q)
					}
				}
				delete(pending, id)
			case core.Terminal(r.Status):
				if !asJSON && r.Reply != "" {
					fmt.Fprintln(a.stdout, r.Reply)
				}
				if r.Status != core.RunCompleted {
					failed = append(failed, fmt.Sprintf("run %d of %s %s: %s", r.Ordinal, r.Thread, r.Status, r.Error))
				}
				delete(pending, id)
			}
		}
	}
	check()
	enc := json.NewEncoder(a.rawStdout)
	for len(pending) > 0 {
		ev, ok := <-sub.Events
		if !ok {
			if err := sub.Err(); err != nil && !errors.Is(err, context.Canceled) {
				return failErr("lost the host while waiting (%v); the run goes on if the host lives: see `nexus thread show`", err)
			}
			return ctx.Err()
		}
		if ev.Seq == 0 {
			if ev.Type == core.EvJournalStalled {
				return failErr("the host cannot write its journal (%s); what the agents report is held and recorded once it can: make room, then see `nexus thread show`",
					ev.Payload.Text)
			}
			continue
		}
		if err := st.Apply(&ev); err != nil {
			return err
		}
		if asJSON && pending[ev.Run] {
			_ = enc.Encode(ev)
		}
		if pr != nil {
			pr.event(st, &ev)
		}
		check()
	}
	if len(waiting) > 0 {
		var hints []string
		for _, q := range waiting {
			fmt.Fprintln(a.stdout, q.ID)
			how := fmt.Sprintf("`nexus respond %s --allow` or `nexus respond %s --deny`", q.ID, q.ID)
			if q.Kind == core.RequestUserInput {
				how = fmt.Sprintf("`nexus respond %s --answer TEXT`", q.ID)
			}
			hints = append(hints, fmt.Sprintf("%s (%s) %q: answer with %s", q.ID, q.Kind, firstLineOf(q.Prompt), how))
		}
		msg := "waiting on " + strings.Join(hints, "; ")
		if th := st.Threads[waiting[0].Thread]; s.host != nil && th != nil && !th.Caps.DurableRequests {
			// This process is the host: when it exits, the agent process
			// holding the request goes with it.
			msg += "; " + th.Provider + " keeps the request in its own process, so run `nexus serve` (or the UI) and send again to answer it"
		}
		return &exitError{code: ExitWaiting, msg: msg}
	}
	if len(failed) > 0 {
		return failErr("%s", strings.Join(failed, "; "))
	}
	return nil
}

// readStdin reads a message given as "-", up to one byte over the limit so
// the kernel's edge reports an oversized message with its size.
func (a *app) readStdin() (string, error) {
	b, err := io.ReadAll(io.LimitReader(a.stdin, core.MaxTextBytes+1))
	if err != nil {
		return "", failErr("reading the message from stdin: %v", err)
	}
	if len(b) > core.MaxTextBytes {
		// Say how big the message really is, as the UI's composer does.
		rest, err := io.Copy(io.Discard, a.stdin)
		if err != nil {
			return "", failErr("reading the message from stdin: %v", err)
		}
		return "", usageErr("the message on stdin is %d bytes, over the limit of %d bytes; send a shorter one, or put it in a file in the workspace and ask the agent to read it",
			int64(len(b))+rest, core.MaxTextBytes)
	}
	return string(b), nil
}
