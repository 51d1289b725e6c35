package store

import "github.com/nexus-tui/nexus/core"

// Encoders for the entities of core/model.go. Each writes the fields in
// struct order under their msgpack tag names, skipping the omitempty ones
// that are empty, exactly like the reflection encoder. A field added to a
// core struct must be added here and in codec_decode.go; TestCodecCoversFields
// fails until it is.

func encCaps(e *enc, c *core.Capabilities) {
	o := e.obj()
	o.boolOmit("st", c.Steer)
	o.boolOmit("in", c.Interrupt)
	o.boolOmit("re", c.Resume)
	o.boolOmit("fo", c.Fork)
	o.boolOmit("rb", c.Rollback)
	o.boolOmit("ap", c.Approvals)
	o.boolOmit("ui", c.UserInput)
	o.boolOmit("pl", c.Plans)
	o.boolOmit("sa", c.Subagents)
	o.boolOmit("pt", c.PTY)
	o.boolOmit("dr", c.DurableRequests)
	o.end()
}

func encThread(e *enc, t *core.Thread) {
	if t == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", t.ID)
	o.strOmit("ti", t.Title)
	o.boolOmit("ta", t.TitleAuto)
	o.str("pr", t.Provider)
	o.key("ca")
	encCaps(e, &t.Caps)
	o.strOmit("ws", t.Workspace)
	o.str("s", string(t.Status))
	o.strOmit("ff", t.ForkedFrom)
	o.intOmit("fr", int64(t.ForkRun))
	o.intOmit("rn", int64(t.Runs))
	o.boolOmit("qh", t.QueueHeld)
	o.floatOmit("bu", t.BudgetUSD)
	o.boolOmit("ar", t.Archived)
	o.strsOmit("al", t.Allow)
	o.strOmit("wt", t.Worktree)
	o.strOmit("rp", t.Repo)
	o.strOmit("br", t.Branch)
	o.strOmit("hf", t.Handoff)
	o.intOmit("mt", int64(t.MaxTokens))
	o.intOmit("tin", int64(t.TokensIn))
	o.intOmit("tou", int64(t.TokensOut))
	o.floatOmit("co", t.CostUSD)
	o.boolOmit("nc", t.NoCost)
	o.int("ct", t.CreatedAt)
	o.int("ut", t.UpdatedAt)
	o.strOmit("ag", t.Agent)
	o.strOmit("aa", t.AgentAlias)
	o.strOmit("mi", t.Mission)
	o.strOmit("tk", t.Task)
	o.end()
}

func encRun(e *enc, r *core.Run) {
	if r == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", r.ID)
	o.str("th", r.Thread)
	o.int("o", int64(r.Ordinal))
	o.str("s", string(r.Status))
	o.str("tx", r.Text)
	o.strsOmit("sr", r.Steers)
	if len(r.Context) > 0 {
		o.key("cx")
		e.arrayLen(len(r.Context))
		for i := range r.Context {
			encSection(e, &r.Context[i])
		}
	}
	o.strOmit("xf", r.Transfer)
	o.strOmit("hf", r.Handoff)
	o.strOmit("pv", r.Provider)
	o.boolOmit("hd", r.Held)
	o.intOmit("an", int64(r.Attempts))
	o.boolOmit("rc", r.Recoverable)
	o.boolOmit("ir", r.InterruptRequested)
	o.boolOmit("rp", r.RestartPending)
	o.strOmit("fi", string(r.Finishing))
	o.boolOmit("ab", r.AwaitBase)
	o.strOmit("rl", r.Reply)
	o.strOmit("er", r.Error)
	o.intOmit("tin", int64(r.TokensIn))
	o.intOmit("tou", int64(r.TokensOut))
	o.floatOmit("co", r.CostUSD)
	o.boolOmit("nc", r.NoCost)
	o.int("ct", r.CreatedAt)
	o.intOmit("sa", r.StartedAt)
	o.intOmit("ea", r.EndedAt)
	o.end()
}

func encAttempt(e *enc, a *core.Attempt) {
	if a == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", a.ID)
	o.str("ru", a.Run)
	o.str("th", a.Thread)
	o.int("n", int64(a.N))
	o.str("r", string(a.Reason))
	o.str("s", string(a.Status))
	o.strOmit("se", a.Session)
	o.int("sa", a.StartedAt)
	o.intOmit("ea", a.EndedAt)
	o.strOmit("nt", a.NativeTurn)
	o.end()
}

func encNode(e *enc, n *core.Node) {
	if n == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", n.ID)
	o.str("at", n.Attempt)
	o.str("ru", n.Run)
	o.str("th", n.Thread)
	o.strOmit("pa", n.Parent)
	o.str("k", string(n.Kind))
	o.str("s", string(n.Status))
	o.strOmit("ti", n.Title)
	o.strOmit("tx", n.Text)
	o.strOmit("ky", n.Key)
	o.int("sa", n.StartedAt)
	o.intOmit("ea", n.EndedAt)
	o.intOmit("tin", int64(n.TokensIn))
	o.intOmit("tou", int64(n.TokensOut))
	o.floatOmit("co", n.CostUSD)
	o.intOmit("dm", n.DurationMS)
	o.boolOmit("nc", n.NoCost)
	o.strOmit("ac", n.Action)
	o.intOmit("ex", int64(n.Exit))
	o.strOmit("h", n.Hash)
	o.strsOmit("ps", n.Paths)
	o.end()
}

func encRequest(e *enc, q *core.Request) {
	if q == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", q.ID)
	o.str("th", q.Thread)
	o.str("ru", q.Run)
	o.str("at", q.Attempt)
	o.strOmit("no", q.Node)
	o.str("k", string(q.Kind))
	o.str("s", string(q.Status))
	o.str("p", q.Prompt)
	o.strOmit("ky", q.Key)
	o.strOmit("ac", q.Action)
	o.strOmit("rs", string(q.Response))
	o.strOmit("an", q.Answer)
	o.strOmit("re", q.Reason)
	o.int("ct", q.CreatedAt)
	o.end()
}

func encPlan(e *enc, p *core.Plan) {
	if p == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", p.ID)
	o.str("ru", p.Run)
	o.str("k", string(p.Kind))
	o.key("it")
	if p.Items == nil {
		e.nil()
	} else {
		e.arrayLen(len(p.Items))
		for i := range p.Items {
			it := e.obj()
			it.str("t", p.Items[i].Text)
			it.str("s", string(p.Items[i].Status))
			it.intOmit("dp", int64(p.Items[i].Depth))
			it.end()
		}
	}
	o.end()
}

func encSession(e *enc, s *core.Session) {
	if s == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", s.ID)
	o.str("th", s.Thread)
	o.str("pr", s.Provider)
	o.str("s", string(s.State))
	o.strOmit("re", s.Reason)
	o.end()
}

func encProviderThread(e *enc, p *core.ProviderThread) {
	if p == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", p.ID)
	o.str("th", p.Thread)
	o.str("pr", p.Provider)
	o.strOmit("nr", p.NativeRef)
	o.bool("av", p.Available)
	o.strOmit("rv", p.RevertBefore)
	o.strOmit("fk", p.ForkOf)
	o.strOmit("fa", p.ForkAt)
	o.end()
}

func encHandoff(e *enc, h *core.Handoff) {
	if h == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", h.ID)
	o.str("th", h.Thread)
	o.str("fr", h.From)
	o.str("to", h.To)
	o.str("st", string(h.Strategy))
	o.str("tx", h.Text)
	o.end()
}

func encTransfer(e *enc, t *core.Transfer) {
	if t == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", t.ID)
	o.str("k", string(t.Kind))
	o.str("fr", t.From)
	o.str("to", t.To)
	o.intOmit("ru", int64(t.Run))
	o.str("s", string(t.Status))
	o.strOmit("tx", t.Text)
	o.end()
}

func encCheckpoint(e *enc, c *core.Checkpoint) {
	if c == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", c.ID)
	o.str("th", c.Thread)
	o.int("ru", int64(c.Run))
	o.str("sc", c.Scope)
	o.str("s", string(c.Status))
	o.strOmit("rf", c.Ref)
	o.strOmit("re", c.Reason)
	o.strOmit("cm", c.Commit)
	o.strOmit("nd", c.Node)
	if len(c.Files) > 0 {
		o.key("fs")
		e.arrayLen(len(c.Files))
		for i := range c.Files {
			f := &c.Files[i]
			fo := e.obj()
			fo.str("p", f.Path)
			fo.str("s", f.Status)
			fo.intOmit("a", int64(f.Added))
			fo.intOmit("d", int64(f.Deleted))
			fo.boolOmit("b", f.Binary)
			fo.strOmit("by", f.By)
			fo.end()
		}
	}
	o.intOmit("mf", int64(c.MoreFiles))
	o.boolOmit("ow", c.Own)
	o.intOmit("ou", int64(c.Outside))
	o.end()
}

func encOperation(e *enc, op *core.Operation) {
	if op == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("id", op.ID)
	o.str("k", string(op.Kind))
	o.str("th", op.Thread)
	o.int("tr", int64(op.ToRun))
	o.str("st", string(op.Step))
	o.str("s", string(op.Status))
	o.strOmit("d", op.Detail)
	o.strOmit("cm", op.Commit)
	o.strOmit("tg", op.Target)
	o.boolOmit("dy", op.Dirty)
	o.intOmit("mk", int64(op.Marks))
	o.strOmit("sf", op.Safety)
	o.strOmit("un", op.Undoes)
	if len(op.Changes) > 0 {
		o.key("ch")
		e.arrayLen(len(op.Changes))
		for i := range op.Changes {
			c := e.obj()
			c.str("id", op.Changes[i].ID)
			c.str("f", op.Changes[i].From)
			c.str("t", op.Changes[i].To)
			c.end()
		}
	}
	if op.Provider != nil {
		o.key("pv")
		encProviderThread(e, op.Provider)
	}
	o.intOmit("rn", int64(op.Runs))
	o.strOmit("fr", op.From)
	o.strsOmit("on", op.Only)
	o.boolOmit("al", op.AllPaths)
	o.boolOmit("fo", op.Force)
	o.strsOmit("kp", op.Kept)
	o.strsOmit("cd", op.Changed)
	o.boolOmit("ca", op.ChangedAll)
	o.end()
}

func encEffect(e *enc, f *core.EffectRecord) {
	if f == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("k", f.Key)
	o.str("ki", string(f.Kind))
	o.str("c", string(f.Class))
	o.strOmit("ru", f.Run)
	o.str("s", string(f.Status))
	o.strOmit("rs", f.Result)
	o.strOmit("no", f.Node)
	o.strOmit("tg", f.Target)
	o.strOmit("h", f.Hash)
	o.strOmit("ph", f.PreHash)
	o.intOmit("ex", int64(f.Exit))
	o.end()
}

func encRejection(e *enc, j *core.Rejection) {
	if j == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("c", j.Command)
	o.str("r", string(j.Reason))
	o.str("d", j.Detail)
	o.end()
}

func encReceipt(e *enc, c *core.Receipt) {
	if c == nil {
		e.nil()
		return
	}
	o := e.obj()
	o.str("c", c.Command)
	o.str("k", string(c.Kind))
	o.strOmit("th", c.Thread)
	o.strOmit("ru", c.Run)
	o.intOmit("o", int64(c.Ordinal))
	o.strOmit("rq", c.Request)
	o.strOmit("m", string(c.Mode))
	o.strOmit("op", c.Op)
	o.strOmit("ck", c.Checkpoint)
	o.strOmit("ag", c.Agent)
	o.strOmit("mi", c.Mission)
	o.uint("q", c.Seq)
	if c.Reject != nil {
		o.key("rj")
		encRejection(e, c.Reject)
	}
	o.end()
}

// appendEvent appends the msgpack encoding of ev to b.
func appendEvent(b []byte, ev *core.Event) []byte {
	e := &enc{b: b}
	o := e.obj()
	o.uint("q", ev.Seq)
	o.str("i", ev.ID)
	o.str("t", string(ev.Type))
	o.strOmit("th", ev.Thread)
	o.strOmit("ru", ev.Run)
	o.strOmit("at", ev.Attempt)
	o.strOmit("no", ev.Node)
	o.strOmit("co", ev.Correlation)
	o.strOmit("ca", ev.Causation)
	o.int("a", ev.At)
	o.key("p")
	encPayload(e, &ev.Payload)
	o.end()
	return e.b
}

func encPayload(e *enc, p *core.Payload) {
	o := e.obj()
	if p.Thread != nil {
		o.key("th")
		encThread(e, p.Thread)
	}
	if p.Run != nil {
		o.key("ru")
		encRun(e, p.Run)
	}
	if p.Attempt != nil {
		o.key("at")
		encAttempt(e, p.Attempt)
	}
	if p.Node != nil {
		o.key("no")
		encNode(e, p.Node)
	}
	if p.Request != nil {
		o.key("rq")
		encRequest(e, p.Request)
	}
	if p.Plan != nil {
		o.key("pl")
		encPlan(e, p.Plan)
	}
	if p.Session != nil {
		o.key("se")
		encSession(e, p.Session)
	}
	if p.ProviderThread != nil {
		o.key("pt")
		encProviderThread(e, p.ProviderThread)
	}
	if p.Handoff != nil {
		o.key("ho")
		encHandoff(e, p.Handoff)
	}
	if p.Transfer != nil {
		o.key("tr")
		encTransfer(e, p.Transfer)
	}
	if p.Checkpoint != nil {
		o.key("cp")
		encCheckpoint(e, p.Checkpoint)
	}
	if p.Operation != nil {
		o.key("op")
		encOperation(e, p.Operation)
	}
	if p.Effect != nil {
		o.key("ef")
		encEffect(e, p.Effect)
	}
	if p.Rejection != nil {
		o.key("rj")
		encRejection(e, p.Rejection)
	}
	if p.Receipt != nil {
		o.key("rc")
		encReceipt(e, p.Receipt)
	}
	if p.Agent != nil {
		o.key("ag")
		encAgent(e, p.Agent)
	}
	if p.Mission != nil {
		o.key("mi")
		encMission(e, p.Mission)
	}
	if p.Schedule != nil {
		o.key("sd")
		encSchedule(e, p.Schedule)
	}
	o.strOmit("tx", p.Text)
	o.strOmit("nt", p.Note)
	o.boolOmit("kt", p.KeepText)
	o.floatOmit("du", p.DailyUSD)
	o.end()
}
