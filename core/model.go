package core

// The kernel's vocabulary: every status and kind has its own string type,
// so a run status cannot be stored where a node status belongs and a
// switch names the values it handles. They are strings because they are
// part of the on-disk format and of the documented --json output: a value
// is never renamed, only added (store/format_golden_test.go pins them).

// ThreadStatus is what a thread is doing, derived from its runs.
type ThreadStatus string

// Thread statuses.
const (
	ThreadIdle     ThreadStatus = "idle"
	ThreadRunning  ThreadStatus = "running"
	ThreadWaiting  ThreadStatus = "waiting"
	ThreadFailed   ThreadStatus = "failed"
	ThreadArchived ThreadStatus = "archived"
)

// RunStatus is where a run is; Terminal tells the final ones.
type RunStatus string

// Run statuses.
const (
	RunQueued      RunStatus = "queued"
	RunRunning     RunStatus = "running"
	RunWaiting     RunStatus = "waiting"
	RunInterrupted RunStatus = "interrupted"
	RunCompleted   RunStatus = "completed"
	RunFailed      RunStatus = "failed"
	RunCancelled   RunStatus = "cancelled"
	RunRolledBack  RunStatus = "rolled_back"
)

// AttemptReason is why an attempt was started.
type AttemptReason string

// Attempt reasons.
const (
	ReasonInitial          AttemptReason = "initial"
	ReasonSteeringRestart  AttemptReason = "steering_restart"
	ReasonRetry            AttemptReason = "retry"
	ReasonProviderRecovery AttemptReason = "provider_recovery"
)

// AttemptStatus is where an attempt is. A provider reports how a turn
// ended with one of completed, interrupted or failed
// (Observation.TurnStatus).
type AttemptStatus string

// Attempt statuses.
const (
	AttemptRunning     AttemptStatus = "running"
	AttemptCompleted   AttemptStatus = "completed"
	AttemptInterrupted AttemptStatus = "interrupted"
	AttemptFailed      AttemptStatus = "failed"
	AttemptCancelled   AttemptStatus = "cancelled"
	AttemptSuperseded  AttemptStatus = "superseded"
)

// NodeKind is what a node of the execution graph stands for.
type NodeKind string

// Node kinds.
const (
	NodeRootTurn         NodeKind = "root_turn"
	NodeAssistantMessage NodeKind = "assistant_message"
	NodeToolCall         NodeKind = "tool_call"
	NodeSubagent         NodeKind = "subagent"
	NodeApproval         NodeKind = "approval"
	NodeUserInput        NodeKind = "user_input_request"
	NodeWorkerStep       NodeKind = "worker_step"
	NodeLLMCall          NodeKind = "llm_call"
)

// NodeStatus is where a node is.
type NodeStatus string

// Node statuses.
const (
	NodeRunning   NodeStatus = "running"
	NodeCompleted NodeStatus = "completed"
	NodeFailed    NodeStatus = "failed"
	NodeCancelled NodeStatus = "cancelled"
)

// RequestKind is what a request asks a person for.
type RequestKind string

// Request kinds.
const (
	RequestApproval  RequestKind = "approval"
	RequestUserInput RequestKind = "user_input"
	// RequestBudget holds a run before its turn because the thread's
	// budget would be passed (budget.go): allow runs the turn, an answer
	// sets a new budget in USD, allow_always lifts it, deny stops.
	RequestBudget RequestKind = "budget"
)

// RequestStatus is where a request is.
type RequestStatus string

// Request statuses.
const (
	RequestPending      RequestStatus = "pending"
	RequestResolved     RequestStatus = "resolved"
	RequestCancelled    RequestStatus = "cancelled"
	RequestNotResumable RequestStatus = "not_resumable"
)

// PlanKind is what a plan is: the live todo list or a proposed plan.
type PlanKind string

// Plan kinds.
const (
	PlanTodoList PlanKind = "todo_list"
	PlanProposed PlanKind = "proposed_plan"
)

// PlanItemStatus is how far a plan item is.
type PlanItemStatus string

// Plan item statuses.
const (
	ItemPending    PlanItemStatus = "pending"
	ItemInProgress PlanItemStatus = "in_progress"
	ItemCompleted  PlanItemStatus = "completed"
	// ItemFailed: the step ran and failed (a refused write, a command
	// that exited non-zero); the run may still go on.
	ItemFailed PlanItemStatus = "failed"
)

// Capabilities is what a provider declares it can do. The capability policy
// (Policy) turns a command into a plan or a typed unsupported error from it.
type Capabilities struct {
	Steer     bool `json:"steer" msgpack:"st,omitempty"`
	Interrupt bool `json:"interrupt" msgpack:"in,omitempty"`
	Resume    bool `json:"resume" msgpack:"re,omitempty"`
	// Fork: the provider can fork its own conversation through a native
	// turn (Codex thread/fork); see ProviderThread.ForkOf.
	Fork bool `json:"fork" msgpack:"fo,omitempty"`
	// Rollback: the provider can revert its own conversation to before a
	// native turn (Codex thread/revert); see ProviderThread.RevertBefore.
	Rollback  bool `json:"rollback" msgpack:"rb,omitempty"`
	Approvals bool `json:"approvals" msgpack:"ap,omitempty"`
	UserInput bool `json:"userInput" msgpack:"ui,omitempty"`
	Plans     bool `json:"plans" msgpack:"pl,omitempty"`
	Subagents bool `json:"subagents" msgpack:"sa,omitempty"`
	PTY       bool `json:"pty" msgpack:"pt,omitempty"`
	// DurableRequests means pending requests survive the provider process:
	// the provider can continue a turn from the journal once answered (the
	// built-in agent). Without it a pending request of a dead session is
	// not_resumable.
	DurableRequests bool `json:"durableRequests" msgpack:"dr,omitempty"`
}

// Thread is a durable conversation.
type Thread struct {
	ID    string `json:"id" msgpack:"id"`
	Title string `json:"title" msgpack:"ti,omitempty"`
	// TitleAuto: the title is one nexus made ("thread 3"), which the
	// thread's first message replaces.
	TitleAuto bool         `json:"titleAuto,omitempty" msgpack:"ta,omitempty"`
	Provider  string       `json:"provider" msgpack:"pr"`
	Caps      Capabilities `json:"capabilities" msgpack:"ca"`
	Workspace string       `json:"workspace,omitempty" msgpack:"ws,omitempty"`
	Status    ThreadStatus `json:"status" msgpack:"s"`
	// ForkedFrom and ForkRun are the lineage: this thread's context starts
	// with ForkedFrom's runs 1..ForkRun.
	ForkedFrom string  `json:"forkedFrom,omitempty" msgpack:"ff,omitempty"`
	ForkRun    int     `json:"forkRun,omitempty" msgpack:"fr,omitempty"`
	Runs       int     `json:"runCount" msgpack:"rn,omitempty"` // highest ordinal issued
	QueueHeld  bool    `json:"queueHeld,omitempty" msgpack:"qh,omitempty"`
	BudgetUSD  float64 `json:"budgetUsd,omitempty" msgpack:"bu,omitempty"`
	Archived   bool    `json:"archived,omitempty" msgpack:"ar,omitempty"`
	// Allow lists the action kinds (write, command) the agent may run
	// without asking: the thread's policy (--yes) plus "allow always"
	// answers.
	Allow []string `json:"allow,omitempty" msgpack:"al,omitempty"`
	// Worktree is the thread's own git worktree (its Workspace), made from
	// Repo; removed when the thread is archived.
	Worktree string `json:"worktree,omitempty" msgpack:"wt,omitempty"`
	Repo     string `json:"repo,omitempty" msgpack:"rp,omitempty"`
	// Branch is the branch the worktree was made on ("" for a detached
	// HEAD, or no worktree), as it was when the thread was created.
	Branch string `json:"branch,omitempty" msgpack:"br,omitempty"`
	// Handoff is a provider-switch handoff the next run carries to the new
	// provider (cleared when a run takes it).
	Handoff string `json:"handoff,omitempty" msgpack:"hf,omitempty"`
	// MaxTokens caps the tokens the thread may spend (0: no cap).
	MaxTokens int `json:"maxTokens,omitempty" msgpack:"mt,omitempty"`
	// Spent so far on model calls.
	TokensIn  int     `json:"tokensIn,omitempty" msgpack:"tin,omitempty"`
	TokensOut int     `json:"tokensOut,omitempty" msgpack:"tou,omitempty"`
	CostUSD   float64 `json:"costUsd,omitempty" msgpack:"co,omitempty"`
	// NoCost: some of that usage came without a price (cost unknown).
	NoCost    bool  `json:"costUnknown,omitempty" msgpack:"nc,omitempty"`
	CreatedAt int64 `json:"createdAt" msgpack:"ct"`
	UpdatedAt int64 `json:"updatedAt" msgpack:"ut"`
	// Agent and AgentAlias: the agent identity the thread was started as
	// (kept when the agent is removed); its instructions reach every turn.
	Agent      string `json:"agent,omitempty" msgpack:"ag,omitempty"`
	AgentAlias string `json:"agentAlias,omitempty" msgpack:"aa,omitempty"`
	// Mission and Task: the mission (and its task) the thread works for
	// (the planner's thread has no task).
	Mission string `json:"mission,omitempty" msgpack:"mi,omitempty"`
	Task    string `json:"task,omitempty" msgpack:"tk,omitempty"`
}

// Run is one user turn of a thread.
type Run struct {
	ID      string    `json:"id" msgpack:"id"`
	Thread  string    `json:"thread" msgpack:"th"`
	Ordinal int       `json:"ordinal" msgpack:"o"`
	Status  RunStatus `json:"status" msgpack:"s"`
	Text    string    `json:"text" msgpack:"tx"`
	// Steers are follow-up instructions folded into this run, in order.
	Steers []string `json:"steers,omitempty" msgpack:"sr,omitempty"`
	// Context is how the run's message was compiled, section by section
	// (a mission task's turn; doc.go, "Compiled context").
	Context []Section `json:"context,omitempty" msgpack:"cx,omitempty"`
	// Transfer is the merge-back context transfer injected with this
	// run's message, if any; Handoff the provider-switch handoff.
	Transfer string `json:"transfer,omitempty" msgpack:"xf,omitempty"`
	Handoff  string `json:"handoff,omitempty" msgpack:"hf,omitempty"`
	// Provider is the profile that ran the run.
	Provider string `json:"provider,omitempty" msgpack:"pv,omitempty"`
	// Held keeps a queued run from starting until released.
	Held bool `json:"held,omitempty" msgpack:"hd,omitempty"`
	// Attempts is the number of attempts issued; the current one is the last.
	Attempts int `json:"attemptCount" msgpack:"an,omitempty"`
	// Recoverable marks a run interrupted by a host crash: `nexus resume`
	// continues it with a provider_recovery attempt.
	Recoverable bool `json:"recoverable,omitempty" msgpack:"rc,omitempty"`
	// InterruptRequested is set when the user asked to interrupt and the
	// provider has not confirmed yet.
	InterruptRequested bool `json:"interruptRequested,omitempty" msgpack:"ir,omitempty"`
	// RestartPending is set when a steering restart waits for the current
	// attempt to end.
	RestartPending bool `json:"restartPending,omitempty" msgpack:"rp,omitempty"`
	// Finishing holds the status the run takes once its completion
	// barrier's checkpoint is captured (or recorded missing).
	Finishing RunStatus `json:"finishing,omitempty" msgpack:"fi,omitempty"`
	// AwaitBase holds a run's first turn until the workspace's pre-run
	// baseline (run 1), or a mark being captured, is done.
	AwaitBase bool   `json:"awaitBase,omitempty" msgpack:"ab,omitempty"`
	Reply     string `json:"reply,omitempty" msgpack:"rl,omitempty"`
	Error     string `json:"error,omitempty" msgpack:"er,omitempty"`
	// Usage the provider reported for this run's model calls, summed over
	// its attempts; NoCost: some of it came without a price.
	TokensIn  int     `json:"tokensIn,omitempty" msgpack:"tin,omitempty"`
	TokensOut int     `json:"tokensOut,omitempty" msgpack:"tou,omitempty"`
	CostUSD   float64 `json:"costUsd,omitempty" msgpack:"co,omitempty"`
	NoCost    bool    `json:"costUnknown,omitempty" msgpack:"nc,omitempty"`
	CreatedAt int64   `json:"createdAt" msgpack:"ct"`
	StartedAt int64   `json:"startedAt,omitempty" msgpack:"sa,omitempty"`
	EndedAt   int64   `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
}

// Attempt is one provider-turn attempt of a run.
type Attempt struct {
	ID        string        `json:"id" msgpack:"id"`
	Run       string        `json:"run" msgpack:"ru"`
	Thread    string        `json:"thread" msgpack:"th"`
	N         int           `json:"n" msgpack:"n"`
	Reason    AttemptReason `json:"reason" msgpack:"r"`
	Status    AttemptStatus `json:"status" msgpack:"s"`
	Session   string        `json:"session,omitempty" msgpack:"se,omitempty"`
	StartedAt int64         `json:"startedAt" msgpack:"sa"`
	EndedAt   int64         `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
	// NativeTurn is the provider's own mark of the turn this attempt ran,
	// the last it reported (ObsNativeTurn): a Codex turn id, or the uuid of
	// the last message of a Claude Code turn. A native fork or rollback
	// keeps the conversation through it (or reverts to before it).
	NativeTurn string `json:"nativeTurn,omitempty" msgpack:"nt,omitempty"`
}

// Node is an execution graph node under an attempt.
type Node struct {
	ID      string     `json:"id" msgpack:"id"`
	Attempt string     `json:"attempt" msgpack:"at"`
	Run     string     `json:"run" msgpack:"ru"`
	Thread  string     `json:"thread" msgpack:"th"`
	Parent  string     `json:"parent,omitempty" msgpack:"pa,omitempty"`
	Kind    NodeKind   `json:"kind" msgpack:"k"`
	Status  NodeStatus `json:"status" msgpack:"s"`
	Title   string     `json:"title,omitempty" msgpack:"ti,omitempty"`
	Text    string     `json:"text,omitempty" msgpack:"tx,omitempty"`
	// Key is the provider's own id for this node (tool call id, item id).
	Key       string `json:"key,omitempty" msgpack:"ky,omitempty"`
	StartedAt int64  `json:"startedAt" msgpack:"sa"`
	EndedAt   int64  `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
	// Model calls (llm_call nodes): tokens, cost and how long it took.
	TokensIn   int     `json:"tokensIn,omitempty" msgpack:"tin,omitempty"`
	TokensOut  int     `json:"tokensOut,omitempty" msgpack:"tou,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty" msgpack:"co,omitempty"`
	DurationMS int64   `json:"durationMs,omitempty" msgpack:"dm,omitempty"`
	// NoCost: the provider reported tokens but no price (Codex, ACP
	// agents without usage_update cost), so CostUSD is unknown, not 0.
	NoCost bool `json:"costUnknown,omitempty" msgpack:"nc,omitempty"`
	// Worker steps: the action, its exit code (run_command) and the
	// BLAKE3 of a file it wrote.
	Action string `json:"action,omitempty" msgpack:"ac,omitempty"`
	Exit   int    `json:"exitCode,omitempty" msgpack:"ex,omitempty"`
	Hash   string `json:"blake3,omitempty" msgpack:"h,omitempty"`
	// Paths are the files the step or tool call wrote, as the agent
	// reported them (relative to the workspace, slash-separated).
	Paths []string `json:"paths,omitempty" msgpack:"ps,omitempty"`
}

// Request is an app-owned approval or user-input request.
type Request struct {
	ID      string        `json:"id" msgpack:"id"`
	Thread  string        `json:"thread" msgpack:"th"`
	Run     string        `json:"run" msgpack:"ru"`
	Attempt string        `json:"attempt" msgpack:"at"`
	Node    string        `json:"node,omitempty" msgpack:"no,omitempty"`
	Kind    RequestKind   `json:"kind" msgpack:"k"`
	Status  RequestStatus `json:"status" msgpack:"s"`
	Prompt  string        `json:"prompt" msgpack:"p"`
	// Key is the provider's stable name for the request (its request id,
	// or for the built-in agent the directive that raised it).
	Key string `json:"key,omitempty" msgpack:"ky,omitempty"`
	// Action is the action kind an approval is for (write, command), so
	// "allow always" can be remembered per thread and kind.
	Action string `json:"action,omitempty" msgpack:"ac,omitempty"`
	// Response is the person's answer once resolved.
	Response  Response `json:"response,omitempty" msgpack:"rs,omitempty"`
	Answer    string   `json:"answer,omitempty" msgpack:"an,omitempty"`
	Reason    string   `json:"reason,omitempty" msgpack:"re,omitempty"`
	CreatedAt int64    `json:"createdAt" msgpack:"ct"`
}

// Plan is a plan artifact: todo_list (live progress), proposed_plan or
// questions. Each update replaces the whole list.
type Plan struct {
	ID    string     `json:"id" msgpack:"id"`
	Run   string     `json:"run" msgpack:"ru"`
	Kind  PlanKind   `json:"kind" msgpack:"k"`
	Items []PlanItem `json:"items" msgpack:"it"`
}

// PlanItem is one entry of a plan. Depth nests child lists: a
// subagent's own todo list follows its parent item at depth 1.
type PlanItem struct {
	Text   string         `json:"text" msgpack:"t"`
	Status PlanItemStatus `json:"status" msgpack:"s"`
	Depth  int            `json:"depth,omitempty" msgpack:"dp,omitempty"`
}

// MaxPlanDepth bounds PlanItem.Depth; a deeper item is kept at it.
const MaxPlanDepth = 4

// Session is one live provider runtime.
type Session struct {
	ID       string       `json:"id" msgpack:"id"`
	Thread   string       `json:"thread" msgpack:"th"`
	Provider string       `json:"provider" msgpack:"pr"`
	State    SessionState `json:"state" msgpack:"s"`
	Reason   string       `json:"reason,omitempty" msgpack:"re,omitempty"`
}

// ProviderThread is a durable provider-side conversation.
type ProviderThread struct {
	ID        string `json:"id" msgpack:"id"`
	Thread    string `json:"thread" msgpack:"th"`
	Provider  string `json:"provider" msgpack:"pr"`
	NativeRef string `json:"nativeRef,omitempty" msgpack:"nr,omitempty"`
	Available bool   `json:"available" msgpack:"av"`
	// RevertBefore is a native turn a rollback removed, with every later
	// one: the provider reverts its conversation to before it when the
	// thread's next turn starts, then reports the ref again, which clears
	// it (Capabilities.Rollback).
	RevertBefore string `json:"revertBefore,omitempty" msgpack:"rv,omitempty"`
	// ForkOf and ForkAt: a fork's conversation not opened yet, to be
	// forked natively from the source's conversation ForkOf through its
	// turn ForkAt (Capabilities.Fork: Codex thread/fork) at the first
	// turn; its native ref replaces them.
	ForkOf string `json:"forkOf,omitempty" msgpack:"fk,omitempty"`
	ForkAt string `json:"forkAt,omitempty" msgpack:"fa,omitempty"`
}

// Handoff is the auditable text injected when switching provider.
type Handoff struct {
	ID       string          `json:"id" msgpack:"id"`
	Thread   string          `json:"thread" msgpack:"th"`
	From     string          `json:"from" msgpack:"fr"`
	To       string          `json:"to" msgpack:"to"`
	Strategy HandoffStrategy `json:"strategy" msgpack:"st"`
	Text     string          `json:"text" msgpack:"tx"`
}

// Transfer is a fork or merge_back context transfer.
type Transfer struct {
	ID     string         `json:"id" msgpack:"id"`
	Kind   TransferKind   `json:"kind" msgpack:"k"`
	From   string         `json:"from" msgpack:"fr"`
	To     string         `json:"to" msgpack:"to"`
	Run    int            `json:"run,omitempty" msgpack:"ru,omitempty"`
	Status TransferStatus `json:"status" msgpack:"s"`
	Text   string         `json:"text,omitempty" msgpack:"tx,omitempty"`
}

// Checkpoint is a workspace snapshot for one scope.
type Checkpoint struct {
	ID     string           `json:"id" msgpack:"id"`
	Thread string           `json:"thread" msgpack:"th"`
	Run    int              `json:"run" msgpack:"ru"`
	Scope  string           `json:"scope" msgpack:"sc"`
	Status CheckpointStatus `json:"status" msgpack:"s"`
	Ref    string           `json:"ref,omitempty" msgpack:"rf,omitempty"`
	Reason string           `json:"reason,omitempty" msgpack:"re,omitempty"`
	Commit string           `json:"commit,omitempty" msgpack:"cm,omitempty"`
	// Node is the subagent node a child-scope checkpoint belongs to (scope
	// node/...); Run is then the ordinal of the node's run.
	Node string `json:"node,omitempty" msgpack:"nd,omitempty"`
	// Files are the files this checkpoint changed against the one before
	// it (the previous run's, or the baseline), at most MaxCheckpointFiles;
	// MoreFiles counts the rest.
	Files     []FileChange `json:"files,omitempty" msgpack:"fs,omitempty"`
	MoreFiles int          `json:"moreFiles,omitempty" msgpack:"mf,omitempty"`
	// Own: Files (and MoreFiles) are the run's own changes only, each
	// with who made it (FileChange.By); Outside counts the other paths
	// that changed in the directory meanwhile (by hand, by another
	// thread). A checkpoint without Own lists every change.
	Own     bool `json:"own,omitempty" msgpack:"ow,omitempty"`
	Outside int  `json:"outside,omitempty" msgpack:"ou,omitempty"`
}

// MaxCheckpointFiles bounds Checkpoint.Files (part of the journal format).
const MaxCheckpointFiles = 200

// FileChange is one file a checkpoint changed: Status A (added), M
// (modified), D (deleted) or T (type changed); lines added and deleted
// (none counted for a binary file). Its JSON always has all five fields
// (`nexus thread show --json` documents them); msgpack leaves zeros out.
type FileChange struct {
	Path    string `json:"path" msgpack:"p"`
	Status  string `json:"status" msgpack:"s"`
	Added   int    `json:"added" msgpack:"a,omitempty"`
	Deleted int    `json:"deleted" msgpack:"d,omitempty"`
	Binary  bool   `json:"binary" msgpack:"b,omitempty"`
	// By says how the run changed it, in a checkpoint with Own: ByAgent
	// (a write the agent reported), ByCommand (it changed while one of
	// the run's commands or tool calls ran).
	By string `json:"by,omitempty" msgpack:"by,omitempty"`
}

// Who changed a file (FileChange.By).
const (
	ByAgent   = "agent"
	ByCommand = "command"
)

// Operation is a journaled multi-step operation (a rollback): its current
// step survives a crash, so `nexus resume` finishes it.
type Operation struct {
	ID     string   `json:"id" msgpack:"id"`
	Kind   OpKind   `json:"kind" msgpack:"k"`
	Thread string   `json:"thread" msgpack:"th"`
	ToRun  int      `json:"toRun" msgpack:"tr"`
	Step   OpStep   `json:"step" msgpack:"st"`
	Status OpStatus `json:"status" msgpack:"s"`
	Detail string   `json:"detail,omitempty" msgpack:"d,omitempty"`
	Commit string   `json:"commit,omitempty" msgpack:"cm,omitempty"`
	// Target is the checkpoint restored when it is not run ToRun's own (a
	// node's or a mark's); Dirty then says that the workspace was left
	// different from run ToRun's checkpoint.
	Target string `json:"target,omitempty" msgpack:"tg,omitempty"`
	Dirty  bool   `json:"dirty,omitempty" msgpack:"dy,omitempty"`
	// Marks counts the thread's marks when the rollback started: a mark
	// numbered above it was taken after the rollback.
	Marks int `json:"marks,omitempty" msgpack:"mk,omitempty"`
	// Safety is the commit of the workspace as it was before the
	// operation changed a file (checkpoint scope SafetyScope(ID)): what
	// undoing the operation restores, hand edits and other threads'
	// files included.
	Safety string `json:"safety,omitempty" msgpack:"sf,omitempty"`
	// Undoes is the operation this one undoes ("" for a rollback). An
	// undo of an undo is a redo.
	Undoes string `json:"undoes,omitempty" msgpack:"un,omitempty"`
	// Changes are the run and checkpoint statuses the operation sets once
	// its files are restored, decided when it started: runs that start
	// while it runs are not among them, and an undo sets them back.
	Changes []OpChange `json:"changes,omitempty" msgpack:"ch,omitempty"`
	// Provider is the thread's provider record as it was before the
	// operation's provider step changed it (nil: it changed nothing).
	Provider *ProviderThread `json:"provider,omitempty" msgpack:"pv,omitempty"`
	// Runs is how many runs the thread had when the operation started:
	// an undo applies only while no run came after.
	Runs int `json:"runs,omitempty" msgpack:"rn,omitempty"`
	// From is the commit the thread left the workspace at (what a path
	// is compared with to tell that someone else changed it since).
	// Only are the paths the operation may change (the undone runs' own
	// changes; for an undo, what the undone operation changed), or with
	// AllPaths any path that differs. Force overwrites a path changed
	// since by someone else; without it such a path is kept and listed in
	// Kept.
	From     string   `json:"from,omitempty" msgpack:"fr,omitempty"`
	Only     []string `json:"only,omitempty" msgpack:"on,omitempty"`
	AllPaths bool     `json:"allPaths,omitempty" msgpack:"al,omitempty"`
	Force    bool     `json:"force,omitempty" msgpack:"fo,omitempty"`
	Kept     []string `json:"kept,omitempty" msgpack:"kp,omitempty"`
	// Changed are the paths its restore wrote or removed (nil with
	// ChangedAll: too many to list).
	Changed    []string `json:"changed,omitempty" msgpack:"cd,omitempty"`
	ChangedAll bool     `json:"changedAll,omitempty" msgpack:"ca,omitempty"`
}

// OpChange is one status an operation changes: a run's (ID is a run id)
// or a checkpoint's (a checkpoint id).
type OpChange struct {
	ID   string `json:"id" msgpack:"id"`
	From string `json:"from" msgpack:"f"`
	To   string `json:"to" msgpack:"t"`
}

// OpKind is what an operation does.
type OpKind string

// Operation kinds.
const OpRollback OpKind = "rollback"

// OpStatus is where an operation is.
type OpStatus string

// Operation statuses.
const (
	OpRunning   OpStatus = "running"
	OpCompleted OpStatus = "completed"
	OpPartial   OpStatus = "partial"
	OpRefused   OpStatus = "refused"
)

// OpStep is the step an operation is at.
type OpStep string

// Rollback steps, in order.
const (
	// StepSafety: the workspace is captured as it is (Operation.Safety)
	// before anything changes.
	StepSafety   OpStep = "safety"
	StepProvider OpStep = "provider"
	StepFiles    OpStep = "files"
	StepMark     OpStep = "mark"
	StepDone     OpStep = "done"
)

// CheckpointStatus is what became of a checkpoint.
type CheckpointStatus string

// Checkpoint statuses.
const (
	CkReady   CheckpointStatus = "ready"
	CkMissing CheckpointStatus = "missing"
	CkError   CheckpointStatus = "error"
	CkStale   CheckpointStatus = "stale"
)

// HandoffStrategy is how a handoff's text was made.
type HandoffStrategy string

// Handoff strategies.
const (
	HandoffDelta       HandoffStrategy = "delta"
	HandoffFullSummary HandoffStrategy = "full_thread_summary"
)

// TransferKind is what a context transfer carries.
type TransferKind string

// Transfer kinds.
const (
	TransferFork      TransferKind = "fork"
	TransferMergeBack TransferKind = "merge_back"
)

// TransferStatus is where a transfer is; a recorded one is resolved.
type TransferStatus string

// Transfer statuses.
const TransferResolved TransferStatus = "resolved"

// EffectRecord is the journaled two-phase record of an effect.
type EffectRecord struct {
	Key    string       `json:"key" msgpack:"k"`
	Kind   EffectKind   `json:"kind" msgpack:"ki"`
	Class  EffectClass  `json:"class" msgpack:"c"`
	Run    string       `json:"run,omitempty" msgpack:"ru,omitempty"`
	Status EffectStatus `json:"status" msgpack:"s"`
	Result string       `json:"result,omitempty" msgpack:"rs,omitempty"`
	// Worker steps: the node, what it acts on, the BLAKE3 the target had
	// before (PreHash) and will have after (Hash) a file change, so
	// recovery can tell whether an interrupted write happened.
	Node    string `json:"node,omitempty" msgpack:"no,omitempty"`
	Target  string `json:"target,omitempty" msgpack:"tg,omitempty"`
	Hash    string `json:"hash,omitempty" msgpack:"h,omitempty"`
	PreHash string `json:"preHash,omitempty" msgpack:"ph,omitempty"`
	Exit    int    `json:"exit,omitempty" msgpack:"ex,omitempty"`
}

// Rejection records why the decider refused a well-formed command.
type Rejection struct {
	Command string       `json:"command" msgpack:"c"`
	Reason  RejectReason `json:"reason" msgpack:"r"`
	Detail  string       `json:"detail" msgpack:"d"`
}

// RejectReason is the typed reason of a Rejection.
type RejectReason string

// Rejection reasons.
const (
	ReasonUnsupported     RejectReason = "unsupported_capability"
	ReasonInvalidState    RejectReason = "invalid_state"
	ReasonNotResumable    RejectReason = "not_resumable"
	ReasonAlreadyResolved RejectReason = "already_resolved"
)
