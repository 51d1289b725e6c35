package cli

import (
	"sort"

	"github.com/nexus-tui/nexus/core"
)

// The --json views are a stable, documented contract (README.md "JSON
// output"). Field names never change; new fields may be added.

type ThreadView struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Provider   string            `json:"provider"`
	Status     core.ThreadStatus `json:"status"`
	Workspace  string            `json:"workspace,omitempty"`
	Worktree   string            `json:"worktree,omitempty"`
	Repo       string            `json:"repo,omitempty"`
	Branch     string            `json:"branch,omitempty"`
	ForkedFrom string            `json:"forkedFrom,omitempty"`
	ForkRun    int               `json:"forkRun,omitempty"`
	// Agent and AgentAlias: the agent identity the thread was started as
	// (nexus thread new --agent), kept if the agent is removed.
	Agent      string `json:"agent,omitempty"`
	AgentAlias string `json:"agentAlias,omitempty"`
	// Mission and Task: the mission (and task) the thread works for.
	Mission     string            `json:"mission,omitempty"`
	Task        string            `json:"task,omitempty"`
	QueueHeld   bool              `json:"queueHeld"`
	Runs        []RunView         `json:"runs"`
	Requests    []RequestView     `json:"requests"`
	Todos       []TodoView        `json:"todos"`
	Checkpoints []core.Checkpoint `json:"checkpoints"`
	Handoffs    []core.Handoff    `json:"handoffs"`
	// Usage is the thread's total as it keeps it; BudgetUSD and MaxTokens
	// its budget (0: none).
	Usage     core.Usage `json:"usage"`
	BudgetUSD float64    `json:"budgetUsd"`
	MaxTokens int        `json:"maxTokens"`
}

type RunView struct {
	Ordinal int            `json:"ordinal"`
	Status  core.RunStatus `json:"status"`
	Text    string         `json:"text"`
	Steers  []string       `json:"steers,omitempty"`
	Reply   string         `json:"reply"`
	Error   string         `json:"error,omitempty"`
	Held    bool           `json:"held,omitempty"`
	// The run's usage, summed over its attempts.
	TokensIn    int           `json:"tokensIn,omitempty"`
	TokensOut   int           `json:"tokensOut,omitempty"`
	CostUSD     float64       `json:"costUsd,omitempty"`
	CostUnknown bool          `json:"costUnknown,omitempty"`
	Attempts    []AttemptView `json:"attempts"`
	Nodes       []NodeView    `json:"nodes"`
	// Context is what the run's turns were compiled from, by provenance
	// (agent, project, task, runtime, user): a mission task's sections as
	// journaled with the run; for any other run its agent's
	// instructions, any handoff or merge-back it carried, and the
	// person's message.
	Context []core.Section `json:"context"`
}

type AttemptView struct {
	N      int                `json:"n"`
	Reason core.AttemptReason `json:"reason"`
	Status core.AttemptStatus `json:"status"`
	Nodes  []NodeView         `json:"nodes"`
}

type NodeView struct {
	ID        string          `json:"id"`
	Parent    string          `json:"parent,omitempty"`
	Kind      core.NodeKind   `json:"kind"`
	Status    core.NodeStatus `json:"status"`
	Title     string          `json:"title,omitempty"`
	Text      string          `json:"text,omitempty"`
	Action    string          `json:"action,omitempty"`
	ExitCode  int             `json:"exitCode,omitempty"`
	Blake3    string          `json:"blake3,omitempty"`
	TokensIn  int             `json:"tokensIn,omitempty"`
	TokensOut int             `json:"tokensOut,omitempty"`
	CostUSD   float64         `json:"costUsd,omitempty"`
	// CostUnknown: the provider gave tokens but no price.
	CostUnknown bool `json:"costUnknown,omitempty"`
	// Paths are the files the step or tool call wrote, as its agent
	// reported them (relative to the workspace).
	Paths []string `json:"paths,omitempty"`
}

type RequestView struct {
	ID       string             `json:"id"`
	Thread   string             `json:"thread"`
	Run      int                `json:"run"`
	Kind     core.RequestKind   `json:"kind"`
	Status   core.RequestStatus `json:"status"`
	Prompt   string             `json:"prompt"`
	Response core.Response      `json:"response,omitempty"`
	Answer   string             `json:"answer,omitempty"`
	Reason   string             `json:"reason,omitempty"`
}

type TodoView struct {
	Run   int             `json:"run"`
	Kind  core.PlanKind   `json:"kind"`
	Items []core.PlanItem `json:"items"`
}

func viewThread(st *core.State, th *core.Thread) ThreadView {
	v := ThreadView{ID: th.ID, Title: th.Title, Provider: th.Provider, Status: th.Status, Workspace: th.Workspace, Worktree: th.Worktree,
		Repo: th.Repo, Branch: th.Branch,
		ForkedFrom: th.ForkedFrom, ForkRun: th.ForkRun, QueueHeld: th.QueueHeld,
		Runs: []RunView{}, Requests: []RequestView{}, Todos: []TodoView{},
		Checkpoints: []core.Checkpoint{}, Handoffs: []core.Handoff{},
		Usage: core.ThreadTotal(st, th), BudgetUSD: th.BudgetUSD, MaxTokens: th.MaxTokens, Agent: th.Agent, AgentAlias: th.AgentAlias,
		Mission: th.Mission, Task: th.Task}
	for _, r := range st.RunsOf(th.ID) {
		rv := RunView{Ordinal: r.Ordinal, Status: r.Status, Text: r.Text, Steers: r.Steers, Reply: r.Reply,
			Error: r.Error, Held: r.Held, TokensIn: r.TokensIn, TokensOut: r.TokensOut, CostUSD: r.CostUSD, CostUnknown: r.NoCost,
			Attempts: []AttemptView{}, Nodes: []NodeView{}, Context: runContext(st, th, r)}
		for _, a := range st.AttemptsOf(r.ID) {
			av := AttemptView{N: a.N, Reason: a.Reason, Status: a.Status, Nodes: []NodeView{}}
			for _, n := range st.NodesOf(a.ID) {
				nv := NodeView{ID: n.ID, Parent: n.Parent, Kind: n.Kind, Status: n.Status, Title: n.Title, Text: n.Text,
					Action: n.Action, ExitCode: n.Exit, Blake3: n.Hash, TokensIn: n.TokensIn, TokensOut: n.TokensOut, CostUSD: n.CostUSD,
					CostUnknown: n.NoCost, Paths: n.Paths}
				av.Nodes = append(av.Nodes, nv)
				rv.Nodes = append(rv.Nodes, nv)
			}
			rv.Attempts = append(rv.Attempts, av)
		}
		v.Runs = append(v.Runs, rv)
		for _, q := range st.RequestsOf(r.ID) {
			v.Requests = append(v.Requests, viewRequest(st, q))
		}
		for _, id := range []string{core.PlanID(r.ID), core.ProposedPlanID(r.ID)} {
			if p := st.Plan(id); p != nil {
				v.Todos = append(v.Todos, TodoView{Run: r.Ordinal, Kind: p.Kind, Items: p.Items})
			}
		}
	}
	for _, c := range st.Checkpoints {
		if c.Thread == th.ID {
			v.Checkpoints = append(v.Checkpoints, *c)
		}
	}
	sort.Slice(v.Checkpoints, func(i, j int) bool { return v.Checkpoints[i].ID < v.Checkpoints[j].ID })
	for _, h := range st.Handoffs {
		if h.Thread == th.ID {
			v.Handoffs = append(v.Handoffs, *h)
		}
	}
	sort.Slice(v.Handoffs, func(i, j int) bool { return v.Handoffs[i].ID < v.Handoffs[j].ID })
	return v
}

func viewRequest(st *core.State, q *core.Request) RequestView {
	ord := 0
	if r := st.Runs[q.Run]; r != nil {
		ord = r.Ordinal
	}
	return RequestView{ID: q.ID, Thread: q.Thread, Run: ord, Kind: q.Kind, Status: q.Status, Prompt: q.Prompt,
		Response: q.Response, Answer: q.Answer, Reason: q.Reason}
}

// sortedThreads returns threads by creation time, then id.
func sortedThreads(st *core.State) []*core.Thread {
	out := make([]*core.Thread, 0, len(st.Threads))
	for _, th := range st.Threads {
		out = append(out, th)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// runContext is a run's compiled context (RunView.Context).
func runContext(st *core.State, th *core.Thread, r *core.Run) []core.Section {
	if len(r.Context) > 0 {
		return r.Context
	}
	var secs []core.Section
	if th.Agent != "" {
		if ag := st.Agents[th.Agent]; ag != nil && ag.Instructions != "" {
			secs = append(secs, core.Section{Source: "agent", Title: "@" + ag.Alias, Text: ag.Instructions})
		}
	}
	if r.Handoff != "" {
		secs = append(secs, core.Section{Source: "runtime", Title: "Handoff", Text: r.Handoff})
	}
	if r.Transfer != "" {
		secs = append(secs, core.Section{Source: "runtime", Title: "Merge-back", Text: r.Transfer})
	}
	return append(secs, core.Section{Source: "user", Title: "Message", Text: r.Text})
}
