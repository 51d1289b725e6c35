package store

import (
	"errors"

	"github.com/nexus-tui/nexus/core"
)

// Decoders for the entities of core/model.go, the mirror of
// codec_entity.go. Like the reflection decoder they skip keys they do not
// know (a newer binary may have added fields), read nil as the zero value,
// and keep the difference between a nil and an empty slice.

// fields reads a msgpack map and calls set with each key; set must consume
// the value. It returns false for nil (and on error).
func (r *reader) fields(set func(key string)) bool {
	n, ok := r.mapLen()
	if !ok {
		return false
	}
	for ; n > 0 && r.err == nil; n-- {
		set(r.str())
	}
	return r.err == nil
}

func decCaps(r *reader, c *core.Capabilities) {
	*c = core.Capabilities{}
	r.fields(func(k string) {
		switch k {
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
	})
}

func decThread(r *reader) *core.Thread {
	v := new(core.Thread)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "ti":
			v.Title = r.str()
		case "pr":
			v.Provider = r.str()
		case "ca":
			decCaps(r, &v.Caps)
		case "ws":
			v.Workspace = r.str()
		case "s":
			v.Status = r.str()
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
		case "ar":
			v.Archived = r.bool()
		case "ct":
			v.CreatedAt = r.int()
		case "ut":
			v.UpdatedAt = r.int()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decRun(r *reader) *core.Run {
	v := new(core.Run)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "o":
			v.Ordinal = int(r.int())
		case "s":
			v.Status = r.str()
		case "tx":
			v.Text = r.str()
		case "sr":
			v.Steers = r.strs()
		case "hd":
			v.Held = r.bool()
		case "an":
			v.Attempts = int(r.int())
		case "rc":
			v.Recoverable = r.bool()
		case "ir":
			v.InterruptRequested = r.bool()
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
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decAttempt(r *reader) *core.Attempt {
	v := new(core.Attempt)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "ru":
			v.Run = r.str()
		case "th":
			v.Thread = r.str()
		case "n":
			v.N = int(r.int())
		case "r":
			v.Reason = r.str()
		case "s":
			v.Status = r.str()
		case "se":
			v.Session = r.str()
		case "sa":
			v.StartedAt = r.int()
		case "ea":
			v.EndedAt = r.int()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decNode(r *reader) *core.Node {
	v := new(core.Node)
	if !r.fields(func(k string) {
		switch k {
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
			v.Kind = r.str()
		case "s":
			v.Status = r.str()
		case "ti":
			v.Title = r.str()
		case "tx":
			v.Text = r.str()
		case "ky":
			v.Key = r.str()
		case "sa":
			v.StartedAt = r.int()
		case "ea":
			v.EndedAt = r.int()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decRequest(r *reader) *core.Request {
	v := new(core.Request)
	if !r.fields(func(k string) {
		switch k {
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
			v.Kind = r.str()
		case "s":
			v.Status = r.str()
		case "p":
			v.Prompt = r.str()
		case "ky":
			v.Key = r.str()
		case "rs":
			v.Response = r.str()
		case "an":
			v.Answer = r.str()
		case "re":
			v.Reason = r.str()
		case "ct":
			v.CreatedAt = r.int()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decPlan(r *reader) *core.Plan {
	v := new(core.Plan)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "ru":
			v.Run = r.str()
		case "k":
			v.Kind = r.str()
		case "it":
			v.Items = decPlanItems(r)
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decPlanItems(r *reader) []core.PlanItem {
	n, ok := r.arrayLen()
	if !ok {
		return nil
	}
	items := make([]core.PlanItem, n)
	for i := 0; i < n && r.err == nil; i++ {
		it := &items[i]
		r.fields(func(k string) {
			switch k {
			case "t":
				it.Text = r.str()
			case "s":
				it.Status = r.str()
			default:
				r.skip()
			}
		})
	}
	return items
}

func decSession(r *reader) *core.Session {
	v := new(core.Session)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "pr":
			v.Provider = r.str()
		case "s":
			v.State = r.str()
		case "re":
			v.Reason = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decProviderThread(r *reader) *core.ProviderThread {
	v := new(core.ProviderThread)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "pr":
			v.Provider = r.str()
		case "nr":
			v.NativeRef = r.str()
		case "av":
			v.Available = r.bool()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decHandoff(r *reader) *core.Handoff {
	v := new(core.Handoff)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "fr":
			v.From = r.str()
		case "to":
			v.To = r.str()
		case "st":
			v.Strategy = r.str()
		case "tx":
			v.Text = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decTransfer(r *reader) *core.Transfer {
	v := new(core.Transfer)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "k":
			v.Kind = r.str()
		case "fr":
			v.From = r.str()
		case "to":
			v.To = r.str()
		case "ru":
			v.Run = int(r.int())
		case "s":
			v.Status = r.str()
		case "tx":
			v.Text = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decCheckpoint(r *reader) *core.Checkpoint {
	v := new(core.Checkpoint)
	if !r.fields(func(k string) {
		switch k {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "ru":
			v.Run = int(r.int())
		case "sc":
			v.Scope = r.str()
		case "s":
			v.Status = r.str()
		case "rf":
			v.Ref = r.str()
		case "re":
			v.Reason = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decEffect(r *reader) *core.EffectRecord {
	v := new(core.EffectRecord)
	if !r.fields(func(k string) {
		switch k {
		case "k":
			v.Key = r.str()
		case "ki":
			v.Kind = r.str()
		case "c":
			v.Class = r.str()
		case "ru":
			v.Run = r.str()
		case "s":
			v.Status = r.str()
		case "rs":
			v.Result = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decRejection(r *reader) *core.Rejection {
	v := new(core.Rejection)
	if !r.fields(func(k string) {
		switch k {
		case "c":
			v.Command = r.str()
		case "r":
			v.Reason = r.str()
		case "d":
			v.Detail = r.str()
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decReceipt(r *reader) *core.Receipt {
	v := new(core.Receipt)
	if !r.fields(func(k string) {
		switch k {
		case "c":
			v.Command = r.str()
		case "k":
			v.Kind = r.str()
		case "th":
			v.Thread = r.str()
		case "ru":
			v.Run = r.str()
		case "o":
			v.Ordinal = int(r.int())
		case "rq":
			v.Request = r.str()
		case "m":
			v.Mode = r.str()
		case "q":
			v.Seq = r.uint()
		case "rj":
			v.Reject = decRejection(r)
		default:
			r.skip()
		}
	}) {
		return nil
	}
	return v
}

func decPayload(r *reader, p *core.Payload) {
	*p = core.Payload{}
	r.fields(func(k string) {
		switch k {
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
		case "ef":
			p.Effect = decEffect(r)
		case "rj":
			p.Rejection = decRejection(r)
		case "rc":
			p.Receipt = decReceipt(r)
		case "tx":
			p.Text = r.str()
		case "nt":
			p.Note = r.str()
		default:
			r.skip()
		}
	})
}

var errNilEvent = errors.New("event is nil")

// decodeEvent decodes one encoded event. Strings in ev share one copy of
// b, so b may be reused (or unmapped) afterwards.
func decodeEvent(b []byte, ev *core.Event) error {
	r := &reader{s: string(b)}
	*ev = core.Event{}
	if !r.fields(func(k string) {
		switch k {
		case "q":
			ev.Seq = r.uint()
		case "i":
			ev.ID = r.str()
		case "t":
			ev.Type = r.str()
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
	}) && r.err == nil {
		return errNilEvent
	}
	return r.done()
}
