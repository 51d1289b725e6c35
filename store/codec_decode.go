package store

import (
	"errors"

	"github.com/nexus-tui/nexus/core"
)

// Decoders for the entities of core/model.go, the mirror of
// codec_entity.go. Like the reflection decoder they skip keys they do not
// know (a newer binary may have added fields), read nil as the zero value,
// and keep the difference between a nil and an empty slice.

func decCaps(r *reader, c *core.Capabilities) {
	*c = core.Capabilities{}
	n, _ := r.mapLen()
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "st":
			c.Steer = r.bool()
		case "in":
			c.Interrupt = r.bool()
		case "re":
			c.Resume = r.bool()
		case "fo":
			c.Fork = r.bool()
		case "rb":
			c.Rollback = r.bool()
		case "ap":
			c.Approvals = r.bool()
		case "ui":
			c.UserInput = r.bool()
		case "pl":
			c.Plans = r.bool()
		case "sa":
			c.Subagents = r.bool()
		case "pt":
			c.PTY = r.bool()
		case "dr":
			c.DurableRequests = r.bool()
		default:
			r.skip()
		}
	}
}

func decThread(r *reader) *core.Thread {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Thread)
	for ; n > 0 && r.err == nil; n-- {
		switch k := r.str(); k {
		case "id":
			v.ID = r.str()
		case "ti":
			v.Title = r.str()
		case "ta":
			v.TitleAuto = r.bool()
		case "pr":
			v.Provider = r.str()
		case "ca":
			decCaps(r, &v.Caps)
		case "ws":
			v.Workspace = r.str()
		case "s":
			v.Status = core.ThreadStatus(r.str())
		case "ff":
			v.ForkedFrom = r.str()
		case "fr":
			v.ForkRun = int(r.int())
		case "rn":
			v.Runs = int(r.int())
		case "qh":
			v.QueueHeld = r.bool()
		case "bu":
			v.BudgetUSD = r.float()
		case "al":
			v.Allow = r.strs()
		case "wt":
			v.Worktree = r.str()
		case "rp":
			v.Repo = r.str()
		case "br":
			v.Branch = r.str()
		case "hf":
			v.Handoff = r.str()
		case "mt":
			v.MaxTokens = int(r.int())
		case "ar":
			v.Archived = r.bool()
		case "ct":
			v.CreatedAt = r.int()
		case "ut":
			v.UpdatedAt = r.int()
		case "ag":
			v.Agent = r.str()
		case "aa":
			v.AgentAlias = r.str()
		case "mi":
			v.Mission = r.str()
		case "tk":
			v.Task = r.str()
		default:
			if !decUsage(r, k, &v.TokensIn, &v.TokensOut, &v.CostUSD, &v.NoCost) {
				r.skip()
			}
		}
	}
	return v
}

func decRun(r *reader) *core.Run {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Run)
	for ; n > 0 && r.err == nil; n-- {
		switch k := r.str(); k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "o":
			v.Ordinal = int(r.int())
		case "s":
			v.Status = core.RunStatus(r.str())
		case "tx":
			v.Text = r.str()
		case "sr":
			v.Steers = r.strs()
		case "cx":
			v.Context = decList(r, decSection)
		case "hd":
			v.Held = r.bool()
		case "an":
			v.Attempts = int(r.int())
		case "rc":
			v.Recoverable = r.bool()
		case "ir":
			v.InterruptRequested = r.bool()
		case "xf":
			v.Transfer = r.str()
		case "hf":
			v.Handoff = r.str()
		case "pv":
			v.Provider = r.str()
		case "fi":
			v.Finishing = core.RunStatus(r.str())
		case "ab":
			v.AwaitBase = r.bool()
		case "rp":
			v.RestartPending = r.bool()
		case "rl":
			v.Reply = r.str()
		case "er":
			v.Error = r.str()
		case "ct":
			v.CreatedAt = r.int()
		case "sa":
			v.StartedAt = r.int()
		case "ea":
			v.EndedAt = r.int()
		default:
			if !decUsage(r, k, &v.TokensIn, &v.TokensOut, &v.CostUSD, &v.NoCost) {
				r.skip()
			}
		}
	}
	return v
}

func decAttempt(r *reader) *core.Attempt {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Attempt)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "ru":
			v.Run = r.str()
		case "th":
			v.Thread = r.str()
		case "n":
			v.N = int(r.int())
		case "r":
			v.Reason = core.AttemptReason(r.str())
		case "s":
			v.Status = core.AttemptStatus(r.str())
		case "se":
			v.Session = r.str()
		case "sa":
			v.StartedAt = r.int()
		case "ea":
			v.EndedAt = r.int()
		case "nt":
			v.NativeTurn = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decNode(r *reader) *core.Node {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Node)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "at":
			v.Attempt = r.str()
		case "ru":
			v.Run = r.str()
		case "th":
			v.Thread = r.str()
		case "pa":
			v.Parent = r.str()
		case "k":
			v.Kind = core.NodeKind(r.str())
		case "s":
			v.Status = core.NodeStatus(r.str())
		case "ti":
			v.Title = r.str()
		case "tx":
			v.Text = r.str()
		case "ky":
			v.Key = r.str()
		case "sa":
			v.StartedAt = r.int()
		case "tin":
			v.TokensIn = int(r.int())
		case "tou":
			v.TokensOut = int(r.int())
		case "co":
			v.CostUSD = r.float()
		case "dm":
			v.DurationMS = r.int()
		case "nc":
			v.NoCost = r.bool()
		case "ac":
			v.Action = r.str()
		case "ex":
			v.Exit = int(r.int())
		case "h":
			v.Hash = r.str()
		case "ps":
			v.Paths = r.strs()
		case "ea":
			v.EndedAt = r.int()
		default:
			r.skip()
		}
	}
	return v
}

func decRequest(r *reader) *core.Request {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Request)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "ru":
			v.Run = r.str()
		case "at":
			v.Attempt = r.str()
		case "no":
			v.Node = r.str()
		case "k":
			v.Kind = core.RequestKind(r.str())
		case "s":
			v.Status = core.RequestStatus(r.str())
		case "p":
			v.Prompt = r.str()
		case "ky":
			v.Key = r.str()
		case "ac":
			v.Action = r.str()
		case "rs":
			v.Response = core.Response(r.str())
		case "an":
			v.Answer = r.str()
		case "re":
			v.Reason = r.str()
		case "ct":
			v.CreatedAt = r.int()
		default:
			r.skip()
		}
	}
	return v
}

func decPayload(r *reader, p *core.Payload) {
	*p = core.Payload{}
	n, _ := r.mapLen()
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "th":
			p.Thread = decThread(r)
		case "ru":
			p.Run = decRun(r)
		case "at":
			p.Attempt = decAttempt(r)
		case "no":
			p.Node = decNode(r)
		case "rq":
			p.Request = decRequest(r)
		case "pl":
			p.Plan = decPlan(r)
		case "se":
			p.Session = decSession(r)
		case "pt":
			p.ProviderThread = decProviderThread(r)
		case "ho":
			p.Handoff = decHandoff(r)
		case "tr":
			p.Transfer = decTransfer(r)
		case "cp":
			p.Checkpoint = decCheckpoint(r)
		case "op":
			p.Operation = decOperation(r)
		case "ef":
			p.Effect = decEffect(r)
		case "rj":
			p.Rejection = decRejection(r)
		case "rc":
			p.Receipt = decReceipt(r)
		case "ag":
			p.Agent = decAgent(r)
		case "mi":
			p.Mission = decMission(r)
		case "sd":
			p.Schedule = decSchedule(r)
		case "tx":
			p.Text = r.str()
		case "nt":
			p.Note = r.str()
		case "kt":
			p.KeepText = r.bool()
		case "du":
			p.DailyUSD = r.float()
		default:
			r.skip()
		}
	}
}

var errNilEvent = errors.New("event is nil")

// decodeEvent decodes one encoded event. The strings of ev are substrings
// of s.
func decodeEvent(s string, ev *core.Event) error {
	r := &reader{s: s}
	readEvent(r, ev)
	return r.done()
}

// DecodeEvent decodes the event at the start of s, encoded as the store
// encodes an event (msgpack under the struct tags of core, in the forms
// the reflection encoder writes with compact integers; see codec.go),
// into ev, and returns the bytes after it. The strings of ev are
// substrings of s. Package natsjournal reads its message bodies, arrays
// of events in this encoding, with it.
//
// It never panics and suits bytes from anywhere: it refuses a length the
// bytes left cannot hold before allocating for it, skips unknown values
// without recursing, and its types nest a fixed depth, so what it
// allocates stays in proportion to len(s).
func DecodeEvent(s string, ev *core.Event) (rest string, err error) {
	r := &reader{s: s}
	readEvent(r, ev)
	if r.err != nil {
		return "", r.err
	}
	return s[r.p:], nil
}

// readEvent reads one event from r into ev.
func readEvent(r *reader, ev *core.Event) {
	*ev = core.Event{}
	n, ok := r.mapLen()
	if !ok {
		if r.err == nil {
			r.err = errNilEvent
		}
		return
	}
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "q":
			ev.Seq = r.uint()
		case "i":
			ev.ID = r.str()
		case "t":
			ev.Type = core.EventType(r.str())
		case "th":
			ev.Thread = r.str()
		case "ru":
			ev.Run = r.str()
		case "at":
			ev.Attempt = r.str()
		case "no":
			ev.Node = r.str()
		case "co":
			ev.Correlation = r.str()
		case "ca":
			ev.Causation = r.str()
		case "a":
			ev.At = r.int()
		case "p":
			decPayload(r, &ev.Payload)
		default:
			r.skip()
		}
	}
}

// decUsage decodes the usage fields threads and runs share (tin, tou, co,
// nc); false for any other key.
func decUsage(r *reader, key string, in, out *int, cost *float64, noCost *bool) bool {
	switch key {
	case "tin":
		*in = int(r.int())
	case "tou":
		*out = int(r.int())
	case "co":
		*cost = r.float()
	case "nc":
		*noCost = r.bool()
	default:
		return false
	}
	return true
}
