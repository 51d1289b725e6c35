package journalgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// Gen produces plausible journals: threads whose runs go through the
// shapes core's decider emits (receipt, queued, running, attempt, session,
// root node, streamed text, tool calls with two-phase effects, plans,
// approvals, checkpoints, completion), interleaved across threads, with
// entities upserted by id as the projection expects.
type Gen struct {
	rnd     *rand.Rand
	seq     uint64
	now     int64
	threads []*gthread
	// Wide journals (NewWide): up to max threads, a new one about every
	// newEvery commits; only the newest window threads take new runs and
	// a thread leaving the window finishes its run first (draining).
	max, newEvery int
	draining      []*gthread
}

// window is how many threads of a wide journal are active at once.
const window = 12

type gthread struct {
	t       *core.Thread
	pending [][]core.Event // commits of the current run, seqs not yet assigned
}

// New returns a generator of a journal with up to 12 threads, all
// interleaved.
func New(seed uint64) *Gen {
	return &Gen{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: 1_760_000_000_000_000_000}
}

var words = strings.Fields(`the test suite passes after the change to the parser; I read README.md
and main.go, then ran go test ./... which reported two failures in store/journal_test.go
because the fixture path was relative. Next I will update the helper, rerun the tests,
and summarize what changed in notes.txt for the reviewer before asking for approval`)

func (g *Gen) text(min, max int) string {
	n := min + g.rnd.IntN(max-min+1)
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.rnd.IntN(len(words))])
	}
	return b.String()[:n]
}

func (g *Gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rnd.IntN(16)]
	}
	return string(b)
}

func (g *Gen) tick() int64 {
	g.now += int64(1+g.rnd.IntN(900)) * 1_000_000
	return g.now
}

// From makes the next commit's first seq last+1, to continue a journal.
func (g *Gen) From(last uint64) *Gen {
	g.seq = last
	return g
}

// NewWide returns a generator of a journal with up to threads threads,
// like a long-lived state dir: a new thread about every newEvery commits,
// 12 of them active at a time, the older ones idle with finished runs.
func NewWide(seed uint64, threads, newEvery int) *Gen {
	g := New(seed)
	g.max, g.newEvery = threads, max(1, newEvery)
	return g
}

// Next returns the next commit, seqs assigned.
func (g *Gen) Next() core.Commit {
	var th *gthread
	switch {
	case g.max > 0:
		th = g.wideThread()
	case len(g.threads) < 2 || (len(g.threads) < 12 && g.rnd.IntN(40) == 0):
		th = g.newThread()
	default:
		th = g.threads[g.rnd.IntN(len(g.threads))]
	}
	if len(th.pending) == 0 {
		th.pending = g.run(th)
	}
	evs := th.pending[0]
	th.pending = th.pending[1:]
	for i := range evs {
		g.seq++
		evs[i].Seq = g.seq
		evs[i].ID = "ev" + g.hex(14)
		evs[i].At = g.tick()
	}
	return core.Commit{Command: evs[0].Causation, Events: evs}
}

// wideThread picks the thread of the next commit of a wide journal.
func (g *Gen) wideThread() *gthread {
	for len(g.draining) > 0 {
		if th := g.draining[0]; len(th.pending) > 0 {
			return th
		}
		g.draining = g.draining[1:]
	}
	if len(g.threads) < 2 || (len(g.threads) < g.max && g.rnd.IntN(g.newEvery) == 0) {
		th := g.newThread()
		if n := len(g.threads); n > window {
			if old := g.threads[n-window-1]; len(old.pending) > 0 {
				g.draining = append(g.draining, old)
			}
		}
		return th
	}
	active := g.threads[max(0, len(g.threads)-window):]
	return active[g.rnd.IntN(len(active))]
}

// Commits returns commits holding exactly the next n events.
func (g *Gen) Commits(n int) []core.Commit {
	var out []core.Commit
	for total := 0; total < n; {
		c := g.Next()
		if total+len(c.Events) > n {
			// Cut the last commit so the count is exact; its events stay valid.
			c.Events = c.Events[:n-total]
			g.seq = c.Events[len(c.Events)-1].Seq
		}
		total += len(c.Events)
		out = append(out, c)
	}
	return out
}

// Flatten returns the events of commits in order.
func Flatten(cs []core.Commit) []core.Event {
	var out []core.Event
	for _, c := range cs {
		out = append(out, c.Events...)
	}
	return out
}

func (g *Gen) newThread() *gthread {
	id := "t" + g.hex(6)
	t := &core.Thread{ID: id, Title: g.text(8, 40), Provider: "builtin", Status: core.ThreadIdle,
		Caps:      core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Approvals: true, Plans: true},
		Workspace: "/home/dev/src/" + g.hex(8), CreatedAt: g.now, UpdatedAt: g.now}
	th := &gthread{t: t}
	cmd := "c-" + g.hex(12)
	th.pending = [][]core.Event{{
		{Type: core.EvCommandAccepted, Thread: id, Causation: cmd,
			Payload: core.Payload{Receipt: &core.Receipt{Command: cmd, Kind: core.CmdThreadCreate, Thread: id}}},
		{Type: core.EvThreadUpdated, Thread: id, Causation: cmd, Payload: core.Payload{Thread: t}},
	}}
	g.threads = append(g.threads, th)
	return th
}

// run returns the commits of one run of th.
func (g *Gen) run(th *gthread) [][]core.Event {
	t := *th.t
	t.Runs++
	t.Status = core.ThreadRunning
	th.t = &t
	runID := core.RunID(t.ID, t.Runs)
	attID := core.AttemptID(runID, 1)
	cmd := "c-" + g.hex(12)
	env := func(typ core.EventType, node string, p core.Payload) core.Event {
		return core.Event{Type: typ, Thread: t.ID, Run: runID, Attempt: attID, Node: node,
			Correlation: runID, Causation: cmd, Payload: p}
	}
	run := &core.Run{ID: runID, Thread: t.ID, Ordinal: t.Runs, Status: core.RunQueued, Text: g.text(20, 160), CreatedAt: g.now}
	running := *run
	running.Status, running.Attempts, running.StartedAt = core.RunRunning, 1, g.now+1
	att := &core.Attempt{ID: attID, Run: runID, Thread: t.ID, N: 1, Reason: core.ReasonInitial,
		Status: core.AttemptRunning, Session: core.SessionID(t.ID), StartedAt: g.now}
	root := &core.Node{ID: core.NodeID(attID, 1), Attempt: attID, Run: runID, Thread: t.ID,
		Kind: core.NodeRootTurn, Status: core.NodeRunning, StartedAt: g.now}
	turnEff := &core.EffectRecord{Key: attID + ":turn", Kind: core.EffStartTurn, Class: core.ClassIrreversible, Run: runID, Status: core.EffStarted}
	out := [][]core.Event{
		{env(core.EvCommandAccepted, "", core.Payload{Receipt: &core.Receipt{Command: cmd, Kind: core.CmdMessageSend,
			Thread: t.ID, Run: runID, Ordinal: t.Runs, Mode: core.ModeImmediate, Seq: g.seq + 1}}),
			env(core.EvRunUpdated, "", core.Payload{Run: run})},
		{env(core.EvRunUpdated, "", core.Payload{Run: &running}), env(core.EvAttemptUpdated, "", core.Payload{Attempt: att}),
			env(core.EvThreadUpdated, "", core.Payload{Thread: &t}),
			env(core.EvSessionUpdated, "", core.Payload{Session: &core.Session{ID: core.SessionID(t.ID), Thread: t.ID, Provider: "builtin", State: core.SessRunning}}),
			env(core.EvEffectStarted, "", core.Payload{Effect: turnEff})},
		{env(core.EvNodeUpdated, root.ID, core.Payload{Node: root})},
	}
	nodes := 1
	for step, steps := 0, 1+g.rnd.IntN(4); step < steps; step++ {
		nodes++
		msg := &core.Node{ID: core.NodeID(attID, nodes), Attempt: attID, Run: runID, Thread: t.ID, Parent: root.ID,
			Kind: core.NodeAssistantMessage, Status: core.NodeRunning, Key: "item_" + g.hex(10), StartedAt: g.now}
		out = append(out, []core.Event{env(core.EvNodeUpdated, msg.ID, core.Payload{Node: msg})})
		var acc strings.Builder
		for i, n := 0, 1+g.rnd.IntN(3); i < n; i++ {
			delta := g.text(60, 200)
			acc.WriteString(delta)
			out = append(out, []core.Event{env(core.EvNodeText, msg.ID, core.Payload{Text: delta})})
		}
		// Like core's closeNode, the completion carries the whole node,
		// its streamed text included.
		done := *msg
		done.Status, done.EndedAt, done.Text = core.NodeCompleted, g.now+5, acc.String()
		out = append(out, []core.Event{env(core.EvNodeUpdated, msg.ID, core.Payload{Node: &done})})

		nodes++
		tool := &core.Node{ID: core.NodeID(attID, nodes), Attempt: attID, Run: runID, Thread: t.ID, Parent: root.ID,
			Kind: core.NodeToolCall, Status: core.NodeRunning, Title: "run_command go test ./" + g.hex(4), Key: "call_" + g.hex(12), StartedAt: g.now}
		eff := &core.EffectRecord{Key: tool.ID + "/exec", Kind: core.EffWorkerStep, Class: core.ClassIdempotent, Run: runID, Status: core.EffStarted}
		effDone := *eff
		effDone.Status, effDone.Result = core.EffCompleted, g.text(20, 120)
		toolDone := *tool
		toolDone.Status, toolDone.EndedAt = core.NodeCompleted, g.now+9
		out = append(out,
			[]core.Event{env(core.EvNodeUpdated, tool.ID, core.Payload{Node: tool}), env(core.EvEffectStarted, tool.ID, core.Payload{Effect: eff})},
			[]core.Event{env(core.EvEffectCompleted, tool.ID, core.Payload{Effect: &effDone}), env(core.EvNodeUpdated, tool.ID, core.Payload{Node: &toolDone})})
		if g.rnd.IntN(3) == 0 {
			plan := &core.Plan{ID: core.PlanID(runID), Run: runID, Kind: core.PlanTodoList}
			for i, n := 0, 2+g.rnd.IntN(4); i < n; i++ {
				plan.Items = append(plan.Items, core.PlanItem{Text: g.text(10, 50), Status: []core.PlanItemStatus{core.ItemPending, core.ItemInProgress, core.ItemCompleted}[g.rnd.IntN(3)]})
			}
			out = append(out, []core.Event{env(core.EvPlanUpdated, "", core.Payload{Plan: plan})})
		}
		if g.rnd.IntN(8) == 0 {
			req := &core.Request{ID: fmt.Sprintf("R%d", g.seq+uint64(len(out))), Thread: t.ID, Run: runID, Attempt: attID,
				Kind: core.RequestApproval, Status: core.RequestPending, Prompt: "allow: " + g.text(20, 80), Key: "approve_" + g.hex(6), CreatedAt: g.now}
			ok := *req
			ok.Status, ok.Response = core.RequestResolved, core.RespAllow
			out = append(out,
				[]core.Event{env(core.EvRequestUpdated, "", core.Payload{Request: req})},
				[]core.Event{env(core.EvRequestUpdated, "", core.Payload{Request: &ok})})
		}
	}
	cp := &core.Checkpoint{ID: fmt.Sprintf("%s/cp/%d", t.ID, t.Runs), Thread: t.ID, Run: t.Runs, Scope: "run",
		Status: core.CkReady, Ref: "refs/nexus/checkpoints/" + t.ID + "/" + g.hex(40)}
	// The files a run changed, derived from the run number so the random
	// stream (and every journal generated before) stays as it was.
	for i := 0; i < t.Runs%4; i++ {
		cp.Files = append(cp.Files, core.FileChange{Path: fmt.Sprintf("src/f%d.go", i), Status: "AMDT"[(t.Runs+i)%4 : (t.Runs+i)%4+1],
			Added: (t.Runs * 7) % 300 * i, Deleted: t.Runs % 5, Binary: (t.Runs+i)%9 == 0})
	}
	if t.Runs%10 == 3 {
		cp.MoreFiles = t.Runs * 11
	}
	finished := running
	finished.Status, finished.Reply, finished.EndedAt = core.RunCompleted, g.text(20, 120), g.now+20
	attDone := *att
	attDone.Status, attDone.EndedAt = core.AttemptCompleted, g.now+20
	rootDone := *root
	rootDone.Status, rootDone.EndedAt = core.NodeCompleted, g.now+20
	idle := t
	idle.Status = core.ThreadIdle
	turnDone := *turnEff
	turnDone.Status, turnDone.Result = core.EffCompleted, string(core.AttemptCompleted)
	out = append(out,
		[]core.Event{env(core.EvCheckpoint, "", core.Payload{Checkpoint: cp})},
		[]core.Event{env(core.EvNodeUpdated, root.ID, core.Payload{Node: &rootDone}),
			env(core.EvAttemptUpdated, "", core.Payload{Attempt: &attDone}),
			env(core.EvEffectCompleted, "", core.Payload{Effect: &turnDone}),
			env(core.EvRunUpdated, "", core.Payload{Run: &finished}),
			env(core.EvThreadUpdated, "", core.Payload{Thread: &idle})})
	th.t = &idle
	return out
}
