package store

import "github.com/nexus-tui/nexus/core"

// The agent identity (core.Agent) in the event payload ("ag"), in a
// receipt ("ag": the agent's id) and in the snapshot body ("agents",
// left out when there is none); field order and names follow its msgpack
// tags, as everywhere in this codec.

func encAgent(e *enc, a *core.Agent) {
	if a == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", a.ID)
	o.str("al", a.Alias)
	o.str("pf", a.Profile)
	o.strOmit("in", a.Instructions)
	o.boolOmit("rm", a.Removed)
	o.int("ct", a.CreatedAt)
	o.int("ut", a.UpdatedAt)
	o.end()
}

func decAgent(r *reader) *core.Agent {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Agent)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "al":
			v.Alias = r.str()
		case "pf":
			v.Profile = r.str()
		case "in":
			v.Instructions = r.str()
		case "rm":
			v.Removed = r.bool()
		case "ct":
			v.CreatedAt = r.int()
		case "ut":
			v.UpdatedAt = r.int()
		default:
			r.skip()
		}
	}
	return v
}
