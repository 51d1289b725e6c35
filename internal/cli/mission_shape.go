package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/store/checkpoint"
)

// How a command resolves a mission at the edge, for `mission new` and
// for a schedule that starts missions (`schedule add SPEC mission GOAL`).

// conventionFiles are the project conventions files a mission's tasks
// get in their context, the first one found at the repository's top.
var conventionFiles = []string{"AGENTS.md", "CLAUDE.md", "CONVENTIONS.md"}

// missionShape holds the flags that shape a mission, shared by `mission
// new` and `schedule add SPEC mission GOAL`: its strategy, agents,
// planner, verification, workspace, policy, attempts and budget.
type missionShape struct {
	strategy, agents, planner, verify, workspace, reviewer *string
	yes                                                    *bool
	attempts                                               *int
	budget                                                 *float64
}

// missionFlagNames are the flags missionFlags adds.
var missionFlagNames = []string{"strategy", "agents", "planner", "verify", "reviewer", "workspace", "yes", "attempts", "budget-usd"}

// missionFlags adds the flags of a mission's shape to fs.
func missionFlags(fs *flag.FlagSet) *missionShape {
	return &missionShape{
		strategy:  fs.String("strategy", core.StrategySplit, "split (a planner splits the goal into tasks) or race (every agent does the whole goal; the best passing result wins)"),
		agents:    fs.String("agents", "builtin", "comma-separated agents (aliases from nexus agent list) or profiles that work the tasks"),
		planner:   fs.String("planner", "builtin", "the agent or profile that plans a split"),
		verify:    fs.String("verify", "", "shell command that must exit 0 in a task's worktree and on the merged result (e.g. 'go test ./...')"),
		reviewer:  fs.String("reviewer", "", "an agent or profile that reviews each result after --verify passes (or instead of it) and answers PASS or FAIL"),
		workspace: fs.String("workspace", "", "the repository to work on (default: the current directory)"),
		yes:       fs.Bool("yes", false, "run the plan without asking, and let task agents write files and run commands without asking"),
		attempts:  fs.Int("attempts", core.DefaultMissionAttempts, "runs a task may take (its first and one per failed verification) before the mission asks you"),
		budget:    fs.Float64("budget-usd", 0, "budget of each task thread in US dollars (0: none)"),
	}
}

// resolveMission makes the mission of a goal as its flags shape it, with
// a new id: what needs no host (the checks, the repository and the
// commit its tasks start from). missionAgents adds its agents.
func (a *app) resolveMission(ctx context.Context, goal string, f *missionShape) (*core.Mission, error) {
	if err := a.edgeRefused("a mission (its worktrees and its view of the repository)"); err != nil {
		return nil, err
	}
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return nil, usageErr("the goal is empty: say what the mission should achieve")
	}
	if *f.strategy != core.StrategySplit && *f.strategy != core.StrategyRace {
		return nil, usageErr("--strategy %q: use split or race", *f.strategy)
	}
	if *f.attempts < 1 || *f.attempts > 10 {
		return nil, usageErr("--attempts %d: use 1 to 10", *f.attempts)
	}
	dir := *f.workspace
	var err error
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, failErr("cannot read the current directory: %v", err)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, usageErr("--workspace: %v", err)
	}
	m := &core.Mission{ID: core.NewID("m"), Goal: goal, Strategy: *f.strategy, Workspace: dir, Verify: *f.verify,
		AutoApprove: *f.yes, MaxAttempts: *f.attempts, BudgetUSD: *f.budget}
	if *f.yes {
		m.Allow = []string{"write", "command"}
	}
	if err := a.missionRepo(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// missionAgents resolves the mission's --agents and, for a split, its
// --planner against the host's agents: each an agent alias, else a
// profile.
func (a *app) missionAgents(ctx context.Context, s *session, m *core.Mission, f *missionShape) error {
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	for _, name := range strings.Split(*f.agents, ",") {
		ag, err := a.missionAgent(st, strings.TrimSpace(name))
		if err != nil {
			return usageErr("--agents: %v", err)
		}
		m.Agents = append(m.Agents, ag)
	}
	if m.Strategy == core.StrategySplit {
		p, err := a.missionAgent(st, strings.TrimSpace(*f.planner))
		if err != nil {
			return usageErr("--planner: %v", err)
		}
		m.Planner = &p
	}
	if *f.reviewer != "" {
		r, err := a.missionAgent(st, strings.TrimSpace(*f.reviewer))
		if err != nil {
			return usageErr("--reviewer: %v", err)
		}
		m.Reviewer = &r
	}
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
