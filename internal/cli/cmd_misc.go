package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

func (a *app) cmdQueue(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("queue", flag.ContinueOnError)
	const usage = "nexus queue THREAD list|hold|release|remove [RUN]"
	pos, err := parseArgs(fs, args, 2, 3, usage)
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	kinds := map[string]core.CommandKind{"hold": core.CmdQueueHold, "release": core.CmdQueueRelease, "remove": core.CmdQueueRemove}
	if pos[1] == "list" {
		st, err := a.state(ctx, api.StateQuery{Brief: true})
		if err != nil {
			return err
		}
		if st.Threads[pos[0]] == nil {
			return failErr("unknown thread %q: list threads with `nexus thread list`", pos[0])
		}
		for _, r := range st.RunsOf(pos[0]) {
			if r.Status == core.RunQueued {
				held := ""
				if r.Held || st.Threads[pos[0]].QueueHeld {
					held = " (held)"
				}
				fmt.Fprintf(a.stdout, "%d\t%s%s\t%s\n", r.Ordinal, r.Status, held, r.Text)
			}
		}
		return nil
	}
	kind, ok := kinds[pos[1]]
	if !ok {
		return usageErr("unknown queue action %q; usage: %s", pos[1], usage)
	}
	if len(pos) != 3 {
		return usageErr("%s needs a run number; usage: %s", pos[1], usage)
	}
	n, err := strconv.Atoi(pos[2])
	if err != nil || n < 1 {
		return usageErr("run %q is not a run number", pos[2])
	}
	return a.submitOnly(ctx, core.Command{Kind: kind, Thread: pos[0], Run: n})
}

func (a *app) cmdInterrupt(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("interrupt", flag.ContinueOnError)
	hold := fs.Bool("hold-queue", false, "also hold the queued runs")
	pos, err := parseArgs(fs, args, 1, 1, "nexus interrupt THREAD [--hold-queue]")
	if err != nil {
		return err
	}
	if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
		return err
	}
	return a.submitOnly(ctx, core.Command{Kind: core.CmdRunInterrupt, Thread: pos[0], HoldQueue: *hold})
}

func (a *app) cmdRequests(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("requests", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseArgs(fs, args, 0, 1, "nexus requests [THREAD] [--json]")
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
			return err
		}
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	if len(pos) == 1 && st.Threads[pos[0]] == nil {
		return failErr("unknown thread %q: list threads with `nexus thread list`", pos[0])
	}
	out := []RequestView{}
	for _, th := range sortedThreads(st) {
		if len(pos) == 1 && th.ID != pos[0] {
			continue
		}
		for _, r := range st.RunsOf(th.ID) {
			for _, q := range st.RequestsOf(r.ID) {
				if q.Status == core.RequestPending {
					out = append(out, viewRequest(st, q))
				}
			}
		}
	}
	for _, m := range st.MissionList() {
		if q, ok := missionRequest(m); ok && (len(pos) == 0 || q.Thread == pos[0]) {
			out = append(out, q)
		}
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(out)
	}
	return printRequests(a.stdout, out)
}

// printRequests is the table `nexus requests` prints. A prompt is shown
// whole, every line of it, each line after the first indented under its
// request with a bar, so a line of a prompt can never pass for another
// request's row.
func printRequests(w io.Writer, out []RequestView) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTHREAD\tRUN\tKIND\tPROMPT")
	for _, q := range out {
		lines := strings.Split(strings.TrimRight(q.Prompt, "\n"), "\n")
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", q.ID, q.Thread, q.Run, q.Kind, lines[0])
		if len(lines) > 1 {
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, l := range lines[1:] {
				fmt.Fprintf(w, "    │ %s\n", l)
			}
		}
	}
	return tw.Flush()
}

func (a *app) cmdRespond(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("respond", flag.ContinueOnError)
	allow := fs.Bool("allow", false, "allow once")
	always := fs.Bool("allow-always", false, "allow this kind of action for the thread")
	deny := fs.Bool("deny", false, "deny")
	answer := fs.String("answer", "", "answer a question")
	noWait := fs.Bool("no-wait", false, "return once the answer is journaled")
	const usage = "nexus respond REQUEST --allow|--allow-always|--deny|--answer TEXT [--no-wait]"
	pos, err := parseArgs(fs, args, 1, 1, usage)
	if err != nil {
		return err
	}
	answered := false
	fs.Visit(func(f *flag.Flag) { answered = answered || f.Name == "answer" })
	n, resp := 0, core.Response("")
	for _, c := range []struct {
		on   bool
		resp core.Response
	}{{*allow, core.RespAllow}, {*always, core.RespAllowAlways}, {*deny, core.RespDeny}, {answered, core.RespAnswer}} {
		if c.on {
			n++
			resp = c.resp
		}
	}
	if n != 1 {
		return usageErr("give exactly one of --allow, --allow-always, --deny or --answer; usage: %s", usage)
	}
	if id, ok := strings.CutPrefix(pos[0], missionRequestPrefix); ok {
		return a.respondMission(ctx, id, resp)
	}
	if *noWait {
		return a.submitOnly(ctx, core.Command{Kind: core.CmdRequestRespond, Request: pos[0], Response: resp, Answer: *answer})
	}
	// Like send: wait until the run the answer lets go on is terminal
	// (exit 0 or 1) or waits on its next request (exit 3, its id printed).
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdRequestRespond, Request: pos[0], Response: resp, Answer: *answer}); err != nil {
		return err
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	q := st.Requests[pos[0]]
	if q == nil || q.Run == "" {
		return nil
	}
	err = a.waitRuns(ctx, s, []string{q.Run}, false, nil)
	s.linger(ctx)
	return err
}

func (a *app) cmdLog(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON object per line")
	follow := fs.Bool("follow", false, "keep printing new events")
	lastN := fs.Int("n", 0, "only the last N events of the journal (then, with --follow, new ones)")
	sinceArg := fs.String("since", "", "only events from this time on: a duration ago (10m, 2h) or an RFC 3339 time")
	pos, err := parseArgs(fs, args, 0, 1, "nexus log [THREAD] [--json] [--follow] [-n N] [--since 10m|TIME]")
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if pos[0], err = a.threadArg(ctx, pos[0]); err != nil {
			return err
		}
	}
	if *lastN < 0 {
		return usageErr("-n %d: give a count of events, 1 or more", *lastN)
	}
	var since int64
	if *sinceArg != "" {
		if d, err := time.ParseDuration(*sinceArg); err == nil && d >= 0 {
			since = time.Now().Add(-d).UnixNano()
		} else if t, err := time.Parse(time.RFC3339, *sinceArg); err == nil {
			since = t.UnixNano()
			if t.After(time.Unix(0, math.MaxInt64)) {
				since = math.MaxInt64 // past what nanoseconds count: nothing is that late
			}
		} else {
			return usageErr("--since %q: give a duration ago (10m, 2h) or an RFC 3339 time (2026-12-01T10:00:00Z)", *sinceArg)
		}
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	thread := ""
	if len(pos) == 1 {
		thread = pos[0]
		st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
		if err != nil {
			return err
		}
		if st.Threads[thread] == nil {
			return failErr("unknown thread %q: list threads with `nexus thread list`", thread)
		}
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	last := st.Seq
	if last == 0 && !*follow {
		return nil
	}
	from := uint64(1)
	if *lastN > 0 && last > uint64(*lastN) {
		from = last - uint64(*lastN) + 1
	}
	sub, err := s.Subscribe(ctx, from)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(a.rawStdout)
	for ev := range sub.Events {
		if ev.Seq == 0 {
			continue
		}
		if (thread == "" || ev.Thread == thread) && ev.At >= since {
			if *asJSON {
				if err := enc.Encode(logRecord(ev)); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stdout, "%6d  %s  %-22s %s %s\n", ev.Seq, time.Unix(0, ev.At).Format("15:04:05.000"),
					ev.Type, ev.Thread, summary(&ev))
			}
		}
		if !*follow && ev.Seq >= last {
			return nil
		}
	}
	if err := sub.Err(); err != nil && ctx.Err() == nil {
		return failErr("log ended: %v", err)
	}
	return nil
}

// summary is a short human description of an event for `nexus log`.
func summary(ev *core.Event) string {
	p := &ev.Payload
	switch {
	case p.Rejection != nil:
		return string(p.Rejection.Reason) + ": " + p.Rejection.Detail
	case p.Receipt != nil:
		return string(p.Receipt.Kind)
	case p.Run != nil:
		return fmt.Sprintf("run %d %s", p.Run.Ordinal, p.Run.Status)
	case p.Attempt != nil:
		return fmt.Sprintf("attempt %s %s (%s)", p.Attempt.ID, p.Attempt.Status, p.Attempt.Reason)
	case p.Node != nil:
		return fmt.Sprintf("node %s %s %s", p.Node.ID, p.Node.Kind, p.Node.Status)
	case p.Request != nil:
		return fmt.Sprintf("request %s %s %s", p.Request.ID, p.Request.Kind, p.Request.Status)
	case p.Session != nil:
		return "session " + string(p.Session.State)
	case p.Effect != nil:
		return fmt.Sprintf("effect %s %s", p.Effect.Key, p.Effect.Status)
	case p.Thread != nil:
		return fmt.Sprintf("thread %s %s", p.Thread.Title, p.Thread.Status)
	case p.Schedule != nil && p.Note != "":
		return p.Schedule.ID + ": " + p.Note
	case p.Schedule != nil:
		s := fmt.Sprintf("schedule %s %q to %s", p.Schedule.ID, p.Schedule.Spec, p.Schedule.Target())
		if p.Schedule.Removed {
			s += " removed"
		}
		if p.Schedule.Error != "" {
			s += ": the fire failed: " + p.Schedule.Error
		}
		return s
	case p.Text != "":
		return fmt.Sprintf("%q", truncate(p.Text, 60))
	}
	return p.Note
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
