package core

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// CommandKind names what a command asks for (docs/ARCHITECTURE.md,
// "Commands and events"). Part of the on-disk format and the socket
// protocol.
type CommandKind string

// Command kinds.
const (
	CmdThreadCreate   CommandKind = "thread.create"
	CmdThreadRename   CommandKind = "thread.rename"
	CmdThreadArchive  CommandKind = "thread.archive"
	CmdThreadStop     CommandKind = "thread.stop"
	CmdMessageSend    CommandKind = "message.send"
	CmdQueueHold      CommandKind = "queue.hold"
	CmdQueueRelease   CommandKind = "queue.release"
	CmdQueueRemove    CommandKind = "queue.remove"
	CmdRunInterrupt   CommandKind = "run.interrupt"
	CmdRunResume      CommandKind = "run.resume"
	CmdRequestRespond CommandKind = "request.respond"
	CmdProviderSwitch CommandKind = "provider.switch"
	CmdThreadFork     CommandKind = "thread.fork"
	CmdMergeBack      CommandKind = "thread.merge_back"
	CmdRollbackToRun  CommandKind = "rollback.to_run"
	CmdRollbackNode   CommandKind = "rollback.node"
	// CmdRollbackUndo undoes the thread's last rollback (or undo: a redo).
	CmdRollbackUndo CommandKind = "rollback.undo"
	CmdCheckpoint   CommandKind = "checkpoint.capture"
	// CmdThreadBudget sets a thread's BudgetUSD and MaxTokens (0: none).
	CmdThreadBudget CommandKind = "thread.budget"
	// CmdDailyBudget sets what all threads may spend in a UTC day
	// (BudgetUSD, 0: no limit).
	CmdDailyBudget CommandKind = "budget.daily"
	// CmdAgentAdd adds an agent identity (Agent alias, NewAgent id,
	// Profile, Instructions); CmdAgentRemove removes one by alias.
	CmdAgentAdd    CommandKind = "agent.add"
	CmdAgentRemove CommandKind = "agent.remove"
	// Mission commands (doc.go, "Missions").
	CmdMissionCreate  CommandKind = "mission.create"
	CmdMissionApprove CommandKind = "mission.approve"
	CmdMissionStop    CommandKind = "mission.stop"
	CmdMissionResume  CommandKind = "mission.resume"
	CmdMissionVote    CommandKind = "mission.vote"
	// CmdMissionRollback takes a completed mission's result out of its
	// base workspace again, in one step.
	CmdMissionRollback CommandKind = "mission.rollback"
)

// SendMode is how message.send meets an active run.
type SendMode string

// Send modes.
const (
	ModeAuto      SendMode = "auto"
	ModeImmediate SendMode = "start_immediately"
	ModeSteer     SendMode = "steer_active"
	ModeRestart   SendMode = "restart_active"
	ModeQueue     SendMode = "queue_after_active"
)

// Response is a person's answer to a request.
type Response string

// Responses to a request.
const (
	RespAllow       Response = "allow"
	RespAllowAlways Response = "allow_always"
	RespDeny        Response = "deny"
	RespAnswer      Response = "answer"
)

// Limits enforced at the edge. MaxTextBytes is documented in README.md.
const (
	MaxTextBytes  = 256 << 10
	MaxTitleBytes = 200
	MaxIDBytes    = 128
)

// Command is an intent from a person or a script. The edge assigns ID (the
// client's idempotency receipt, if it gave none), At and any new ids before
// it reaches Decide, so Decide stays deterministic.
type Command struct {
	ID        string       `json:"id"`
	Kind      CommandKind  `json:"kind"`
	At        int64        `json:"at,omitempty"`
	Thread    string       `json:"thread,omitempty"`
	NewThread string       `json:"newThread,omitempty"`
	Run       int          `json:"run,omitempty"`
	Request   string       `json:"request,omitempty"`
	Text      string       `json:"text,omitempty"`
	Mode      SendMode     `json:"mode,omitempty"`
	Title     string       `json:"title,omitempty"`
	Workspace string       `json:"workspace,omitempty"`
	Provider  string       `json:"provider,omitempty"`
	Caps      Capabilities `json:"caps,omitempty"`
	HoldQueue bool         `json:"holdQueue,omitempty"`
	Response  Response     `json:"response,omitempty"`
	Answer    string       `json:"answer,omitempty"`
	BudgetUSD float64      `json:"budgetUsd,omitempty"`
	MaxTokens int          `json:"maxTokens,omitempty"`
	// Allow is the new thread's policy: action kinds (write, command) the
	// agent runs without asking (--yes allows both).
	Allow  []string `json:"allow,omitempty"`
	Source string   `json:"source,omitempty"` // fork: run, node, provider_thread
	// Worktree and Repo: a thread (or fork) with its own git worktree,
	// made at the edge before the command is submitted.
	Worktree string `json:"worktree,omitempty"`
	Repo     string `json:"repo,omitempty"`
	// Branch is the branch made for that worktree ("" when its HEAD is
	// detached), recorded so the thread list can name it.
	Branch string `json:"branch,omitempty"`
	// MergeBack names a fork whose conclusions come with this message.
	MergeBack string `json:"mergeBack,omitempty"`
	// Node is the subagent node whose checkpoint rollback.node restores.
	Node string `json:"node,omitempty"`
	// Checkpoint: rollback.to_run restores this checkpoint of the thread
	// (a mark or a node's, by id) instead of run Run's.
	Checkpoint string `json:"checkpoint,omitempty"`
	// Force: a rollback overwrites paths changed since by someone else
	// (by hand, by another thread) instead of keeping them.
	Force bool `json:"force,omitempty"`
	// Agent is an agent alias: the one agent.add adds or agent.remove
	// removes, or the agent a thread.create starts the thread as.
	Agent        string `json:"agent,omitempty"`
	NewAgent     string `json:"newAgent,omitempty"`
	Profile      string `json:"profile,omitempty"`
	Instructions string `json:"instructions,omitempty"`
	// Mission names the mission of a mission command; NewMission is the
	// mission mission.create makes, as the edge resolved it; Task is the
	// task mission.vote votes for.
	Mission    string   `json:"mission,omitempty"`
	NewMission *Mission `json:"newMission,omitempty"`
	Task       string   `json:"task,omitempty"`
	// Schedule names the schedule schedule.remove removes; NewSchedule
	// is the one schedule.add adds, as the edge resolved it (its id, and
	// for a mission target the mission's shape).
	Schedule    string    `json:"schedule,omitempty"`
	NewSchedule *Schedule `json:"newSchedule,omitempty"`
}

// InputError is an input that cannot form a valid command. It is refused at
// the edge and journals nothing.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Validate checks the shape of a command, independent of state.
func (c *Command) Validate() error {
	if c.ID == "" || len(c.ID) > MaxIDBytes || !utf8.ValidString(c.ID) {
		return refuse("command id must be 1..%d bytes of UTF-8", MaxIDBytes)
	}
	for _, s := range []string{c.Thread, c.NewThread, c.Request, c.Provider} {
		if len(s) > MaxIDBytes || !utf8.ValidString(s) {
			return refuse("id %.40q is not a valid id", s)
		}
	}
	if !utf8.ValidString(c.Title) || len(c.Title) > MaxTitleBytes {
		return refuse("title must be valid UTF-8 of at most %d bytes", MaxTitleBytes)
	}
	for _, f := range []struct{ name, v string }{{"message", c.Text}, {"answer", c.Answer}, {"workspace", c.Workspace}, {"branch", c.Branch},
		{"worktree", c.Worktree}, {"repository", c.Repo}, {"node", c.Node}, {"checkpoint", c.Checkpoint}} {
		if !utf8.ValidString(f.v) {
			return refuse("%s is not valid UTF-8", f.name)
		}
		if len(f.v) > MaxTextBytes {
			return refuse("%s is %d bytes, over the limit of %d bytes", f.name, len(f.v), MaxTextBytes)
		}
	}
	if math.IsNaN(c.BudgetUSD) || math.IsInf(c.BudgetUSD, 0) {
		return refuse("budget must be a finite number of US dollars")
	}
	switch c.Kind {
	case CmdThreadBudget, CmdDailyBudget:
		if c.BudgetUSD < 0 || c.MaxTokens < 0 {
			return refuse("budget and token cap must not be negative")
		}
	case CmdThreadCreate:
		if c.NewThread == "" {
			return refuse("thread.create needs a new thread id")
		}
		if c.Provider == "" {
			return refuse("thread.create needs a provider")
		}
		if c.BudgetUSD < 0 || c.MaxTokens < 0 {
			return refuse("budget and token cap must not be negative")
		}
		if c.Agent != "" {
			if err := CheckAlias(c.Agent); err != nil {
				return err
			}
		}
		for _, k := range c.Allow {
			if k != "write" && k != "command" {
				return refuse("unknown action kind %q to allow: use write or command", k)
			}
		}
	case CmdMessageSend:
		if err := checkText(c.Text); err != nil {
			return err
		}
		switch c.Mode {
		case "", ModeAuto, ModeImmediate, ModeSteer, ModeRestart, ModeQueue:
		default:
			return refuse("unknown send mode %q: use auto, steer, restart or queue", c.Mode)
		}
	case CmdRequestRespond:
		if c.Request == "" {
			return refuse("request.respond needs a request id")
		}
		switch c.Response {
		case RespAllow, RespAllowAlways, RespDeny:
		case RespAnswer:
			if err := checkText(c.Answer); err != nil {
				return err
			}
		default:
			return refuse("unknown response %q: use allow, allow_always, deny or answer", c.Response)
		}
	case CmdThreadFork:
		if c.NewThread == "" {
			return refuse("thread.fork needs a new thread id")
		}
	case CmdThreadRename:
		if strings.TrimSpace(c.Title) == "" {
			return refuse("title is empty")
		}
	case CmdQueueHold, CmdQueueRelease, CmdQueueRemove:
		if c.Run <= 0 {
			return refuse("%s needs a run ordinal", c.Kind)
		}
	case CmdRollbackNode:
		if c.Node == "" {
			return refuse("rollback.node needs a node id")
		}
	case CmdAgentAdd, CmdAgentRemove:
		return c.validateAgent()
	case CmdMissionCreate, CmdMissionApprove, CmdMissionStop, CmdMissionResume, CmdMissionVote, CmdMissionRollback:
		return c.validateMission()
	case CmdScheduleAdd, CmdScheduleRemove:
		return c.validateSchedule()
	case CmdThreadArchive, CmdThreadStop, CmdRunInterrupt, CmdRunResume,
		CmdProviderSwitch, CmdMergeBack, CmdRollbackToRun, CmdRollbackUndo, CmdCheckpoint:
	default:
		return refuse("unknown command kind %q", c.Kind)
	}
	if c.Kind != CmdThreadCreate && c.Kind != CmdRunResume && c.Thread == "" && c.Kind != CmdRequestRespond && c.Kind != CmdDailyBudget {
		return refuse("%s needs a thread id", c.Kind)
	}
	return nil
}

func checkText(s string) error {
	switch {
	case !utf8.ValidString(s):
		return refuse("message is not valid UTF-8")
	case strings.TrimSpace(s) == "":
		return refuse("message is empty: write some text")
	case len(s) > MaxTextBytes:
		return refuse("message is %d bytes, over the limit of %d bytes", len(s), MaxTextBytes)
	}
	return nil
}
