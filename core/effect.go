package core

// EffectKind is what an effect asks the world outside the kernel to do.
// Effects never change state; their outcomes come back as Observations.
type EffectKind string

// Effect kinds.
const (
	EffStartTurn   EffectKind = "start_turn"   // start (or resume) a provider turn for an attempt
	EffSteer       EffectKind = "steer"        // fold new text into the running turn
	EffInterrupt   EffectKind = "interrupt"    // ask the provider to end the turn
	EffAnswer      EffectKind = "answer"       // deliver a request response to the provider
	EffStopSession EffectKind = "stop_session" // stop the provider runtime of a thread
	EffTimer       EffectKind = "timer"        // call back with TimerFired at Deadline
	EffCheckpoint  EffectKind = "checkpoint"   // capture the workspace into a checkpoint (Scope, Workspace, Commit = parent)
	EffRestore     EffectKind = "restore"      // make the workspace's files equal a checkpoint (Commit); Key is the operation
	// EffWorkerStep is the kind of the two-phase record of a worker step
	// the built-in agent runs (journaled through step.started/step.done).
	EffWorkerStep EffectKind = "worker_step"
)

// EffectClass is what running an effect again does to the world
// (docs/ARCHITECTURE.md, "Side effects").
type EffectClass string

// Side-effect classes.
const (
	ClassPure         EffectClass = "pure"
	ClassIdempotent   EffectClass = "idempotent"
	ClassReversible   EffectClass = "reversible"
	ClassIrreversible EffectClass = "irreversible"
)

// EffectStatus is where the journaled record of an effect is: started
// (effect.started, before it runs), then how it ended (effect.completed).
type EffectStatus string

// Effect record statuses. A checkpoint capture's record ends with the
// checkpoint's own status instead (ready, missing, error), as the journal
// has always recorded it.
const (
	EffStarted   EffectStatus = "started"
	EffCompleted EffectStatus = "completed"
	EffFailed    EffectStatus = "failed"
	EffCancelled EffectStatus = "cancelled"
	// EffMissed: the effect came too late for what it was for (a steer
	// after its turn ended, an answer to a request nobody waits for).
	EffMissed EffectStatus = "missed"
	// EffRefused: a worker step the worker would not run (its capability
	// token or path confinement said no).
	EffRefused EffectStatus = "refused"
	// EffUnknown: the effect may or may not have happened (the host
	// restarted while it ran, or a person declined to run it again).
	EffUnknown EffectStatus = "unknown"
	// EffUnsupported is the status a provider reports for an effect its
	// installed version cannot do (a Codex without turn/steer): the kernel
	// downgrades the thread's capability and falls back.
	EffUnsupported EffectStatus = "unsupported"
)

// Effect is work for the world outside the kernel. Key is its idempotency
// key; effects that touch the world are journaled effect.started before
// they run (two-phase: docs/ARCHITECTURE.md, "Side effects").
type Effect struct {
	Key      string      `json:"key"`
	Kind     EffectKind  `json:"kind"`
	Class    EffectClass `json:"class"`
	Thread   string      `json:"thread"`
	Run      string      `json:"run,omitempty"`
	Attempt  string      `json:"attempt,omitempty"`
	Provider string      `json:"provider,omitempty"`
	// Turn is set for start_turn.
	Turn *Turn `json:"turn,omitempty"`
	// Text is the steering text for steer.
	Text string `json:"text,omitempty"`
	// Request is set for answer: the resolved request.
	Request *Request `json:"request,omitempty"`
	// Deadline (unix nanos) is set for timer.
	Deadline int64 `json:"deadline,omitempty"`
	// Checkpoints: the scope, the workspace and a commit (the parent for a
	// capture, the target for a restore).
	Scope     string `json:"scope,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Commit    string `json:"commit,omitempty"`
	// Since: for a restore of a checkpoint that is not a run's own, the
	// run checkpoint to compare the restored files with afterwards.
	Since string `json:"since,omitempty"`
	// Own (a run's capture): list only the run's own changes: Paths its
	// agent reported writing, and paths modified during one of Windows
	// (its commands and tool calls, unix nanos); count the rest.
	Own     bool     `json:"own,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Windows []Window `json:"windows,omitempty"`
	// A restore changes only paths that differ between From (the state
	// the thread left) and Commit, and of those only Only unless
	// AllPaths; a path whose file differs from From now is kept unless
	// Force.
	From string `json:"from,omitempty"`
	// Mission steps (EffMission): the step (Op), its mission and task,
	// and the mission's repository.
	Op       string   `json:"op,omitempty"`
	Mission  string   `json:"mission,omitempty"`
	Task     string   `json:"task,omitempty"`
	Repo     string   `json:"repo,omitempty"`
	Only     []string `json:"only,omitempty"`
	AllPaths bool     `json:"allPaths,omitempty"`
	Force    bool     `json:"force,omitempty"`
}

// Window is a span of time, unix nanos.
type Window struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Turn is everything a provider needs to run one attempt: the conversation
// so far (built from the journal), the instruction to act on, and what this
// run already settled, so a recovery attempt never asks twice.
type Turn struct {
	Messages []Message `json:"messages"`
	// Text is the run's own message; Instruction is the latest user text
	// of the run (its last steering message, or Text).
	Text        string        `json:"text"`
	Instruction string        `json:"instruction"`
	Reason      AttemptReason `json:"reason"`
	Workspace   string        `json:"workspace,omitempty"`
	// Settled are this run's resolved requests, by Key.
	Settled []Request `json:"settled,omitempty"`
	// UserMessages counts user messages in the context, this run's included.
	UserMessages int `json:"userMessages"`
	// LLM holds this run's journaled model responses by request key: a
	// resumed turn reuses them and never calls the model again for them.
	LLM map[string]string `json:"llm,omitempty"`
	// Steps are this run's journaled worker steps, by idempotency key.
	Steps map[string]EffectRecord `json:"steps,omitempty"`
	// Policy is the thread's approval and budget policy.
	Policy Policy `json:"policy"`
	// NativeRef is the provider's own conversation id to resume (codex
	// thread id, claude session id, ACP session id), when one is known and
	// available.
	NativeRef string `json:"nativeRef,omitempty"`
	// RevertBefore: before this turn, revert the resumed conversation to
	// before this native turn (a rollback's provider step); on failure
	// start a new conversation from Messages instead.
	RevertBefore string `json:"revertBefore,omitempty"`
	// ForkOf and ForkAt: with no NativeRef, open the conversation by
	// forking ForkOf through its turn ForkAt; on failure start a new one
	// from Messages.
	ForkOf string `json:"forkOf,omitempty"`
	ForkAt string `json:"forkAt,omitempty"`
	// Handoff and Transfer are the journaled texts this run brings with it
	// (a provider-switch handoff, a merge-back delta); they are also the
	// last messages before the run's own in Messages. A session that holds
	// the conversation gets them with the message; a fresh one gets the
	// whole history, which a handoff only restates.
	Handoff  string `json:"handoff,omitempty"`
	Transfer string `json:"transfer,omitempty"`
	// Agent and Instructions: the alias of the agent identity the thread
	// was started as and its instructions, which every turn carries
	// (each provider's doc.go says where its agent gets them).
	Agent        string `json:"agent,omitempty"`
	Instructions string `json:"instructions,omitempty"`
}

// Policy is what a turn may do without asking, and what it may spend.
type Policy struct {
	Allow       []string `json:"allow,omitempty"`
	BudgetUSD   float64  `json:"budgetUsd,omitempty"`
	MaxTokens   int      `json:"maxTokens,omitempty"`
	SpentUSD    float64  `json:"spentUsd,omitempty"`
	SpentTokens int      `json:"spentTokens,omitempty"`
}

// Allows reports whether an action kind runs without asking.
func (p Policy) Allows(kind string) bool {
	for _, k := range p.Allow {
		if k == kind {
			return true
		}
	}
	return false
}

// Message is one conversation entry in a provider's context.
type Message struct {
	Role string `json:"role"` // user, assistant
	Text string `json:"text"`
}
