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

// Observation kinds, reported by providers and effect executors.
const (
	ObsTurnStarted   = "turn.started"   // provider accepted the turn
	ObsNativeTurn    = "native_turn"    // the provider's own mark of this attempt's turn (Text; the last wins)
	ObsText          = "text"           // assistant text delta (Key: node key)
	ObsNode          = "node"           // a node started or changed (Key, NodeKind, Status, Title, Text, Parent)
	ObsPlan          = "plan"           // todo list replaced (Items); Key PlanKeyProposed: a proposed plan
	ObsRequest       = "request"        // approval or question opened (Key, RequestKind, Prompt)
	ObsTurnEnded     = "turn.ended"     // Status completed|interrupted|failed, Error
	ObsSessionState  = "session.state"  // runtime registry transition (Status = state)
	ObsNativeRef     = "native_ref"     // provider thread ref learned (Text)
	ObsEffectDone    = "effect.done"    // effect Key completed (Status, Text)
	ObsWarning       = "warning"        // runtime warning (Text)
	ObsRequestClosed = "request.closed" // the provider withdrew a request (Key)
	ObsLLM           = "llm"            // a model call answered (Key: request hash, Text: response, Title: model, usage)
	ObsStepStarted   = "step.started"   // a worker step is about to run (Key: idempotency key, Action, Class, Title, Hash, PreHash)
	ObsStepDone      = "step.done"      // a worker step ended (Key, Status, Text: output, Exit, Hash)
	ObsResumeFailed  = "resume.failed"  // the provider could not resume its thread by native ref (Text: why); it starts a replacement from the journaled history
	ObsCheckpoint    = "checkpoint"     // a capture ended (Key: scope, Status ready|missing|error, Hash: commit, Title: ref, Files, MoreFiles, Error)
	ObsRestored      = "restored"       // a restore ended (Key: operation, Status completed|failed, Text: what changed, Error)
)

// Observation is a fact reported by a provider or an effect executor. The
// Runner stamps At. Observations for an attempt that is no longer current
// are journaled as nothing: late events never change the current attempt.
type Observation struct {
	Kind        string     `json:"kind"`
	At          int64      `json:"at,omitempty"`
	Thread      string     `json:"thread"`
	Run         string     `json:"run,omitempty"`
	Attempt     string     `json:"attempt,omitempty"`
	Key         string     `json:"key,omitempty"`
	Parent      string     `json:"parent,omitempty"`
	NodeKind    string     `json:"nodeKind,omitempty"`
	RequestKind string     `json:"requestKind,omitempty"`
	Status      string     `json:"status,omitempty"`
	Title       string     `json:"title,omitempty"`
	Text        string     `json:"text,omitempty"`
	Prompt      string     `json:"prompt,omitempty"`
	Items       []PlanItem `json:"items,omitempty"`
	Error       string     `json:"error,omitempty"`
	// Final marks the last text delta of a node (flush it now).
	Final bool `json:"final,omitempty"`
	// Prompt flushing: the delta reaches the journal within
	// UrgentFlushInterval instead of TextFlushInterval (command output).
	Urgent bool `json:"urgent,omitempty"`
	// Dirty: after a restore of a node's or a mark's checkpoint, the files
	// differ from the run checkpoint the effect named (Effect.Since).
	Dirty bool `json:"dirty,omitempty"`
	// Model calls and worker steps.
	Action     string  `json:"action,omitempty"`
	Class      string  `json:"class,omitempty"`
	Hash       string  `json:"hash,omitempty"`
	PreHash    string  `json:"preHash,omitempty"`
	Exit       int     `json:"exit,omitempty"`
	TokensIn   int     `json:"tokensIn,omitempty"`
	TokensOut  int     `json:"tokensOut,omitempty"`
	CostUSD    float64 `json:"costUsd,omitempty"`
	DurationMS int64   `json:"durationMs,omitempty"`
	// Checkpoints: the files a run's capture changed against the parent
	// checkpoint its effect named, in any order; MoreFiles counts files
	// the executor left out. The kernel sorts and caps them.
	Files     []FileChange `json:"files,omitempty"`
	MoreFiles int          `json:"moreFiles,omitempty"`
}

// TimerFired is a deadline reached. Key names what was scheduled.
type TimerFired struct {
	Key string `json:"key"`
	At  int64  `json:"at"`
}

// Recover is the reconcile pass run once when a host opens the journal.
type Recover struct {
	At int64 `json:"at"`
}
