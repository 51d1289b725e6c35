package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// conventionFiles are the project conventions files a mission's tasks
// get in their context, the first one found at the repository's top.
var conventionFiles = []string{"AGENTS.md", "CLAUDE.md", "CONVENTIONS.md"}

func (a *app) cmdMission(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: nexus mission new|list|show|approve|stop|resume|vote ...")
	}
	switch args[0] {
	case "new":
		return a.missionNew(ctx, args[1:])
	case "list":
		return a.missionList(ctx, args[1:])
	case "show":
		return a.missionShow(ctx, args[1:])
	case "approve", "stop", "resume", "vote":
		return a.missionAct(ctx, args[0], args[1:])
	}
	return usageErr("unknown mission command %q: use new, list, show, approve, stop, resume or vote", args[0])
}

func (a *app) missionNew(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mission new", flag.ContinueOnError)
	strategy := fs.String("strategy", core.StrategySplit, "split (a planner splits the goal into tasks) or race (every agent does the whole goal; the best passing result wins)")
	agents := fs.String("agents", "builtin", "comma-separated agents (aliases from nexus agent list) or profiles that work the tasks")
	planner := fs.String("planner", "builtin", "the agent or profile that plans a split")
	verifyCmd := fs.String("verify", "", "shell command that must exit 0 in a task's worktree and on the merged result (e.g. 'go test ./...')")
	reviewer := fs.String("reviewer", "", "an agent or profile that reviews each result after --verify passes (or instead of it) and answers PASS or FAIL")
	ws := fs.String("workspace", "", "the repository to work on (default: the current directory)")
	yes := fs.Bool("yes", false, "run the plan without asking, and let task agents write files and run commands without asking")
	attempts := fs.Int("attempts", core.DefaultMissionAttempts, "runs a task may take (its first and one per failed verification) before the mission asks you")
	budget := fs.Float64("budget-usd", 0, "budget of each task thread in US dollars (0: none)")
	wait := fs.Bool("wait", false, "wait until the mission ends or needs you, printing its progress")
	pos, err := parseArgs(fs, args, 1, 1, "nexus mission new GOAL [--strategy split|race] [--agents A,B] [--verify CMD] [--reviewer A] [--yes] [--wait]")
	if err != nil {
		return err
	}
	goal := strings.TrimSpace(pos[0])
	if goal == "" {
		return usageErr("the goal is empty: say what the mission should achieve")
	}
	if *strategy != core.StrategySplit && *strategy != core.StrategyRace {
		return usageErr("--strategy %q: use split or race", *strategy)
	}
	if *attempts < 1 || *attempts > 10 {
		return usageErr("--attempts %d: use 1 to 10", *attempts)
	}
	dir := *ws
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return failErr("cannot read the current directory: %v", err)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return usageErr("--workspace: %v", err)
	}
	m := &core.Mission{ID: core.NewID("m"), Goal: goal, Strategy: *strategy, Workspace: dir, Verify: *verifyCmd,
		AutoApprove: *yes, MaxAttempts: *attempts, BudgetUSD: *budget}
	if *yes {
		m.Allow = []string{"write", "command"}
	}
	if err := a.missionRepo(ctx, m); err != nil {
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
	for _, name := range strings.Split(*agents, ",") {
		ag, err := a.missionAgent(st, strings.TrimSpace(name))
		if err != nil {
			return usageErr("--agents: %v", err)
		}
		m.Agents = append(m.Agents, ag)
	}
	if *strategy == core.StrategySplit {
		p, err := a.missionAgent(st, strings.TrimSpace(*planner))
		if err != nil {
			return usageErr("--planner: %v", err)
		}
		m.Planner = &p
	}
	if *reviewer != "" {
		r, err := a.missionAgent(st, strings.TrimSpace(*reviewer))
		if err != nil {
			return usageErr("--reviewer: %v", err)
		}
		m.Reviewer = &r
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

// missionRepo fills in the mission's repository and the commit its tasks
// start from, and reads the project's conventions file.
func (a *app) missionRepo(ctx context.Context, m *core.Mission) error {
	dir, err := a.resolveStateDir()
	if err != nil {
		return err
	}
	cm := checkpoint.New(dir, checkpoint.Options{})
	top, err := cm.RepoTop(ctx, m.Workspace)
	if err != nil || top == "" {
		return usageErr("%s is not in a git repository: a mission runs each task in its own git worktree; run `git init && git add -A && git commit -m init` there first", m.Workspace)
	}
	base, err := cm.Resolve(ctx, m.Workspace, "HEAD")
	if err != nil {
		if errors.Is(err, checkpoint.ErrNoCommits) || errors.Is(err, checkpoint.ErrNotFound) {
			return usageErr("the repository %s has no commit yet: tasks start from one; commit first (`git add -A && git commit -m init`)", top)
		}
		return failErr("cannot read HEAD of %s: %v", top, err)
	}
	m.Repo, m.Base = top, base
	for _, name := range conventionFiles {
		if b, err := readBounded(filepath.Join(top, name), 32<<10); err == nil {
			m.Conventions = b
			break
		}
	}
	return nil
}

// missionAgent resolves a name: an agent alias, else a profile.
func (a *app) missionAgent(st *core.State, name string) (core.MissionAgent, error) {
	if name == "" {
		return core.MissionAgent{}, fmt.Errorf("an empty name; give agent aliases or profiles, comma-separated")
	}
	reg, err := a.registry()
	if err != nil {
		return core.MissionAgent{}, err
	}
	if ag := st.AgentByAlias(name); ag != nil {
		prof, err := reg.Lookup(ag.Profile)
		if err != nil {
			return core.MissionAgent{}, fmt.Errorf("agent %s runs on profile %s: %v", name, ag.Profile, err)
		}
		return core.MissionAgent{Name: name, Agent: name, Provider: prof.Name, Caps: prof.Caps}, nil
	}
	prof, err := reg.Lookup(name)
	if err != nil {
		return core.MissionAgent{}, fmt.Errorf("%q is neither an agent (nexus agent list) nor a profile: %v", name, err)
	}
	return core.MissionAgent{Name: name, Provider: prof.Name, Caps: prof.Caps}, nil
}

// missionAct submits approve, stop, resume or vote.
func (a *app) missionAct(ctx context.Context, verb string, args []string) error {
	fs := flag.NewFlagSet("mission "+verb, flag.ContinueOnError)
	wait := fs.Bool("wait", false, "wait until the mission ends or needs you, printing its progress")
	n, use := 1, "nexus mission "+verb+" MISSION [--wait]"
	if verb == "vote" {
		n, use = 2, "nexus mission vote MISSION TASK"
	}
	pos, err := parseArgs(fs, args, n, n, use)
	if err != nil {
		return err
	}
	kind := map[string]core.CommandKind{"approve": core.CmdMissionApprove, "stop": core.CmdMissionStop,
		"resume": core.CmdMissionResume, "vote": core.CmdMissionVote}[verb]
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
	if _, err := a.submit(ctx, s, cmd); err != nil {
		return err
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
	pos, err := parseArgs(fs, args, 1, 1, "nexus mission show MISSION [--json]")
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
