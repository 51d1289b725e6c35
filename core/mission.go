package core

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mission is the orchestrated lifecycle (doc.go, "Missions"): a goal
// split into tasks (strategy split: a planner agent proposes them) or
// given to several agents at once (race), each task a child thread in
// its own git worktree, each result verified, the results converged
// (merged in dependency order, or one chosen by vote) and applied to the
// base workspace.
//
// A mission travels whole in every mission.updated event: it is small
// (task texts and bounded verifier output).
type Mission struct {
	ID       string        `json:"id" msgpack:"id"`
	Goal     string        `json:"goal" msgpack:"g"`
	Strategy string        `json:"strategy" msgpack:"sg"`
	Status   MissionStatus `json:"status" msgpack:"s"`
	// Workspace is the base workspace, in the git repository Repo, at
	// commit Base when the mission was made: every task starts from Base.
	Workspace string `json:"workspace" msgpack:"ws"`
	Repo      string `json:"repo" msgpack:"rp"`
	Base      string `json:"base" msgpack:"b"`
	// Verify is the verification command ("" for none), run in a task's
	// worktree when its agent is done, and in the mission's worktree on
	// the merged result.
	Verify string `json:"verify,omitempty" msgpack:"v,omitempty"`
	// Agents work the tasks: split assigns them in turn, race gives the
	// one task to each. Planner proposes a split's tasks.
	Agents  []MissionAgent `json:"agents" msgpack:"ag,omitempty"`
	Planner *MissionAgent  `json:"planner,omitempty" msgpack:"pn,omitempty"`
	// PlanThread is the planner's thread.
	PlanThread string `json:"planThread,omitempty" msgpack:"pt,omitempty"`
	// Reviewer, when set, gives its verdict on every result that is
	// verified (a race's task, a split's merged result) once the
	// verification command passed or when there is none; ReviewThread
	// is its thread (ReviewThreadID), made at the first review, and
	// Review the reviewer's run on the merged result while it is in
	// flight.
	Reviewer     *MissionAgent `json:"reviewer,omitempty" msgpack:"rv,omitempty"`
	ReviewThread string        `json:"reviewThread,omitempty" msgpack:"rt,omitempty"`
	Review       string        `json:"review,omitempty" msgpack:"rr,omitempty"`
	// AutoApprove: the plan runs without asking (--yes); Allow is the
	// policy of every task thread.
	AutoApprove bool     `json:"autoApprove,omitempty" msgpack:"aa,omitempty"`
	Allow       []string `json:"allow,omitempty" msgpack:"al,omitempty"`
	// MaxAttempts bounds the runs of one task (its first, then one per
	// failed verification) before the mission asks the person.
	MaxAttempts int     `json:"maxAttempts" msgpack:"ma"`
	BudgetUSD   float64 `json:"budgetUsd,omitempty" msgpack:"bu,omitempty"`
	// Conventions is the project's conventions file (AGENTS.md and the
	// like) as the edge read it, for every task's context.
	Conventions string `json:"conventions,omitempty" msgpack:"cv,omitempty"`
	Tasks       []Task `json:"tasks" msgpack:"tk,omitempty"`
	// Worktree and Branch: the mission's own worktree, where a split's
	// results are merged and verified.
	Worktree string `json:"worktree,omitempty" msgpack:"wt,omitempty"`
	Branch   string `json:"branch,omitempty" msgpack:"br,omitempty"`
	// Pending is the mission-level step in flight (an effect key).
	Pending string `json:"pending,omitempty" msgpack:"pd,omitempty"`
	// Checks are the verifications of the merged result.
	Checks []Check `json:"checks,omitempty" msgpack:"ck,omitempty"`
	// Votes (race) and the Winner task they chose.
	Votes  []Vote `json:"votes,omitempty" msgpack:"vo,omitempty"`
	Winner string `json:"winner,omitempty" msgpack:"wn,omitempty"`
	// Question is what the mission waits on the person for ("" when it
	// does not): answer with mission approve (retry) or mission stop.
	Question string `json:"question,omitempty" msgpack:"q,omitempty"`
	// Result says how the mission ended.
	Result    string `json:"result,omitempty" msgpack:"rs,omitempty"`
	Applied   string `json:"applied,omitempty" msgpack:"ap,omitempty"` // the base's commit after the apply
	CreatedAt int64  `json:"createdAt" msgpack:"ct"`
	UpdatedAt int64  `json:"updatedAt" msgpack:"ut"`
	// AskedAt is when the mission began to wait on the person (a plan to
	// approve, a question), EndedAt when it ended: a notice is the event
	// whose time they are (NoticeOf).
	AskedAt int64 `json:"askedAt,omitempty" msgpack:"ak,omitempty"`
	EndedAt int64 `json:"endedAt,omitempty" msgpack:"en,omitempty"`
}

// MissionStatus is where a mission is.
type MissionStatus string

// Mission statuses.
const (
	MissionPlanning   MissionStatus = "planning"
	MissionAwaitPlan  MissionStatus = "awaiting_plan_approval"
	MissionRunning    MissionStatus = "running"
	MissionVerifying  MissionStatus = "verifying"
	MissionConverging MissionStatus = "converging"
	MissionCompleted  MissionStatus = "completed"
	MissionFailed     MissionStatus = "failed"
	MissionCancelled  MissionStatus = "cancelled"
	// MissionRolledBack: a completed mission whose result was taken out
	// of the workspace again (mission.rollback).
	MissionRolledBack MissionStatus = "rolled_back"
)

// Done reports whether the mission has ended.
func (m *Mission) Done() bool {
	return m.Status == MissionCompleted || m.Status == MissionFailed || m.Status == MissionCancelled || m.Status == MissionRolledBack
}

// Working reports whether the mission is at work: not ended, and not
// waiting on the person (a plan to approve, a question to answer).
func (m *Mission) Working() bool {
	return !m.Done() && m.Status != MissionAwaitPlan && m.Question == ""
}

// MissionAgent is who works on tasks: Name as the person gave it (an
// agent alias or a profile), the agent alias when it is one, and the
// provider profile and its capabilities as the edge resolved them.
type MissionAgent struct {
	Name     string       `json:"name" msgpack:"n"`
	Agent    string       `json:"agent,omitempty" msgpack:"ag,omitempty"`
	Provider string       `json:"provider" msgpack:"pr"`
	Caps     Capabilities `json:"capabilities" msgpack:"ca"`
}

// Task is one unit of a mission's work.
type Task struct {
	ID    string   `json:"id" msgpack:"id"` // "1", "2", ...
	Text  string   `json:"text" msgpack:"tx"`
	Deps  []string `json:"deps,omitempty" msgpack:"dp,omitempty"`
	Agent string   `json:"agent" msgpack:"ag"` // a MissionAgent's Name
	// Thread is the task's child thread, Worktree and Branch its own.
	Thread   string     `json:"thread,omitempty" msgpack:"th,omitempty"`
	Worktree string     `json:"worktree,omitempty" msgpack:"wt,omitempty"`
	Branch   string     `json:"branch,omitempty" msgpack:"br,omitempty"`
	Status   TaskStatus `json:"status" msgpack:"s"`
	// Attempts counts the runs sent to the task's thread.
	Attempts int `json:"attempts" msgpack:"at"`
	// Pending is the task's step in flight (an effect key); Review the
	// reviewer's run on its result while it is in flight.
	Pending string  `json:"pending,omitempty" msgpack:"pd,omitempty"`
	Review  string  `json:"review,omitempty" msgpack:"rr,omitempty"`
	Checks  []Check `json:"checks,omitempty" msgpack:"ck,omitempty"`
	// Commit is the task's work committed in its worktree; Files how
	// many paths it changed (a race's tie-break: the smaller diff).
	Commit string `json:"commit,omitempty" msgpack:"cm,omitempty"`
	Files  int    `json:"files,omitempty" msgpack:"fl,omitempty"`
	Error  string `json:"error,omitempty" msgpack:"er,omitempty"`
}

// TaskStatus is where a task is.
type TaskStatus string

// Task statuses.
const (
	TaskPending   TaskStatus = "pending"
	TaskStarting  TaskStatus = "starting" // its worktree is being made
	TaskRunning   TaskStatus = "running"
	TaskVerifying TaskStatus = "verifying"
	TaskPassed    TaskStatus = "passed"
	TaskMerged    TaskStatus = "merged"
	TaskFailed    TaskStatus = "failed"
	TaskCancelled TaskStatus = "cancelled"
)

// Check is one verification: of a task's attempt, or of the merged
// result (Attempt 0). A reviewer's verdict is a check too (Review):
// Command is "@" and the reviewer's name, Exit 0 for PASS and 1 for
// FAIL, Output the reviewer's reasons.
type Check struct {
	Attempt int    `json:"attempt" msgpack:"at"`
	Command string `json:"command" msgpack:"c"`
	Exit    int    `json:"exit" msgpack:"x"`
	Passed  bool   `json:"passed" msgpack:"ok"`
	Output  string `json:"output,omitempty" msgpack:"o,omitempty"`
	Review  bool   `json:"review,omitempty" msgpack:"rv,omitempty"`
}

// Vote is one voter's choice among a race's passing tasks.
type Vote struct {
	Voter  string `json:"voter" msgpack:"v"`
	Task   string `json:"task" msgpack:"t"`
	Reason string `json:"reason,omitempty" msgpack:"r,omitempty"`
}

// Limits of a mission, enforced at the edge.
const (
	MaxMissionTasks  = 16
	MaxMissionAgents = 8
	MaxCheckOutput   = 8 << 10
	// DefaultMissionAttempts is a task's runs before the mission asks.
	DefaultMissionAttempts = 3
)

// Strategies.
const (
	StrategySplit = "split"
	StrategyRace  = "race"
)

// Task returns the mission's task id, or nil.
func (m *Mission) Task(id string) *Task {
	for i := range m.Tasks {
		if m.Tasks[i].ID == id {
			return &m.Tasks[i]
		}
	}
	return nil
}

// AgentNamed returns the mission's agent of a name, or nil.
func (m *Mission) AgentNamed(name string) *MissionAgent {
	for i := range m.Agents {
		if m.Agents[i].Name == name {
			return &m.Agents[i]
		}
	}
	return nil
}

// Clone returns a deep copy.
func (m *Mission) Clone() *Mission {
	c := *m
	c.Agents = slices.Clone(m.Agents)
	c.Allow = slices.Clone(m.Allow)
	c.Checks = slices.Clone(m.Checks)
	c.Votes = slices.Clone(m.Votes)
	c.Tasks = make([]Task, len(m.Tasks))
	for i, tk := range m.Tasks {
		tk.Deps = slices.Clone(tk.Deps)
		tk.Checks = slices.Clone(tk.Checks)
		c.Tasks[i] = tk
	}
	if m.Planner != nil {
		p := *m.Planner
		c.Planner = &p
	}
	if m.Reviewer != nil {
		r := *m.Reviewer
		c.Reviewer = &r
	}
	return &c
}

// MissionList returns the missions, newest first.
func (st *State) MissionList() []*Mission {
	out := make([]*Mission, 0, len(st.Missions))
	for _, m := range st.Missions {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Mission) int {
		if a.CreatedAt != b.CreatedAt {
			return int(b.CreatedAt - a.CreatedAt)
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// TaskThreadID is the id of a task's thread: deterministic, so a replay
// and a retried step name the same thread.
func TaskThreadID(mission, task string) string { return mission + "-t" + task }

// PlanThreadID is the id of a mission's planner thread.
func PlanThreadID(mission string) string { return mission + "-plan" }

// ReviewThreadID is the id of a mission's reviewer thread.
func ReviewThreadID(mission string) string { return mission + "-review" }

// PlanPrompt is the message a split's planner gets. The offline model
// recognises its first line and answers from the Goal line.
const PlanPrompt = "Plan this mission as tasks for agents that work in parallel, each in its own copy of the repository."

// planPrompt is the planner's message for a goal.
func planPrompt(m *Mission) string {
	return PlanPrompt + "\nReply with one task per line, numbered (\"1. TASK\"); end a task that needs another's result with \"(after N)\". At most " +
		strconv.Itoa(MaxMissionTasks) + " tasks.\nGoal: " + m.Goal
}

// ParsePlan reads a planner's reply: one task per numbered or bulleted
// line ("1. text", "2) text", "- text"), with "(after 1, 2)" naming the
// tasks it depends on. Other lines are ignored. It returns at most
// MaxMissionTasks tasks; dependencies on unknown or later tasks are
// dropped, so the plan has no cycle.
func ParsePlan(reply string) []Task {
	var out []Task
	for _, line := range strings.Split(reply, "\n") {
		text, ok := planLine(strings.TrimSpace(line))
		if !ok || len(out) == MaxMissionTasks {
			continue
		}
		var deps []string
		if i := strings.LastIndex(asciiLower(text), "(after "); i >= 0 && strings.HasSuffix(text, ")") {
			for _, f := range strings.FieldsFunc(text[i+7:len(text)-1], func(r rune) bool { return r == ',' || r == ' ' }) {
				f = strings.TrimPrefix(strings.ToLower(f), "task")
				if n, err := strconv.Atoi(f); err == nil && n >= 1 && n <= len(out) && !slices.Contains(deps, strconv.Itoa(n)) {
					deps = append(deps, strconv.Itoa(n))
				}
			}
			text = strings.TrimSpace(text[:i])
		}
		if text == "" {
			continue
		}
		out = append(out, Task{ID: strconv.Itoa(len(out) + 1), Text: clip(text, 4<<10), Deps: deps, Status: TaskPending})
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// planLine returns the text of a task line.
func planLine(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, "- "); ok {
		return strings.TrimSpace(rest), true
	}
	if rest, ok := strings.CutPrefix(s, "* "); ok {
		return strings.TrimSpace(rest), true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 3 || i >= len(s) || (s[i] != '.' && s[i] != ')') {
		return "", false
	}
	return strings.TrimSpace(s[i+1:]), true
}

// clip bounds s to n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clipOutput keeps the head and tail of a verifier's output.
func clipOutput(s string) string {
	if len(s) <= MaxCheckOutput {
		return s
	}
	head := clip(s, MaxCheckOutput/2)
	tail := s[len(s)-MaxCheckOutput/2:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + "\n[... " + strconv.Itoa(len(s)-len(head)-len(tail)) + " bytes cut ...]\n" + tail
}

// Section is one provenance part of a compiled turn (doc.go, "Compiled
// context"): where it comes from (agent, project, task, runtime), a
// title, and its text.
type Section struct {
	Source string `json:"source" msgpack:"src"`
	Title  string `json:"title" msgpack:"t"`
	Text   string `json:"text" msgpack:"tx"`
}

// CompileText joins sections into the message an agent gets; the task
// section comes last, so its last line is the instruction to act on.
func CompileText(secs []Section) string {
	var b strings.Builder
	for i, s := range secs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + s.Title + "\n" + s.Text)
	}
	return b.String()
}

// validateMission checks the shape of the mission commands.
func (c *Command) validateMission() error {
	if c.Kind != CmdMissionCreate {
		if c.Mission == "" || len(c.Mission) > MaxIDBytes || !utf8.ValidString(c.Mission) {
			return refuse("%s needs a mission id: list missions with `nexus mission list`", c.Kind)
		}
		if c.Kind == CmdMissionVote && (c.Task == "" || len(c.Task) > 8) {
			return refuse("mission.vote needs a task number: see `nexus mission show %s`", c.Mission)
		}
		if c.NewMission != nil {
			if c.Kind != CmdMissionApprove {
				return refuse("only mission.approve takes an edited plan")
			}
			return checkPlan(c.NewMission.Tasks)
		}
		return nil
	}
	m := c.NewMission
	switch {
	case m == nil:
		return refuse("mission.create needs the mission")
	case m.ID == "" || len(m.ID) > 40 || strings.ContainsAny(m.ID, "/ \t\n") || !utf8.ValidString(m.ID):
		return refuse("mission id %.40q is not valid", m.ID)
	case strings.TrimSpace(m.Goal) == "":
		return refuse("the mission's goal is empty: say what it should achieve")
	case m.Strategy != StrategySplit && m.Strategy != StrategyRace:
		return refuse("unknown strategy %q: use split or race", m.Strategy)
	case len(m.Agents) == 0 || len(m.Agents) > MaxMissionAgents:
		return refuse("a mission needs 1 to %d agents (--agents A,B), not %d", MaxMissionAgents, len(m.Agents))
	case m.Strategy == StrategySplit && m.Planner == nil:
		return refuse("a split mission needs a planner")
	case m.Repo == "" || m.Workspace == "" || m.Base == "":
		return refuse("a mission needs a git repository with a commit to start from")
	case len(m.Verify) > 4<<10 || !utf8.ValidString(m.Verify):
		return refuse("the verification command is over 4096 bytes or not UTF-8")
	case len(m.Conventions) > 32<<10 || !utf8.ValidString(m.Conventions):
		return refuse("the conventions file is over 32 KiB or not UTF-8")
	case m.MaxAttempts < 0 || m.MaxAttempts > 10:
		return refuse("attempts per task must be 1 to 10")
	case m.BudgetUSD < 0 || m.BudgetUSD != m.BudgetUSD:
		return refuse("the mission's budget must not be negative")
	}
	if err := checkText(m.Goal); err != nil {
		return err
	}
	for _, a := range everyAgent(m) {
		if a.Provider == "" || len(a.Name) > MaxIDBytes || len(a.Provider) > MaxIDBytes || !utf8.ValidString(a.Name+a.Provider) {
			return refuse("mission agent %.40q has no valid profile", a.Name)
		}
		if a.Agent != "" {
			if err := CheckAlias(a.Agent); err != nil {
				return err
			}
		}
	}
	for _, k := range m.Allow {
		if k != "write" && k != "command" {
			return refuse("unknown action kind %q to allow: use write or command", k)
		}
	}
	for _, s := range []string{m.Repo, m.Workspace, m.Base} {
		if len(s) > MaxTextBytes || !utf8.ValidString(s) {
			return refuse("the mission's workspace is not valid UTF-8")
		}
	}
	return nil
}

// everyAgent is the mission's agents, its planner (the built-in one
// when it has none) and its reviewer when it has one.
func everyAgent(m *Mission) []MissionAgent {
	out := append(slices.Clone(m.Agents), *orAgent(m.Planner))
	if m.Reviewer != nil {
		out = append(out, *m.Reviewer)
	}
	return out
}

func orAgent(a *MissionAgent) *MissionAgent {
	if a == nil {
		return &MissionAgent{Name: "builtin", Provider: "builtin"}
	}
	return a
}

// missionRefs refuses mission commands that name missions or threads
// that do not exist (or exist already).
func missionRefs(st *State, c *Command) error {
	switch c.Kind {
	case CmdMissionCreate:
		m := c.NewMission
		if st.Missions[m.ID] != nil {
			return refuse("mission %s already exists", m.ID)
		}
		for _, a := range everyAgent(m) {
			if a.Agent != "" && st.AgentByAlias(a.Agent) == nil {
				return refuse("unknown agent %q: list agents with `nexus agent list`", a.Agent)
			}
		}
		if st.Threads[PlanThreadID(m.ID)] != nil || st.Threads[TaskThreadID(m.ID, "1")] != nil || st.Threads[ReviewThreadID(m.ID)] != nil {
			return refuse("threads of mission %s already exist", m.ID)
		}
	case CmdMissionApprove, CmdMissionStop, CmdMissionResume, CmdMissionVote, CmdMissionRollback:
		if st.Missions[c.Mission] == nil {
			return refuse("unknown mission %q: list missions with `nexus mission list`", c.Mission)
		}
	}
	return nil
}

// planTasks numbers a plan's tasks 1..n, keeps only dependencies on
// earlier tasks, and assigns the agents in turn.
func planTasks(in []Task, agents []MissionAgent) []Task {
	out := make([]Task, 0, len(in))
	for i, tk := range in {
		var deps []string
		for _, d := range tk.Deps {
			if n, err := strconv.Atoi(d); err == nil && n >= 1 && n <= i && !slices.Contains(deps, d) {
				deps = append(deps, d)
			}
		}
		out = append(out, Task{ID: strconv.Itoa(i + 1), Text: tk.Text, Deps: deps, Agent: agents[i%len(agents)].Name, Status: TaskPending})
	}
	return out
}

// checkPlan checks a plan the person edited (mission.approve with
// NewMission.Tasks).
func checkPlan(tasks []Task) error {
	if len(tasks) == 0 || len(tasks) > MaxMissionTasks {
		return refuse("an edited plan needs 1 to %d tasks, not %d", MaxMissionTasks, len(tasks))
	}
	for i, tk := range tasks {
		if strings.TrimSpace(tk.Text) == "" || len(tk.Text) > 4<<10 || !utf8.ValidString(tk.Text) {
			return refuse("task %d of the edited plan is empty, over 4096 bytes or not UTF-8", i+1)
		}
	}
	return nil
}
