package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// missionTarget is the TARGET of `schedule add` that starts a mission;
// any other word names a thread (a thread titled "mission" is named by
// its id).
const missionTarget = "mission"

func (a *app) cmdSchedule(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: nexus schedule add|list|remove ...")
	}
	switch args[0] {
	case "add":
		return a.scheduleAdd(ctx, args[1:])
	case "list":
		return a.scheduleList(ctx, args[1:])
	case "remove":
		return a.scheduleRemove(ctx, args[1:])
	}
	return usageErr("unknown schedule command %q: use add, list or remove", args[0])
}

func (a *app) scheduleAdd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("schedule add", flag.ContinueOnError)
	shape := missionFlags(fs)
	pos, err := parseArgs(fs, args, 3, 3, `nexus schedule add SPEC THREAD|mission TEXT [mission flags: --strategy --agents --verify --workspace --yes ...]
  SPEC: "every D" (a Go duration of at least 1m, such as "every 1h"), or a cron expression
        "minute hour day-of-month month day-of-week" in UTC, such as "*/15 * * * *"`)
	if err != nil {
		return err
	}
	spec := strings.Join(strings.Fields(pos[0]), " ")
	if _, err := core.ParseSpec(spec); err != nil {
		return usageErr("%v", err)
	}
	sc := &core.Schedule{ID: core.NewID("s"), Spec: spec, Text: pos[2]}
	var m *core.Mission
	if pos[1] == missionTarget {
		if m, err = a.resolveMission(ctx, pos[2], shape); err != nil {
			return err
		}
		m.ID, m.Goal = "", "" // each fire gives its own id; the goal is the schedule's text
	} else {
		var given []string
		fs.Visit(func(f *flag.Flag) {
			if slices.Contains(missionFlagNames, f.Name) {
				given = append(given, "--"+f.Name)
			}
		})
		if len(given) > 0 {
			return usageErr("%s shape a mission: use them with the target `mission`, not a thread", strings.Join(given, ", "))
		}
		if sc.Thread, err = a.threadArg(ctx, pos[1]); err != nil {
			return err
		}
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if m != nil {
		if err := a.missionAgents(ctx, s, m, shape); err != nil {
			return err
		}
		sc.Mission = m
	}
	if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdScheduleAdd, NewSchedule: sc}); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, sc.ID)
	s.linger(ctx)
	return nil
}

func (a *app) scheduleRemove(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("schedule remove", flag.ContinueOnError)
	pos, err := parseArgs(fs, args, 1, 1, "nexus schedule remove SCHEDULE")
	if err != nil {
		return err
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	id, err := scheduleArg(st, pos[0])
	if err != nil {
		return err
	}
	if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdScheduleRemove, Schedule: id}); err != nil {
		return err
	}
	s.linger(ctx)
	return nil
}

// scheduleArg resolves a schedule id or a unique prefix of one.
func scheduleArg(st *core.State, arg string) (string, error) {
	var found []string
	for _, sc := range st.ScheduleList() {
		if sc.ID == arg {
			return arg, nil
		}
		if strings.HasPrefix(sc.ID, arg) {
			found = append(found, sc.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", usageErr("unknown schedule %q: list schedules with `nexus schedule list`", arg)
	}
	return "", usageErr("schedule %q is ambiguous (%s): give more of its id", arg, strings.Join(found, ", "))
}

func (a *app) scheduleList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("schedule list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parseArgs(fs, args, 0, 0, "nexus schedule list [--json]"); err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	views := []ScheduleView{}
	for _, sc := range st.ScheduleList() {
		views = append(views, viewSchedule(sc))
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(views)
	}
	if len(views) == 0 {
		fmt.Fprintln(a.stdout, `no schedules: add one with nexus schedule add "every 1h" THREAD TEXT`)
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSPEC\tTARGET\tNEXT (UTC)\tLAST (UTC)\tFIRES\tTEXT")
	for _, v := range views {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", v.ID, v.Spec, v.Target, utcTime(v.NextAt), utcTime(v.LastAt), v.Fires, gist(flat(v.Text), 50))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, v := range views {
		if v.Error != "" {
			fmt.Fprintf(a.stdout, "%s: its last fire failed: %s\n", v.ID, flat(v.Error))
		}
	}
	return nil
}

// utcTime is a time in a list: UTC, as cron specs are.
func utcTime(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05")
}

// ScheduleView is a schedule in `schedule list --json` (README.md "JSON
// output"). Times are unix nanos; lastAt is 0 before the first fire.
type ScheduleView struct {
	ID     string `json:"id"`
	Spec   string `json:"spec"`
	Target string `json:"target"` // a thread id, or "mission"
	Text   string `json:"text"`
	NextAt int64  `json:"nextAt"`
	LastAt int64  `json:"lastAt"`
	Fires  int    `json:"fires"`
	// Missed and Skipped: slots that came due while no host ran, and
	// fires that did nothing because the last one's work had not begun
	// or ended.
	Missed      int                  `json:"missed"`
	Skipped     int                  `json:"skipped"`
	LastRun     string               `json:"lastRun,omitempty"`
	LastMission string               `json:"lastMission,omitempty"`
	Error       string               `json:"error,omitempty"`
	Mission     *ScheduleMissionView `json:"mission,omitempty"`
	CreatedAt   int64                `json:"createdAt"`
}

// ScheduleMissionView is the shape of the missions a schedule starts.
type ScheduleMissionView struct {
	Workspace   string   `json:"workspace"`
	Base        string   `json:"base"`
	Strategy    string   `json:"strategy"`
	Agents      []string `json:"agents"`
	Planner     string   `json:"planner,omitempty"`
	Verify      string   `json:"verify,omitempty"`
	AutoApprove bool     `json:"autoApprove"`
	MaxAttempts int      `json:"maxAttempts"`
}

func viewSchedule(sc *core.Schedule) ScheduleView {
	v := ScheduleView{ID: sc.ID, Spec: sc.Spec, Target: sc.Target(), Text: sc.Text, NextAt: sc.NextAt, LastAt: sc.LastAt,
		Fires: sc.Fires, Missed: sc.Missed, Skipped: sc.Skipped, LastRun: sc.LastRun, LastMission: sc.LastMission,
		Error: sc.Error, CreatedAt: sc.CreatedAt}
	if m := sc.Mission; m != nil {
		mv := &ScheduleMissionView{Workspace: m.Workspace, Base: m.Base, Strategy: m.Strategy, Agents: []string{}, Verify: m.Verify,
			AutoApprove: m.AutoApprove, MaxAttempts: m.MaxAttempts}
		for _, ag := range m.Agents {
			mv.Agents = append(mv.Agents, ag.Name)
		}
		if m.Planner != nil {
			mv.Planner = m.Planner.Name
		}
		v.Mission = mv
	}
	return v
}
