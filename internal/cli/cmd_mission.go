package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

func (a *app) cmdMission(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: nexus mission new|list|show|approve|stop|resume|vote|rollback ...")
	}
	switch args[0] {
	case "new":
		return a.missionNew(ctx, args[1:])
	case "list":
		return a.missionList(ctx, args[1:])
	case "show":
		return a.missionShow(ctx, args[1:])
	case "approve", "stop", "resume", "vote", "rollback":
		return a.missionAct(ctx, args[0], args[1:])
	}
	return usageErr("unknown mission command %q: use new, list, show, approve, stop, resume, vote or rollback", args[0])
}

func (a *app) missionNew(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mission new", flag.ContinueOnError)
	shape := missionFlags(fs)
	wait := fs.Bool("wait", false, "wait until the mission ends or needs you, printing its progress")
	pos, err := parseArgs(fs, args, 1, 1, "nexus mission new GOAL [--strategy split|race] [--agents A,B] [--verify CMD] [--reviewer A] [--yes] [--wait]")
	if err != nil {
		return err
	}
	m, err := a.resolveMission(ctx, pos[0], shape)
	if err != nil {
		return err
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if err := a.missionAgents(ctx, s, m, shape); err != nil {
		return err
	}
	rec, err := a.submit(ctx, s, core.Command{Kind: core.CmdMissionCreate, NewMission: m})
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, rec.Mission)
	if *wait {
		return a.waitMission(ctx, s, rec.Mission)
	}
	s.linger(ctx)
	return nil
}

// missionAct submits approve, stop, resume or vote.
func (a *app) missionAct(ctx context.Context, verb string, args []string) error {
	fs := flag.NewFlagSet("mission "+verb, flag.ContinueOnError)
	wait := fs.Bool("wait", false, "wait until the mission ends or needs you, printing its progress")
	plan := ""
	if verb == "approve" {
		fs.StringVar(&plan, "plan", "", "run this plan instead of the proposed one: a file (- for stdin) with one task per numbered line, \"(after N)\" for a dependency; `mission show` prints the proposed one")
	}
	n, use := 1, "nexus mission "+verb+" MISSION [--wait]"
	if verb == "approve" {
		use = "nexus mission approve MISSION [--plan FILE] [--wait]"
	}
	if verb == "vote" {
		n, use = 2, "nexus mission vote MISSION TASK"
	}
	pos, err := parseArgs(fs, args, n, n, use)
	if err != nil {
		return err
	}
	kind := map[string]core.CommandKind{"approve": core.CmdMissionApprove, "stop": core.CmdMissionStop,
		"resume": core.CmdMissionResume, "vote": core.CmdMissionVote, "rollback": core.CmdMissionRollback}[verb]
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	id, err := a.missionArg(ctx, s, pos[0])
	if err != nil {
		return err
	}
	cmd := core.Command{Kind: kind, Mission: id}
	if verb == "vote" {
		cmd.Task = strings.TrimPrefix(pos[1], "t")
	}
	if plan != "" {
		text, err := a.readPlan(plan)
		if err != nil {
			return err
		}
		tasks := core.ParsePlan(text)
		if len(tasks) == 0 {
			return usageErr("--plan %s holds no task: write one per line, numbered (\"1. write the parser\"), \"(after 1)\" for a dependency", plan)
		}
		cmd.NewMission = &core.Mission{Tasks: tasks}
	}
	if _, err := a.submit(ctx, s, cmd); err != nil {
		return err
	}
	if verb == "rollback" {
		return a.waitRollback(ctx, s, id)
	}
	if *wait && verb != "stop" {
		return a.waitMission(ctx, s, id)
	}
	s.linger(ctx)
	return nil
}

// missionArg resolves a mission id or unique id prefix.
func (a *app) missionArg(ctx context.Context, s *session, arg string) (string, error) {
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return "", err
	}
	if st.Missions[arg] != nil {
		return arg, nil
	}
	var found []string
	for id := range st.Missions {
		if strings.HasPrefix(id, arg) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", usageErr("unknown mission %q: list missions with `nexus mission list`", arg)
	}
	return "", usageErr("mission %q is ambiguous (%s): give more of its id", arg, strings.Join(found, ", "))
}

// waitMission prints the mission's progress until it ends (exit 0 when
// completed, 1 when it failed or was stopped) or waits on the person
// (exit 0, saying what it waits for).
func (a *app) waitMission(ctx context.Context, s *session, id string) error {
	sub, err := s.subscribeOf(ctx, 0, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	st := sub.State
	last := ""
	for {
		m := st.Missions[id]
		if m != nil {
			if line := missionLine(m); line != last {
				fmt.Fprintf(a.stdout, "%s %s\n", time.Now().Format("15:04:05"), line)
				last = line
			}
			switch {
			case m.Status == core.MissionCompleted:
				return nil
			case m.Done():
				return failErr("mission %s %s: %s", id, m.Status, flat(m.Result))
			case m.Status == core.MissionAwaitPlan:
				fmt.Fprintf(a.stdout, "the plan waits for you: `nexus mission approve %s` runs it, `nexus mission stop %s` drops it\n", id, id)
				return nil
			case m.Question != "":
				fmt.Fprintf(a.stdout, "the mission asks: %s (`nexus mission approve %s` or `nexus mission stop %s`)\n", flat(m.Question), id, id)
				return nil
			}
			// A task's agent asks: the mission waits on its answer (exit
			// 3, as send does).
			for _, th := range missionThreadIDs(m) {
				for _, r := range st.RunsOf(th) {
					for _, q := range st.RequestsOf(r.ID) {
						if q.Status != core.RequestPending {
							continue
						}
						how := fmt.Sprintf("`nexus respond %s --allow` or --deny", q.ID)
						if q.Kind == core.RequestUserInput {
							how = fmt.Sprintf("`nexus respond %s --answer TEXT`", q.ID)
						}
						fmt.Fprintln(a.stdout, q.ID)
						return &exitError{code: ExitWaiting, msg: fmt.Sprintf("mission %s waits on %s of thread %s (%s) %q: answer with %s; then `nexus mission show %s`",
							id, q.ID, th, q.Kind, firstLineOf(flat(q.Prompt)), how, id)}
					}
				}
			}
		}
		ev, ok := <-sub.Events
		if !ok {
			if err := sub.Err(); err != nil && !errors.Is(err, context.Canceled) {
				return failErr("lost the host while waiting (%v); the mission goes on if the host lives: see `nexus mission show %s`", err, id)
			}
			return ctx.Err()
		}
		if ev.Seq != 0 {
			if err := st.Apply(&ev); err != nil {
				return failErr("cannot follow the journal: %v", err)
			}
		}
	}
}

// missionLine is a one-line summary: status and each task's.
func missionLine(m *core.Mission) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", m.ID, m.Status)
	for _, tk := range m.Tasks {
		fmt.Fprintf(&b, " | t%s %s", tk.ID, tk.Status)
		if tk.Attempts > 1 {
			fmt.Fprintf(&b, " (attempt %d)", tk.Attempts)
		}
	}
	return b.String()
}

func (a *app) missionList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mission list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parseArgs(fs, args, 0, 0, "nexus mission list [--json]"); err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	views := []MissionView{}
	for _, m := range st.MissionList() {
		views = append(views, viewMission(m))
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(views)
	}
	if len(views) == 0 {
		fmt.Fprintln(a.stdout, "no missions: start one with `nexus mission new GOAL --verify CMD`")
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATUS\tSTRATEGY\tTASKS\tGOAL")
	for _, v := range views {
		done := 0
		for _, tk := range v.Tasks {
			if tk.Status == core.TaskPassed || tk.Status == core.TaskMerged {
				done++
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d/%d\t%s\n", v.ID, v.Status, v.Strategy, done, len(v.Tasks), gist(flat(v.Goal), 60))
	}
	return w.Flush()
}

func (a *app) missionShow(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mission show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	planOnly := fs.Bool("plan", false, "print only the plan, as `mission approve --plan` reads it (to edit it)")
	pos, err := parseArgs(fs, args, 1, 1, "nexus mission show MISSION [--json] [--plan]")
	if err != nil {
		return err
	}
	s, err := a.dialOrHost(ctx, true)
	if err != nil {
		return err
	}
	defer s.stop()
	id, err := a.missionArg(ctx, s, pos[0])
	if err != nil {
		return err
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	v := viewMission(st.Missions[id])
	if *planOnly {
		for _, tk := range v.Tasks {
			line := tk.ID + ". " + flat(tk.Text)
			if len(tk.Deps) > 0 {
				line += " (after " + strings.Join(tk.Deps, ", ") + ")"
			}
			fmt.Fprintln(a.stdout, line)
		}
		return nil
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(v)
	}
	return printMission(a, v)
}

func printMission(a *app, v MissionView) error {
	out := a.stdout
	fmt.Fprintf(out, "mission %s: %s (%s)\n", v.ID, v.Status, v.Strategy)
	fmt.Fprintf(out, "goal: %s\n", flat(v.Goal))
	fmt.Fprintf(out, "workspace: %s (from %s)\n", v.Workspace, shortCommit(v.Base))
	if v.Verify != "" {
		fmt.Fprintf(out, "verify: %s\n", flat(v.Verify))
	}
	if v.PlanThread != "" {
		fmt.Fprintf(out, "planner thread: %s\n", v.PlanThread)
	}
	if v.Reviewer != "" {
		th := ""
		if v.ReviewThread != "" {
			th = ", thread " + v.ReviewThread
		}
		fmt.Fprintf(out, "reviewer: %s%s\n", v.Reviewer, th)
	}
	for _, tk := range v.Tasks {
		deps := ""
		if len(tk.Deps) > 0 {
			deps = " after " + strings.Join(tk.Deps, ",")
		}
		fmt.Fprintf(out, "  task %s [%s] %s, attempt %d%s: %s\n", tk.ID, tk.Agent, tk.Status, tk.Attempts, deps, gist(flat(tk.Text), 70))
		if tk.Thread != "" {
			fmt.Fprintf(out, "    thread %s, worktree %s\n", tk.Thread, tk.Worktree)
		}
		for _, c := range tk.Checks {
			if c.Review {
				fmt.Fprintf(out, "    review %d: %s %s: %s\n", c.Attempt, c.Command, passWord(c.Passed), gist(flat(c.Output), 100))
				continue
			}
			fmt.Fprintf(out, "    check %d: exit %d %s\n", c.Attempt, c.Exit, passWord(c.Passed))
		}
		if tk.Error != "" {
			fmt.Fprintf(out, "    %s\n", flat(tk.Error))
		}
	}
	for _, c := range v.Checks {
		if c.Review {
			fmt.Fprintf(out, "merged result: review by %s %s: %s\n", c.Command, passWord(c.Passed), gist(flat(c.Output), 100))
			continue
		}
		fmt.Fprintf(out, "merged result: `%s` exit %d %s\n", flat(c.Command), c.Exit, passWord(c.Passed))
	}
	for _, vo := range v.Votes {
		fmt.Fprintf(out, "vote: %s for task %s %s\n", vo.Voter, vo.Task, flat(vo.Reason))
	}
	if v.Status == string(core.MissionAwaitPlan) {
		fmt.Fprintf(out, "the plan waits for you: `nexus mission approve %s` runs it; to change it first: `nexus mission show %s --plan > plan.txt`, edit, `nexus mission approve %s --plan plan.txt`\n", v.ID, v.ID, v.ID)
	}
	if v.Question != "" {
		fmt.Fprintf(out, "asks: %s\n", flat(v.Question))
	}
	if v.Result != "" {
		fmt.Fprintf(out, "result: %s\n", flat(v.Result))
	}
	return nil
}

func passWord(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

// MissionView is a mission in `mission show --json` and `mission list
// --json` (README.md "JSON output").
type MissionView struct {
	ID         string       `json:"id"`
	Goal       string       `json:"goal"`
	Strategy   string       `json:"strategy"`
	Status     string       `json:"status"`
	Workspace  string       `json:"workspace"`
	Repo       string       `json:"repo"`
	Base       string       `json:"base"`
	Verify     string       `json:"verify,omitempty"`
	Agents     []string     `json:"agents"`
	PlanThread string       `json:"planThread,omitempty"`
	Tasks      []core.Task  `json:"tasks"`
	Checks     []core.Check `json:"checks,omitempty"`
	Votes      []core.Vote  `json:"votes,omitempty"`
	Winner     string       `json:"winner,omitempty"`
	Worktree   string       `json:"worktree,omitempty"`
	Question   string       `json:"question,omitempty"`
	Result     string       `json:"result,omitempty"`
	Applied    string       `json:"applied,omitempty"`
	CreatedAt  int64        `json:"createdAt"`
	UpdatedAt  int64        `json:"updatedAt"`
	Planner    string       `json:"planner,omitempty"`
	Attempts   int          `json:"maxAttempts"`
	// Reviewer (its name as given) and its thread, when the mission
	// has one.
	Reviewer     string `json:"reviewer,omitempty"`
	ReviewThread string `json:"reviewThread,omitempty"`
}

func viewMission(m *core.Mission) MissionView {
	v := MissionView{ID: m.ID, Goal: m.Goal, Strategy: m.Strategy, Status: string(m.Status), Workspace: m.Workspace, Repo: m.Repo,
		Base: m.Base, Verify: m.Verify, PlanThread: m.PlanThread, Tasks: m.Tasks, Checks: m.Checks, Votes: m.Votes,
		Winner: m.Winner, Worktree: m.Worktree, Question: m.Question, Result: m.Result, Applied: m.Applied,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, Attempts: m.MaxAttempts, Agents: []string{}}
	if v.Tasks == nil {
		v.Tasks = []core.Task{}
	}
	for _, ag := range m.Agents {
		v.Agents = append(v.Agents, ag.Name)
	}
	if m.Planner != nil {
		v.Planner = m.Planner.Name
	}
	if m.Reviewer != nil {
		v.Reviewer, v.ReviewThread = m.Reviewer.Name, m.ReviewThread
	}
	return v
}

// flat is s on one line (a.stdout sanitises what it prints).
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// missionRequestPrefix starts the id under which `nexus requests` lists
// what a mission waits on the person for (a plan to approve, a question),
// and `nexus respond` answers it: --allow approves (mission approve),
// --deny stops the mission (mission stop).
const missionRequestPrefix = "mission:"

// missionRequest is a mission's wait on the person as a request row.
func missionRequest(m *core.Mission) (RequestView, bool) {
	n, ok := core.NoticeOf(&core.Event{Seq: 1, Type: core.EvMissionUpdated, At: m.AskedAt, Payload: core.Payload{Mission: m}})
	if !ok || n.Kind != core.NoticeWaiting || m.Done() {
		return RequestView{}, false
	}
	return RequestView{ID: missionRequestPrefix + m.ID, Thread: n.Thread, Kind: "mission", Status: core.RequestPending,
		Prompt: n.Prompt + " (--allow: go on, --deny: stop the mission)"}, true
}

// respondMission answers a mission's request: allow approves, deny
// stops the mission.
func (a *app) respondMission(ctx context.Context, id string, resp core.Response) error {
	kind := core.CmdMissionApprove
	switch resp {
	case core.RespAllow:
	case core.RespDeny:
		kind = core.CmdMissionStop
	default:
		return usageErr("a mission's request takes --allow (approve: go on) or --deny (stop the mission)")
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
	if m := st.Missions[id]; m == nil || m.Done() || (m.Status != core.MissionAwaitPlan && m.Question == "") {
		return failErr("mission %s waits on nothing: see `nexus mission show %s`", id, id)
	}
	if _, err := a.submit(ctx, s, core.Command{Kind: kind, Mission: id}); err != nil {
		return err
	}
	s.linger(ctx)
	return nil
}

// readPlan reads an edited plan from a file, or stdin for "-".
func (a *app) readPlan(path string) (string, error) {
	if path == "-" {
		b, err := io.ReadAll(io.LimitReader(a.stdin, 256<<10))
		if err != nil {
			return "", failErr("cannot read the plan from stdin: %v", err)
		}
		return string(b), nil
	}
	text, err := readBounded(path, 256<<10)
	if err != nil {
		return "", usageErr("--plan: %v", err)
	}
	return text, nil
}

// missionThreadIDs are a mission's threads: the planner's and the tasks'.
func missionThreadIDs(m *core.Mission) []string {
	var out []string
	if m.PlanThread != "" {
		out = append(out, m.PlanThread)
	}
	for _, tk := range m.Tasks {
		if tk.Thread != "" {
			out = append(out, tk.Thread)
		}
	}
	return out
}

// waitRollback waits for a mission's rollback step and says how it went
// (exit 1 when it could not be done).
func (a *app) waitRollback(ctx context.Context, s *session, id string) error {
	sub, err := s.subscribeOf(ctx, 0, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	st := sub.State
	for {
		if m := st.Missions[id]; m != nil && m.Pending == "" {
			if m.Status == core.MissionRolledBack {
				fmt.Fprintf(a.stdout, "mission %s %s\n", id, flat(m.Result))
				return nil
			}
			return failErr("mission %s: %s", id, flat(m.Result))
		}
		ev, ok := <-sub.Events
		if !ok {
			return failErr("lost the host while rolling back mission %s: see `nexus mission show %s`", id, id)
		}
		if ev.Seq != 0 {
			if err := st.Apply(&ev); err != nil {
				return failErr("cannot follow the journal: %v", err)
			}
		}
	}
}
