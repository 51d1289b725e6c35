package core

// Status and kind names are strings because they are part of the on-disk
// format and of the documented --json output.

// Run statuses.
const (
	RunQueued      = "queued"
	RunRunning     = "running"
	RunWaiting     = "waiting"
	RunInterrupted = "interrupted"
	RunCompleted   = "completed"
	RunFailed      = "failed"
	RunCancelled   = "cancelled"
	RunRolledBack  = "rolled_back"
)

// Attempt reasons and statuses.
const (
	ReasonInitial          = "initial"
	ReasonSteeringRestart  = "steering_restart"
	ReasonRetry            = "retry"
	ReasonProviderRecovery = "provider_recovery"

	AttemptRunning     = "running"
	AttemptCompleted   = "completed"
	AttemptInterrupted = "interrupted"
	AttemptFailed      = "failed"
	AttemptCancelled   = "cancelled"
	AttemptSuperseded  = "superseded"
)

// Node kinds and statuses.
const (
	NodeRootTurn         = "root_turn"
	NodeAssistantMessage = "assistant_message"
	NodeToolCall         = "tool_call"
	NodeSubagent         = "subagent"
	NodeApproval         = "approval"
	NodeUserInput        = "user_input_request"
	NodeWorkerStep       = "worker_step"
	NodeLLMCall          = "llm_call"

	NodeRunning   = "running"
	NodeCompleted = "completed"
	NodeFailed    = "failed"
	NodeCancelled = "cancelled"
)

// Request kinds and statuses.
const (
	RequestApproval  = "approval"
	RequestUserInput = "user_input"

	RequestPending      = "pending"
	RequestResolved     = "resolved"
	RequestCancelled    = "cancelled"
	RequestNotResumable = "not_resumable"
)

// Thread statuses.
const (
	ThreadIdle     = "idle"
	ThreadRunning  = "running"
	ThreadWaiting  = "waiting"
	ThreadFailed   = "failed"
	ThreadArchived = "archived"
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
	ID        string       `json:"id" msgpack:"id"`
	Title     string       `json:"title" msgpack:"ti,omitempty"`
	Provider  string       `json:"provider" msgpack:"pr"`
	Caps      Capabilities `json:"capabilities" msgpack:"ca"`
	Workspace string       `json:"workspace,omitempty" msgpack:"ws,omitempty"`
	Status    string       `json:"status" msgpack:"s"`
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
	// Handoff is a provider-switch handoff the next run carries to the new
	// provider (cleared when a run takes it).
	Handoff string `json:"handoff,omitempty" msgpack:"hf,omitempty"`
	// MaxTokens caps the tokens the thread may spend (0: no cap).
	MaxTokens int `json:"maxTokens,omitempty" msgpack:"mt,omitempty"`
	// Spent so far on model calls.
	TokensIn  int     `json:"tokensIn,omitempty" msgpack:"tin,omitempty"`
	TokensOut int     `json:"tokensOut,omitempty" msgpack:"tou,omitempty"`
	CostUSD   float64 `json:"costUsd,omitempty" msgpack:"co,omitempty"`
	CreatedAt int64   `json:"createdAt" msgpack:"ct"`
	UpdatedAt int64   `json:"updatedAt" msgpack:"ut"`
}

// Run is one user turn of a thread.
type Run struct {
	ID      string `json:"id" msgpack:"id"`
	Thread  string `json:"thread" msgpack:"th"`
	Ordinal int    `json:"ordinal" msgpack:"o"`
	Status  string `json:"status" msgpack:"s"`
	Text    string `json:"text" msgpack:"tx"`
	// Steers are follow-up instructions folded into this run, in order.
	Steers []string `json:"steers,omitempty" msgpack:"sr,omitempty"`
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
	Finishing string `json:"finishing,omitempty" msgpack:"fi,omitempty"`
	// AwaitBase holds a run's first turn until the workspace's pre-run
	// baseline (run 1), or a mark being captured, is done.
	AwaitBase bool   `json:"awaitBase,omitempty" msgpack:"ab,omitempty"`
	Reply     string `json:"reply,omitempty" msgpack:"rl,omitempty"`
	Error     string `json:"error,omitempty" msgpack:"er,omitempty"`
	CreatedAt int64  `json:"createdAt" msgpack:"ct"`
	StartedAt int64  `json:"startedAt,omitempty" msgpack:"sa,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
}

// Attempt is one provider-turn attempt of a run.
type Attempt struct {
	ID        string `json:"id" msgpack:"id"`
	Run       string `json:"run" msgpack:"ru"`
	Thread    string `json:"thread" msgpack:"th"`
	N         int    `json:"n" msgpack:"n"`
	Reason    string `json:"reason" msgpack:"r"`
	Status    string `json:"status" msgpack:"s"`
	Session   string `json:"session,omitempty" msgpack:"se,omitempty"`
	StartedAt int64  `json:"startedAt" msgpack:"sa"`
	EndedAt   int64  `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
	// NativeTurn is the provider's own mark of the turn this attempt ran,
	// the last it reported (ObsNativeTurn): a Codex turn id, or the uuid of
	// the last message of a Claude Code turn. A native fork or rollback
	// keeps the conversation through it (or reverts to before it).
	NativeTurn string `json:"nativeTurn,omitempty" msgpack:"nt,omitempty"`
}

// Node is an execution graph node under an attempt.
type Node struct {
	ID      string `json:"id" msgpack:"id"`
	Attempt string `json:"attempt" msgpack:"at"`
	Run     string `json:"run" msgpack:"ru"`
	Thread  string `json:"thread" msgpack:"th"`
	Parent  string `json:"parent,omitempty" msgpack:"pa,omitempty"`
	Kind    string `json:"kind" msgpack:"k"`
	Status  string `json:"status" msgpack:"s"`
	Title   string `json:"title,omitempty" msgpack:"ti,omitempty"`
	Text    string `json:"text,omitempty" msgpack:"tx,omitempty"`
	// Key is the provider's own id for this node (tool call id, item id).
	Key       string `json:"key,omitempty" msgpack:"ky,omitempty"`
	StartedAt int64  `json:"startedAt" msgpack:"sa"`
	EndedAt   int64  `json:"endedAt,omitempty" msgpack:"ea,omitempty"`
	// Model calls (llm_call nodes): tokens, cost and how long it took.
	TokensIn   int     `json:"tokensIn,omitempty" msgpack:"tin,omitempty"`
	TokensOut  int     `json:"tokensOut,omitempty" msgpack:"tou,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty" msgpack:"co,omitempty"`
	DurationMS int64   `json:"durationMs,omitempty" msgpack:"dm,omitempty"`
	// Worker steps: the action, its exit code (run_command) and the
	// BLAKE3 of a file it wrote.
	Action string `json:"action,omitempty" msgpack:"ac,omitempty"`
	Exit   int    `json:"exitCode,omitempty" msgpack:"ex,omitempty"`
	Hash   string `json:"blake3,omitempty" msgpack:"h,omitempty"`
}

// Request is an app-owned approval or user-input request.
type Request struct {
	ID      string `json:"id" msgpack:"id"`
	Thread  string `json:"thread" msgpack:"th"`
	Run     string `json:"run" msgpack:"ru"`
	Attempt string `json:"attempt" msgpack:"at"`
	Node    string `json:"node,omitempty" msgpack:"no,omitempty"`
	Kind    string `json:"kind" msgpack:"k"`
	Status  string `json:"status" msgpack:"s"`
	Prompt  string `json:"prompt" msgpack:"p"`
	// Key is the provider's stable name for the request (its request id,
	// or for the built-in agent the directive that raised it).
	Key string `json:"key,omitempty" msgpack:"ky,omitempty"`
	// Action is the action kind an approval is for (write, command), so
	// "allow always" can be remembered per thread and kind.
	Action string `json:"action,omitempty" msgpack:"ac,omitempty"`
	// Response is allow, allow_always, deny or answer once resolved.
	Response  string `json:"response,omitempty" msgpack:"rs,omitempty"`
	Answer    string `json:"answer,omitempty" msgpack:"an,omitempty"`
	Reason    string `json:"reason,omitempty" msgpack:"re,omitempty"`
	CreatedAt int64  `json:"createdAt" msgpack:"ct"`
}

// Plan is a plan artifact: todo_list (live progress), proposed_plan or
// questions. Each update replaces the whole list.
type Plan struct {
	ID    string     `json:"id" msgpack:"id"`
	Run   string     `json:"run" msgpack:"ru"`
	Kind  string     `json:"kind" msgpack:"k"`
	Items []PlanItem `json:"items" msgpack:"it"`
}

// PlanItem is one entry of a plan. Depth nests child lists: a
// subagent's own todo list follows its parent item at depth 1.
type PlanItem struct {
	Text   string `json:"text" msgpack:"t"`
	Status string `json:"status" msgpack:"s"` // pending, in_progress, completed
	Depth  int    `json:"depth,omitempty" msgpack:"dp,omitempty"`
}

// MaxPlanDepth bounds PlanItem.Depth; a deeper item is kept at it.
const MaxPlanDepth = 4

// Session is one live provider runtime.
type Session struct {
	ID       string `json:"id" msgpack:"id"`
	Thread   string `json:"thread" msgpack:"th"`
	Provider string `json:"provider" msgpack:"pr"`
	State    string `json:"state" msgpack:"s"`
	Reason   string `json:"reason,omitempty" msgpack:"re,omitempty"`
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
	ID       string `json:"id" msgpack:"id"`
	Thread   string `json:"thread" msgpack:"th"`
	From     string `json:"from" msgpack:"fr"`
	To       string `json:"to" msgpack:"to"`
	Strategy string `json:"strategy" msgpack:"st"` // delta, full_thread_summary
	Text     string `json:"text" msgpack:"tx"`
}

// Transfer is a fork or merge_back context transfer.
type Transfer struct {
	ID     string `json:"id" msgpack:"id"`
	Kind   string `json:"kind" msgpack:"k"` // fork, merge_back
	From   string `json:"from" msgpack:"fr"`
	To     string `json:"to" msgpack:"to"`
	Run    int    `json:"run,omitempty" msgpack:"ru,omitempty"`
	Status string `json:"status" msgpack:"s"`
	Text   string `json:"text,omitempty" msgpack:"tx,omitempty"`
}

// Checkpoint is a workspace snapshot for one scope.
type Checkpoint struct {
	ID     string `json:"id" msgpack:"id"`
	Thread string `json:"thread" msgpack:"th"`
	Run    int    `json:"run" msgpack:"ru"`
	Scope  string `json:"scope" msgpack:"sc"`
	Status string `json:"status" msgpack:"s"` // ready, missing, error, stale
	Ref    string `json:"ref,omitempty" msgpack:"rf,omitempty"`
	Reason string `json:"reason,omitempty" msgpack:"re,omitempty"`
	Commit string `json:"commit,omitempty" msgpack:"cm,omitempty"`
	// Node is the subagent node a child-scope checkpoint belongs to (scope
	// node/...); Run is then the ordinal of the node's run.
	Node string `json:"node,omitempty" msgpack:"nd,omitempty"`
	// Files are the files this checkpoint changed against the one before
	// it (the previous run's, or the baseline), at most MaxCheckpointFiles;
	// MoreFiles counts the rest.
	Files     []FileChange `json:"files,omitempty" msgpack:"fs,omitempty"`
	MoreFiles int          `json:"moreFiles,omitempty" msgpack:"mf,omitempty"`
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
}

// Operation is a journaled multi-step operation (a rollback): its current
// step survives a crash, so `nexus resume` finishes it.
type Operation struct {
	ID     string `json:"id" msgpack:"id"`
	Kind   string `json:"kind" msgpack:"k"` // rollback
	Thread string `json:"thread" msgpack:"th"`
	ToRun  int    `json:"toRun" msgpack:"tr"`
	Step   string `json:"step" msgpack:"st"`  // provider, files, mark, done
	Status string `json:"status" msgpack:"s"` // running, completed, partial, refused
	Detail string `json:"detail,omitempty" msgpack:"d,omitempty"`
	Commit string `json:"commit,omitempty" msgpack:"cm,omitempty"`
	// Target is the checkpoint restored when it is not run ToRun's own (a
	// node's or a mark's); Dirty then says that the workspace was left
	// different from run ToRun's checkpoint.
	Target string `json:"target,omitempty" msgpack:"tg,omitempty"`
	Dirty  bool   `json:"dirty,omitempty" msgpack:"dy,omitempty"`
	// Marks counts the thread's marks when the rollback started: a mark
	// numbered above it was taken after the rollback.
	Marks int `json:"marks,omitempty" msgpack:"mk,omitempty"`
}

// Operation statuses and rollback steps.
const (
	OpRunning   = "running"
	OpCompleted = "completed"
	OpPartial   = "partial"
	OpRefused   = "refused"

	StepProvider = "provider"
	StepFiles    = "files"
	StepMark     = "mark"
	StepDone     = "done"
)

// Checkpoint statuses.
const (
	CkReady   = "ready"
	CkMissing = "missing"
	CkError   = "error"
	CkStale   = "stale"
)

// EffectRecord is the journaled two-phase record of an effect.
type EffectRecord struct {
	Key    string `json:"key" msgpack:"k"`
	Kind   string `json:"kind" msgpack:"ki"`
	Class  string `json:"class" msgpack:"c"`
	Run    string `json:"run,omitempty" msgpack:"ru,omitempty"`
	Status string `json:"status" msgpack:"s"` // started, completed, failed, unknown
	Result string `json:"result,omitempty" msgpack:"rs,omitempty"`
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
	Command string `json:"command" msgpack:"c"`
	Reason  string `json:"reason" msgpack:"r"`
	Detail  string `json:"detail" msgpack:"d"`
}

// Rejection reasons.
const (
	ReasonUnsupported     = "unsupported_capability"
	ReasonInvalidState    = "invalid_state"
	ReasonNotResumable    = "not_resumable"
	ReasonAlreadyResolved = "already_resolved"
)

// Side-effect classes of an effect (docs/ARCHITECTURE.md, "Side effects").
const (
	ClassPure         = "pure"
	ClassIdempotent   = "idempotent"
	ClassReversible   = "reversible"
	ClassIrreversible = "irreversible"
)
