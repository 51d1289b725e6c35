package core

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Agent is a durable identity a thread can be started as: an alias people
// type (reviewer, fast), the provider profile it runs on (its provider,
// model and approval policy) and instructions that reach the agent on
// every turn of its threads. Its project is the state dir (doc.go,
// "Agents").
//
// Invariant: among agents not Removed, aliases are unique. A removed
// agent stays in the State, so the threads started as it still name it.
type Agent struct {
	ID           string `json:"id" msgpack:"id"`
	Alias        string `json:"alias" msgpack:"al"`
	Profile      string `json:"profile" msgpack:"pf"`
	Instructions string `json:"instructions,omitempty" msgpack:"in,omitempty"`
	Removed      bool   `json:"removed,omitempty" msgpack:"rm,omitempty"`
	CreatedAt    int64  `json:"createdAt" msgpack:"ct"`
	UpdatedAt    int64  `json:"updatedAt" msgpack:"ut"`
}

// Limits of an agent, enforced at the edge.
const (
	MaxAliasBytes        = 32
	MaxInstructionsBytes = 32 << 10
)

// CheckAlias reports whether s is a valid agent alias: 1..32 lower-case
// ASCII letters, digits, '-' or '_', starting with a letter.
func CheckAlias(s string) error {
	ok := s != "" && len(s) <= MaxAliasBytes && s[0] >= 'a' && s[0] <= 'z'
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return refuse("agent alias %.40q is not valid: use 1..%d lower-case letters, digits, - or _, starting with a letter", s, MaxAliasBytes)
	}
	return nil
}

func checkInstructions(s string) error {
	switch {
	case !utf8.ValidString(s):
		return refuse("instructions are not valid UTF-8")
	case len(s) > MaxInstructionsBytes:
		return refuse("instructions are %d bytes, over the limit of %d bytes: shorten them", len(s), MaxInstructionsBytes)
	}
	return nil
}

// AgentByAlias returns the agent (not removed) with an alias, or nil.
func (st *State) AgentByAlias(alias string) *Agent {
	for _, a := range st.Agents {
		if a.Alias == alias && !a.Removed {
			return a
		}
	}
	return nil
}

// AgentList returns the agents not removed, by alias.
func (st *State) AgentList() []*Agent {
	var out []*Agent
	for _, a := range st.Agents {
		if !a.Removed {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *Agent) int { return strings.Compare(a.Alias, b.Alias) })
	return out
}

// validateAgent checks the shape of the agent commands.
func (c *Command) validateAgent() error {
	if err := CheckAlias(c.Agent); err != nil {
		return err
	}
	if c.Kind != CmdAgentAdd {
		return nil
	}
	if c.NewAgent == "" || len(c.NewAgent) > MaxIDBytes || !utf8.ValidString(c.NewAgent) {
		return refuse("agent.add needs a new agent id")
	}
	if strings.TrimSpace(c.Profile) == "" {
		return refuse("agent.add needs a profile: pass --profile (see `nexus providers`)")
	}
	if len(c.Profile) > MaxIDBytes || !utf8.ValidString(c.Profile) {
		return refuse("profile %.40q is not a valid profile name", c.Profile)
	}
	return checkInstructions(c.Instructions)
}

// agentRefs refuses agent commands that name agents that do not exist
// (or, for agent.add, an id in use); like an unknown thread, such input
// journals nothing.
func agentRefs(st *State, c *Command) error {
	switch c.Kind {
	case CmdAgentAdd:
		if st.Agents[c.NewAgent] != nil {
			return refuse("agent %s already exists", c.NewAgent)
		}
	case CmdAgentRemove:
		if st.AgentByAlias(c.Agent) == nil {
			return refuse("unknown agent %q: list agents with `nexus agent list`", c.Agent)
		}
	case CmdThreadCreate:
		if c.Agent != "" && st.AgentByAlias(c.Agent) == nil {
			return refuse("unknown agent %q: list agents with `nexus agent list`, or add it with `nexus agent add`", c.Agent)
		}
	}
	return nil
}

func (t *tx) putAgent(a Agent) {
	a.UpdatedAt = t.at
	t.emit(EvAgentUpdated, Event{Payload: Payload{Agent: &a}})
}

func (t *tx) addAgent(c *Command) *Rejection {
	if old := t.st.AgentByAlias(c.Agent); old != nil {
		return reject(ReasonInvalidState, "agent %q already exists (%s): remove it first or choose another alias", c.Agent, old.ID)
	}
	t.putAgent(Agent{ID: c.NewAgent, Alias: c.Agent, Profile: strings.TrimSpace(c.Profile), Instructions: c.Instructions, CreatedAt: c.At})
	t.receipt.Agent = c.NewAgent
	return nil
}

// removeAgent marks the agent removed: its alias is free again, and the
// threads started as it keep its id and alias (and its instructions).
func (t *tx) removeAgent(c *Command) *Rejection {
	a := *t.st.AgentByAlias(c.Agent)
	a.Removed = true
	t.putAgent(a)
	t.receipt.Agent = a.ID
	return nil
}
