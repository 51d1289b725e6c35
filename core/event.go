package core

// Event is the journal envelope. Its field set and msgpack names are part of
// the on-disk format (see store/doc.go).
type Event struct {
	Seq         uint64    `json:"seq" msgpack:"q"`
	ID          string    `json:"id" msgpack:"i"`
	Type        EventType `json:"type" msgpack:"t"`
	Thread      string    `json:"thread,omitempty" msgpack:"th,omitempty"`
	Run         string    `json:"run,omitempty" msgpack:"ru,omitempty"`
	Attempt     string    `json:"attempt,omitempty" msgpack:"at,omitempty"`
	Node        string    `json:"node,omitempty" msgpack:"no,omitempty"`
	Correlation string    `json:"correlation,omitempty" msgpack:"co,omitempty"`
	Causation   string    `json:"causation,omitempty" msgpack:"ca,omitempty"`
	At          int64     `json:"at" msgpack:"a"`
	Payload     Payload   `json:"payload" msgpack:"p"`
}

// Payload carries the whole updated entities of an event, so projections
// upsert by id. Exactly the fields an event type documents are set.
type Payload struct {
	Thread         *Thread         `json:"thread,omitempty" msgpack:"th,omitempty"`
	Run            *Run            `json:"run,omitempty" msgpack:"ru,omitempty"`
	Attempt        *Attempt        `json:"attempt,omitempty" msgpack:"at,omitempty"`
	Node           *Node           `json:"node,omitempty" msgpack:"no,omitempty"`
	Request        *Request        `json:"request,omitempty" msgpack:"rq,omitempty"`
	Plan           *Plan           `json:"plan,omitempty" msgpack:"pl,omitempty"`
	Session        *Session        `json:"session,omitempty" msgpack:"se,omitempty"`
	ProviderThread *ProviderThread `json:"providerThread,omitempty" msgpack:"pt,omitempty"`
	Handoff        *Handoff        `json:"handoff,omitempty" msgpack:"ho,omitempty"`
	Transfer       *Transfer       `json:"transfer,omitempty" msgpack:"tr,omitempty"`
	Checkpoint     *Checkpoint     `json:"checkpoint,omitempty" msgpack:"cp,omitempty"`
	Operation      *Operation      `json:"operation,omitempty" msgpack:"op,omitempty"`
	Effect         *EffectRecord   `json:"effect,omitempty" msgpack:"ef,omitempty"`
	Rejection      *Rejection      `json:"rejection,omitempty" msgpack:"rj,omitempty"`
	Receipt        *Receipt        `json:"receipt,omitempty" msgpack:"rc,omitempty"`
	Agent          *Agent          `json:"agent,omitempty" msgpack:"ag,omitempty"`
	Mission        *Mission        `json:"mission,omitempty" msgpack:"mi,omitempty"`
	Schedule       *Schedule       `json:"schedule,omitempty" msgpack:"sd,omitempty"`
	// Text is a coalesced text delta appended to Node's text (node.text).
	Text string `json:"text,omitempty" msgpack:"tx,omitempty"`
	// Note is a human-readable line for warnings and activity.
	Note string `json:"note,omitempty" msgpack:"nt,omitempty"`
	// KeepText marks a node.updated whose Node carries no text, or a
	// run.updated whose Run carries no reply: the entity keeps the text it
	// has (a status change does not journal a reply's whole text again).
	KeepText bool `json:"keepText,omitempty" msgpack:"kt,omitempty"`
	// DailyUSD is the daily budget a budget.daily event sets.
	DailyUSD float64 `json:"dailyUsd,omitempty" msgpack:"du,omitempty"`
}

// EventType names what an event records. Part of the on-disk format:
// never rename, only add.
type EventType string

// Event types.
const (
	EvThreadUpdated   EventType = "thread.updated"
	EvRunUpdated      EventType = "run.updated"
	EvAttemptUpdated  EventType = "attempt.updated"
	EvNodeUpdated     EventType = "node.updated"
	EvNodeText        EventType = "node.text"
	EvRequestUpdated  EventType = "request.updated"
	EvPlanUpdated     EventType = "plan.updated"
	EvSessionUpdated  EventType = "session.updated"
	EvProviderThread  EventType = "provider_thread.updated"
	EvHandoffRecorded EventType = "handoff.recorded"
	EvTransferUpdated EventType = "transfer.updated"
	EvCheckpoint      EventType = "checkpoint.updated"
	EvOperation       EventType = "operation.updated"
	EvEffectStarted   EventType = "effect.started"
	EvEffectCompleted EventType = "effect.completed"
	EvCommandRejected EventType = "command.rejected"
	EvCommandAccepted EventType = "command.accepted"
	EvRuntimeWarning  EventType = "runtime.warning"
	EvHostRecovered   EventType = "host.recovered"
	// EvAgentUpdated carries an agent identity, added or removed.
	EvAgentUpdated EventType = "agent.updated"
	// EvDailyBudget sets State.DailyBudgetUSD to Payload.DailyUSD (0:
	// none).
	EvDailyBudget EventType = "budget.daily"
	// EvJournalRepaired stands at a seq whose event nexus verify --repair
	// could not recover; Payload.Note says why and where the original
	// journal is kept. It changes nothing but the seq.
	EvJournalRepaired EventType = "journal.repaired"
)

// Receipt is the first outcome of a client command id. A retried command
// with the same id is answered with it and journals nothing new.
type Receipt struct {
	Command string      `json:"command" msgpack:"c"`
	Kind    CommandKind `json:"kind" msgpack:"k"`
	Thread  string      `json:"thread,omitempty" msgpack:"th,omitempty"`
	Run     string      `json:"run,omitempty" msgpack:"ru,omitempty"`
	Ordinal int         `json:"ordinal,omitempty" msgpack:"o,omitempty"`
	Request string      `json:"request,omitempty" msgpack:"rq,omitempty"`
	Mode    SendMode    `json:"mode,omitempty" msgpack:"m,omitempty"`
	Op      string      `json:"operation,omitempty" msgpack:"op,omitempty"`
	// Checkpoint is the id of the checkpoint a checkpoint.capture takes.
	Checkpoint string `json:"checkpoint,omitempty" msgpack:"ck,omitempty"`
	// Agent is the id of the agent an agent.add added or agent.remove
	// removed.
	Agent string `json:"agent,omitempty" msgpack:"ag,omitempty"`
	// Mission is the mission a mission command made or acted on.
	Mission string     `json:"mission,omitempty" msgpack:"mi,omitempty"`
	Seq     uint64     `json:"seq" msgpack:"q"`
	Reject  *Rejection `json:"rejection,omitempty" msgpack:"rj,omitempty"`
}
