package core

// Input is everything that goes through Decide: a command from a person or
// script, an observation from a provider or effect, a timer, or the
// recovery pass at host start. Exactly one of the pointers is set.
type Input struct {
	Command *Command     `json:"command,omitempty"`
	Obs     *Observation `json:"obs,omitempty"`
	Timer   *TimerFired  `json:"timer,omitempty"`
	// Recover is the reconcile pass at host start (docs/ARCHITECTURE.md,
	// "Crash and resume").
	Recover *Recover `json:"recover,omitempty"`
	// Shutdown is the clean-exit pass: idle sessions are stopped so the
	// next host has nothing to reconcile for them.
	Shutdown *Recover `json:"shutdown,omitempty"`
}

// ObsKind names what an observation reports. Each kind uses the fields
// its comment names; the others stay empty.
type ObsKind string

// Observation kinds, reported by providers and effect executors.
const (
	ObsTurnStarted   ObsKind = "turn.started"   // provider accepted the turn
	ObsNativeTurn    ObsKind = "native_turn"    // the provider's own mark of this attempt's turn (Text; the last wins)
	ObsText          ObsKind = "text"           // assistant text delta (Key: node key, Text, Parent, Final, Urgent)
	ObsNode          ObsKind = "node"           // a node started or changed (Key, NodeKind, NodeStatus, Title, Text, Parent)
	ObsPlan          ObsKind = "plan"           // todo list replaced (Items); Key PlanKeyProposed: a proposed plan
	ObsRequest       ObsKind = "request"        // approval or question opened (Key, RequestKind, Prompt, Action)
	ObsTurnEnded     ObsKind = "turn.ended"     // the turn ended (TurnStatus completed|interrupted|failed, Error)
	ObsSessionState  ObsKind = "session.state"  // runtime registry transition (SessionState, Text: why)
	ObsNativeRef     ObsKind = "native_ref"     // provider thread ref learned (Text)
	ObsEffectDone    ObsKind = "effect.done"    // effect Key completed (EffectStatus, Text)
	ObsWarning       ObsKind = "warning"        // runtime warning (Text)
	ObsRequestClosed ObsKind = "request.closed" // the provider withdrew a request (Key, Text: why)
	ObsLLM           ObsKind = "llm"            // a model call answered (Key: request hash, Model, Text: response, usage, Parent)
	ObsStepStarted   ObsKind = "step.started"   // a worker step is about to run (Key: idempotency key, Action, Class, Title: what it acts on, Hash, PreHash, Parent)
	ObsStepDone      ObsKind = "step.done"      // a worker step ended (Key, EffectStatus, Text: output, Exit, Hash)
	ObsResumeFailed  ObsKind = "resume.failed"  // the provider could not resume its thread by native ref (Text: why); it starts a replacement from the journaled history
	ObsCheckpoint    ObsKind = "checkpoint"     // a capture ended (Key: scope, CheckpointStatus ready|missing|error, Ref, Commit, Files, MoreFiles, Error)
	ObsRestored      ObsKind = "restored"       // a restore ended (Key: operation, EffectStatus completed|failed, Text: what changed, Dirty, Error)
)

// Observation is a fact reported by a provider or an effect executor. The
// Runner stamps At. Observations for an attempt that is no longer current
// are journaled as nothing: late events never change the current attempt.
//
// Observations are inputs, never journaled; the events Decide makes of
// them are. So a field here may be renamed freely, but what Decide
// records from it may not change.
type Observation struct {
	Kind ObsKind `json:"kind"`
	// Mission and Task: whose step an ObsMission reports; Changed is how
	// many paths a task's commit changed.
	Mission string `json:"mission,omitempty"`
	Task    string `json:"task,omitempty"`
	Changed int    `json:"changed,omitempty"`
	At      int64  `json:"at,omitempty"`
	Thread  string `json:"thread"`
	Run     string `json:"run,omitempty"`
	Attempt string `json:"attempt,omitempty"`
	Key     string `json:"key,omitempty"`
	Parent  string `json:"parent,omitempty"`
	Title   string `json:"title,omitempty"`
	Text    string `json:"text,omitempty"`
	Error   string `json:"error,omitempty"`
	// Nodes (ObsNode): the kind of a new node (tool_call when empty), and
	// a status once it changes.
	NodeKind   NodeKind   `json:"nodeKind,omitempty"`
	NodeStatus NodeStatus `json:"nodeStatus,omitempty"`
	// Requests (ObsRequest): approval when empty.
	RequestKind RequestKind `json:"requestKind,omitempty"`
	Prompt      string      `json:"prompt,omitempty"`
	// TurnStatus is how a turn ended (ObsTurnEnded): completed,
	// interrupted, or failed (anything else counts as failed).
	TurnStatus AttemptStatus `json:"turnStatus,omitempty"`
	// SessionState is the registry state a session moved to
	// (ObsSessionState).
	SessionState SessionState `json:"sessionState,omitempty"`
	// EffectStatus is how an effect or a worker step ended (ObsEffectDone,
	// ObsStepDone, ObsRestored); completed when empty.
	EffectStatus EffectStatus `json:"effectStatus,omitempty"`
	Items        []PlanItem   `json:"items,omitempty"`
	// Final marks the last text delta of a node (flush it now).
	Final bool `json:"final,omitempty"`
	// Prompt flushing: the delta reaches the journal within
	// UrgentFlushInterval instead of TextFlushInterval (command output).
	Urgent bool `json:"urgent,omitempty"`
	// Dirty: after a restore of a node's or a mark's checkpoint, the files
	// differ from the run checkpoint the effect named (Effect.Since).
	Dirty bool `json:"dirty,omitempty"`
	// Model calls (ObsLLM): the model that answered, and the usage.
	Model      string  `json:"model,omitempty"`
	TokensIn   int     `json:"tokensIn,omitempty"`
	TokensOut  int     `json:"tokensOut,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty"`
	DurationMS int64   `json:"durationMs,omitempty"`
	// NoCost: the usage came without a price (cost unknown, not free).
	NoCost bool `json:"costUnknown,omitempty"`
	// Worker steps (ObsStepStarted, ObsStepDone): the action, its class,
	// the BLAKE3 a written file had before (PreHash) and has after (Hash),
	// and a command's exit code.
	Action  string      `json:"action,omitempty"`
	Class   EffectClass `json:"class,omitempty"`
	Hash    string      `json:"hash,omitempty"`
	PreHash string      `json:"preHash,omitempty"`
	Exit    int         `json:"exit,omitempty"`
	// Checkpoints (ObsCheckpoint): the capture's status (ready when
	// empty), its git ref and commit, and the files it changed against
	// the parent checkpoint its effect named, in any order; MoreFiles
	// counts files the executor left out. The kernel sorts and caps them.
	CheckpointStatus CheckpointStatus `json:"checkpointStatus,omitempty"`
	Ref              string           `json:"ref,omitempty"`
	Commit           string           `json:"commit,omitempty"`
	Files            []FileChange     `json:"files,omitempty"`
	MoreFiles        int              `json:"moreFiles,omitempty"`
	// Own and Outside: the capture listed the run's own changes only and
	// counted Outside others (Checkpoint.Own).
	Own     bool `json:"own,omitempty"`
	Outside int  `json:"outside,omitempty"`
	// Paths: the files a step or tool call wrote (ObsStepStarted,
	// ObsNode); for ObsRestored, the paths the restore wrote or removed
	// (PathsAll: more than it lists), and Kept those it left because
	// someone else changed them since.
	Paths    []string `json:"paths,omitempty"`
	PathsAll bool     `json:"pathsAll,omitempty"`
	Kept     []string `json:"kept,omitempty"`
}

// TimerFired is a deadline reached. Key names what was scheduled.
type TimerFired struct {
	Key string `json:"key"`
	At  int64  `json:"at"`
}

// Recover is the reconcile pass run once when a host opens the journal.
type Recover struct {
	At int64 `json:"at"`
	// NoSchedules: schedules neither fire nor are armed (a host that
	// serves one read-only command and exits: RunnerConfig.NoSchedules).
	NoSchedules bool `json:"noSchedules,omitempty"`
	// Writer names the host that now writes a shared journal (team
	// mode): Recover journals it first, so the new writer's first
	// commit moves the journal past anything a host it took over from
	// still tries to append (that append's compare-and-swap fails).
	Writer string `json:"writer,omitempty"`
}
