package store

import "github.com/nexus-tui/nexus/core"

// Decoders for the artifacts and records of core/model.go (plans,
// sessions, provider threads, handoffs, transfers, checkpoints, effects,
// rejections, receipts); see codec_decode.go for the conventions.

func decPlan(r *reader) *core.Plan {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Plan)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "ru":
			v.Run = r.str()
		case "k":
			v.Kind = core.PlanKind(r.str())
		case "it":
			v.Items = decPlanItems(r)
		default:
			r.skip()
		}
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
		m, _ := r.mapLen()
		for ; m > 0 && r.err == nil; m-- {
			switch r.str() {
			case "t":
				it.Text = r.str()
			case "s":
				it.Status = core.PlanItemStatus(r.str())
			case "dp":
				it.Depth = int(r.int())
			default:
				r.skip()
			}
		}
	}
	return items
}

func decSession(r *reader) *core.Session {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Session)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "pr":
			v.Provider = r.str()
		case "s":
			v.State = core.SessionState(r.str())
		case "re":
			v.Reason = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decProviderThread(r *reader) *core.ProviderThread {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.ProviderThread)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
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
		case "rv":
			v.RevertBefore = r.str()
		case "fk":
			v.ForkOf = r.str()
		case "fa":
			v.ForkAt = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decHandoff(r *reader) *core.Handoff {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Handoff)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "fr":
			v.From = r.str()
		case "to":
			v.To = r.str()
		case "st":
			v.Strategy = core.HandoffStrategy(r.str())
		case "tx":
			v.Text = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decTransfer(r *reader) *core.Transfer {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Transfer)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "k":
			v.Kind = core.TransferKind(r.str())
		case "fr":
			v.From = r.str()
		case "to":
			v.To = r.str()
		case "ru":
			v.Run = int(r.int())
		case "s":
			v.Status = core.TransferStatus(r.str())
		case "tx":
			v.Text = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decCheckpoint(r *reader) *core.Checkpoint {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Checkpoint)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "th":
			v.Thread = r.str()
		case "ru":
			v.Run = int(r.int())
		case "sc":
			v.Scope = r.str()
		case "s":
			v.Status = core.CheckpointStatus(r.str())
		case "rf":
			v.Ref = r.str()
		case "re":
			v.Reason = r.str()
		case "cm":
			v.Commit = r.str()
		case "nd":
			v.Node = r.str()
		case "fs":
			v.Files = decFileChanges(r)
		case "mf":
			v.MoreFiles = int(r.int())
		case "ow":
			v.Own = r.bool()
		case "ou":
			v.Outside = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func decFileChanges(r *reader) []core.FileChange {
	n, ok := r.arrayLen()
	if !ok {
		return nil
	}
	files := make([]core.FileChange, n)
	for i := 0; i < n && r.err == nil; i++ {
		f := &files[i]
		m, _ := r.mapLen()
		for ; m > 0 && r.err == nil; m-- {
			switch r.str() {
			case "p":
				f.Path = r.str()
			case "s":
				f.Status = r.str()
			case "a":
				f.Added = int(r.int())
			case "d":
				f.Deleted = int(r.int())
			case "b":
				f.Binary = r.bool()
			case "by":
				f.By = r.str()
			default:
				r.skip()
			}
		}
	}
	return files
}

func decOpChanges(r *reader) []core.OpChange {
	n, ok := r.arrayLen()
	if !ok {
		return nil
	}
	out := make([]core.OpChange, n)
	for i := 0; i < n && r.err == nil; i++ {
		c := &out[i]
		m, _ := r.mapLen()
		for ; m > 0 && r.err == nil; m-- {
			switch r.str() {
			case "id":
				c.ID = r.str()
			case "f":
				c.From = r.str()
			case "t":
				c.To = r.str()
			default:
				r.skip()
			}
		}
	}
	return out
}

func decOperation(r *reader) *core.Operation {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Operation)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "id":
			v.ID = r.str()
		case "k":
			v.Kind = core.OpKind(r.str())
		case "th":
			v.Thread = r.str()
		case "tr":
			v.ToRun = int(r.int())
		case "st":
			v.Step = core.OpStep(r.str())
		case "s":
			v.Status = core.OpStatus(r.str())
		case "d":
			v.Detail = r.str()
		case "cm":
			v.Commit = r.str()
		case "tg":
			v.Target = r.str()
		case "dy":
			v.Dirty = r.bool()
		case "mk":
			v.Marks = int(r.int())
		case "sf":
			v.Safety = r.str()
		case "un":
			v.Undoes = r.str()
		case "ch":
			v.Changes = decOpChanges(r)
		case "pv":
			v.Provider = decProviderThread(r)
		case "rn":
			v.Runs = int(r.int())
		case "fr":
			v.From = r.str()
		case "on":
			v.Only = r.strs()
		case "al":
			v.AllPaths = r.bool()
		case "fo":
			v.Force = r.bool()
		case "kp":
			v.Kept = r.strs()
		case "cd":
			v.Changed = r.strs()
		case "ca":
			v.ChangedAll = r.bool()
		default:
			r.skip()
		}
	}
	return v
}

func decEffect(r *reader) *core.EffectRecord {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.EffectRecord)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "k":
			v.Key = r.str()
		case "ki":
			v.Kind = core.EffectKind(r.str())
		case "c":
			v.Class = core.EffectClass(r.str())
		case "ru":
			v.Run = r.str()
		case "s":
			v.Status = core.EffectStatus(r.str())
		case "rs":
			v.Result = r.str()
		case "no":
			v.Node = r.str()
		case "tg":
			v.Target = r.str()
		case "h":
			v.Hash = r.str()
		case "ph":
			v.PreHash = r.str()
		case "ex":
			v.Exit = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func decRejection(r *reader) *core.Rejection {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Rejection)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "c":
			v.Command = r.str()
		case "r":
			v.Reason = core.RejectReason(r.str())
		case "d":
			v.Detail = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func decReceipt(r *reader) *core.Receipt {
	n, ok := r.mapLen()
	if !ok {
		return nil
	}
	v := new(core.Receipt)
	for ; n > 0 && r.err == nil; n-- {
		switch r.str() {
		case "c":
			v.Command = r.str()
		case "k":
			v.Kind = core.CommandKind(r.str())
		case "th":
			v.Thread = r.str()
		case "ru":
			v.Run = r.str()
		case "o":
			v.Ordinal = int(r.int())
		case "rq":
			v.Request = r.str()
		case "op":
			v.Op = r.str()
		case "ck":
			v.Checkpoint = r.str()
		case "ag":
			v.Agent = r.str()
		case "mi":
			v.Mission = r.str()
		case "m":
			v.Mode = core.SendMode(r.str())
		case "q":
			v.Seq = r.uint()
		case "rj":
			v.Reject = decRejection(r)
		default:
			r.skip()
		}
	}
	return v
}
