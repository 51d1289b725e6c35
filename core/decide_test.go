package core

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/decide/*.txt with the current output")

// TestDecideData runs the data-driven decider scenarios in
// testdata/decide: each block is a directive, "----", and the events,
// effects and a state summary it produced. Run with -rewrite to regenerate
// and review the diff.
func TestDecideData(t *testing.T) {
	files, _ := filepath.Glob("testdata/decide/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata/decide")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runDataFile(t, f) })
	}
}

type block struct {
	comment string
	cmd     string
	want    string
}

func parseBlocks(t *testing.T, data string) []block {
	var out []block
	lines := strings.Split(data, "\n")
	var comment strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			comment.WriteString(l + "\n")
			continue
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		b := block{cmd: l, comment: comment.String()}
		comment.Reset()
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("line %d: directive %q is not followed by ----", i+1, l)
		}
		i += 2
		var want []string
		for ; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		b.want = strings.Join(want, "\n")
		out = append(out, b)
	}
	return out
}

func runDataFile(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseBlocks(t, string(raw))
	h := &harness{st: NewState(), clock: 1000}
	var rewritten strings.Builder
	for _, b := range blocks {
		rewritten.WriteString(b.comment)
		got := h.do(t, b.cmd)
		if *rewrite {
			fmt.Fprintf(&rewritten, "%s\n----\n%s\n\n", b.cmd, got)
			continue
		}
		if got != b.want {
			t.Errorf("%s: %s\n--- got\n%s\n--- want\n%s", path, b.cmd, got, b.want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimRight(rewritten.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// harness applies directives to a State through Decide.
type harness struct {
	st    *State
	clock int64
	n     int
}

// splitArgs splits `verb a=b c="d e"` into words, keeping quotes whole.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case unicode.IsSpace(r) && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func kv(words []string) map[string]string {
	m := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			m[w] = "true"
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		m[k] = v
	}
	return m
}

func (h *harness) do(t *testing.T, line string) string {
	in, ok := h.input(t, line)
	if !ok {
		return summarize(h.st)
	}
	evs, effs, rec, err := Decide(h.st, in)
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "refused: %v\n", err)
	}
	if rec != nil && rec.Reject != nil {
		fmt.Fprintf(&b, "rejected: %s: %s\n", rec.Reject.Reason, rec.Reject.Detail)
	}
	for _, ev := range evs {
		fmt.Fprintf(&b, "ev %s\n", describe(&ev))
	}
	for _, e := range effs {
		fmt.Fprintf(&b, "effect %s\n", describeEffect(&e))
	}
	if len(evs) == 0 && len(effs) == 0 && err == nil {
		b.WriteString("(nothing)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// input parses a directive into the input it stands for; false for
// "state", which asks for a summary instead.
func (h *harness) input(t *testing.T, line string) (Input, bool) {
	words := splitArgs(line)
	verb, args := words[0], kv(words[1:])
	h.clock += 1000
	if at := args["at"]; at != "" {
		// A time far from the clock's: a schedule's slot, a late start.
		h.clock, _ = strconv.ParseInt(at, 10, 64)
	}
	var in Input
	switch verb {
	case "cmd":
		h.n++
		id := args["id"]
		if id == "" {
			id = fmt.Sprintf("c%d", h.n)
		}
		run, _ := strconv.Atoi(args["run"])
		c := &Command{ID: id, Kind: CommandKind(args["kind"]), At: h.clock, Thread: args["thread"], NewThread: args["new"],
			Run: run, Request: args["request"], Text: args["text"], Mode: SendMode(args["mode"]), Title: args["title"],
			Provider: args["provider"], HoldQueue: args["hold"] == "true", Response: Response(args["response"]), Answer: args["answer"],
			Workspace: args["workspace"], MergeBack: args["mergeback"], Node: args["node"], Checkpoint: args["checkpoint"]}
		c.Agent, c.NewAgent, c.Profile, c.Instructions = args["agent"], args["newagent"], args["profile"], args["instructions"]
		c.Caps = capsFrom(args["caps"])
		c.BudgetUSD, _ = strconv.ParseFloat(args["budget"], 64)
		c.MaxTokens, _ = strconv.Atoi(args["maxtokens"])
		c.Schedule = args["schedule"]
		if spec := args["spec"]; spec != "" {
			c.NewSchedule = &Schedule{ID: args["schedule"], Spec: spec, Thread: args["target"], Text: args["text"]}
		}
		in.Command = c
	case "obs":
		o := &Observation{Kind: ObsKind(args["kind"]), At: h.clock, Thread: args["thread"], Run: args["run"],
			Attempt: args["attempt"], Key: args["key"], Parent: args["parent"], NodeKind: NodeKind(args["nodekind"]),
			RequestKind: RequestKind(args["reqkind"]), Title: args["title"], Text: args["text"],
			Prompt: args["prompt"], Error: args["error"], Final: args["final"] == "true",
			Action: args["action"], Class: EffectClass(args["class"]), Hash: args["hash"], PreHash: args["prehash"],
			Dirty: args["dirty"] == "true", Model: args["model"], Ref: args["ref"], Commit: args["commit"]}
		if !setStatus(o, args["status"]) {
			t.Fatalf("%s: a %s observation has no status", line, o.Kind)
		}
		o.Exit, _ = strconv.Atoi(args["exit"])
		o.TokensIn, _ = strconv.Atoi(args["in"])
		o.TokensOut, _ = strconv.Atoi(args["out"])
		o.CostUSD, _ = strconv.ParseFloat(args["cost"], 64)
		o.NoCost = args["nocost"] == "true"
		o.Files = filesFrom(args["files"])
		o.MoreFiles, _ = strconv.Atoi(args["more"])
		if items := args["items"]; items != "" {
			for _, it := range strings.Split(items, ",") {
				text, status, _ := strings.Cut(it, ":")
				o.Items = append(o.Items, PlanItem{Text: text, Status: PlanItemStatus(status)})
			}
		}
		in.Obs = o
	case "timer":
		in.Timer = &TimerFired{Key: args["key"], At: h.clock}
	case "recover":
		in.Recover = &Recover{At: h.clock}
	case "shutdown":
		in.Shutdown = &Recover{At: h.clock}
	case "state":
		return Input{}, false
	default:
		t.Fatalf("unknown verb %q", verb)
	}
	return in, true
}

// setStatus puts a directive's status= where the observation's kind
// keeps it; false if the kind has none.
func setStatus(o *Observation, status string) bool {
	if status == "" {
		return true
	}
	switch o.Kind {
	case ObsNode:
		o.NodeStatus = NodeStatus(status)
	case ObsTurnEnded:
		o.TurnStatus = AttemptStatus(status)
	case ObsSessionState:
		o.SessionState = SessionState(status)
	case ObsEffectDone, ObsStepDone, ObsRestored:
		o.EffectStatus = EffectStatus(status)
	case ObsCheckpoint:
		o.CheckpointStatus = CheckpointStatus(status)
	default:
		return false
	}
	return true
}

// filesFrom parses "path:STATUS:added:deleted[:bin],..." into a
// checkpoint observation's files.
func filesFrom(s string) []FileChange {
	var out []FileChange
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			continue
		}
		p := strings.Split(f, ":")
		fc := FileChange{Path: p[0], Status: p[1]}
		fc.Added, _ = strconv.Atoi(p[2])
		fc.Deleted, _ = strconv.Atoi(p[3])
		fc.Binary = len(p) > 4 && p[4] == "bin"
		out = append(out, fc)
	}
	return out
}

func capsFrom(s string) Capabilities {
	var c Capabilities
	for _, f := range strings.Split(s, ",") {
		switch f {
		case "steer":
			c.Steer = true
		case "interrupt":
			c.Interrupt = true
		case "durable":
			c.DurableRequests = true
		case "rollback":
			c.Rollback = true
		case "fork":
			c.Fork = true
		case "all":
			c = Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Approvals: true,
				UserInput: true, Plans: true, Subagents: true, DurableRequests: true}
		}
	}
	return c
}

func describe(ev *Event) string {
	p := &ev.Payload
	s := string(ev.Type)
	switch {
	case p.Schedule != nil:
		sc := p.Schedule
		s += fmt.Sprintf(" %s next=%d fires=%d missed=%d skipped=%d", sc.ID, sc.NextAt, sc.Fires, sc.Missed, sc.Skipped)
		for _, f := range []struct{ name, v string }{{"run", sc.LastRun}, {"mission", sc.LastMission}, {"error", sc.Error}, {"note", p.Note}} {
			if f.v != "" {
				s += fmt.Sprintf(" %s=%q", f.name, f.v)
			}
		}
		if sc.Removed {
			s += " removed"
		}
	case p.Thread != nil:
		s += fmt.Sprintf(" %s status=%s runs=%d", p.Thread.ID, p.Thread.Status, p.Thread.Runs)
		if p.Thread.QueueHeld {
			s += " queue-held"
		}
		if len(p.Thread.Allow) > 0 {
			s += fmt.Sprintf(" allow=%v", p.Thread.Allow)
		}
		if p.Thread.TokensIn+p.Thread.TokensOut > 0 {
			s += fmt.Sprintf(" tokens=%d/%d", p.Thread.TokensIn, p.Thread.TokensOut)
		}
		if p.Thread.CostUSD > 0 || p.Thread.NoCost {
			s += fmt.Sprintf(" cost=%s", costOf(p.Thread.CostUSD, p.Thread.NoCost))
		}
		if p.Thread.BudgetUSD > 0 || p.Thread.MaxTokens > 0 {
			s += fmt.Sprintf(" budget=%g/%d", p.Thread.BudgetUSD, p.Thread.MaxTokens)
		}
		if p.Thread.Agent != "" {
			s += fmt.Sprintf(" agent=%s@%s", p.Thread.AgentAlias, p.Thread.Agent)
		}
	case p.Agent != nil:
		a := p.Agent
		s += fmt.Sprintf(" %s alias=%s profile=%s instructions=%q", a.ID, a.Alias, a.Profile, a.Instructions)
		if a.Removed {
			s += " removed"
		}
	case ev.Type == EvDailyBudget:
		s += fmt.Sprintf(" $%g", p.DailyUSD)
	case p.Run != nil:
		r := p.Run
		s += fmt.Sprintf(" %s %s attempts=%d", r.ID, r.Status, r.Attempts)
		if len(r.Steers) > 0 {
			s += fmt.Sprintf(" steers=%q", r.Steers)
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{r.Held, "held"}, {r.Recoverable, "recoverable"}, {r.RestartPending, "restart-pending"}, {r.InterruptRequested, "interrupt-requested"}} {
			if f.on {
				s += " " + f.name
			}
		}
		if r.Reply != "" {
			s += fmt.Sprintf(" reply=%q", r.Reply)
		}
		if r.Finishing != "" {
			s += " finishing=" + string(r.Finishing)
		}
		if r.AwaitBase {
			s += " await-base"
		}
		if r.Error != "" {
			s += fmt.Sprintf(" error=%q", r.Error)
		}
		if r.TokensIn+r.TokensOut > 0 || r.CostUSD > 0 {
			s += fmt.Sprintf(" usage=%d/%d/%s", r.TokensIn, r.TokensOut, costOf(r.CostUSD, r.NoCost))
		}
	case p.Attempt != nil:
		s += fmt.Sprintf(" %s %s reason=%s", p.Attempt.ID, p.Attempt.Status, p.Attempt.Reason)
		if p.Attempt.NativeTurn != "" {
			s += " native-turn=" + p.Attempt.NativeTurn
		}
	case p.ProviderThread != nil && (p.ProviderThread.RevertBefore != "" || p.ProviderThread.ForkOf != "" || !p.ProviderThread.Available):
		pt := p.ProviderThread
		s += fmt.Sprintf(" %s ref=%s available=%v", pt.ID, pt.NativeRef, pt.Available)
		if pt.RevertBefore != "" {
			s += " revert-before=" + pt.RevertBefore
		}
		if pt.ForkOf != "" {
			s += " fork-of=" + pt.ForkOf + "@" + pt.ForkAt
		}
	case p.Node != nil:
		s += fmt.Sprintf(" %s %s %s parent=%s", p.Node.ID, p.Node.Kind, p.Node.Status, p.Node.Parent)
	case p.Request != nil:
		q := p.Request
		s += fmt.Sprintf(" %s %s %s", q.ID, q.Kind, q.Status)
		if q.Response != "" {
			s += " response=" + string(q.Response)
		}
		if q.Answer != "" {
			s += fmt.Sprintf(" answer=%q", q.Answer)
		}
	case p.Plan != nil:
		s += " " + p.Plan.ID
		for _, it := range p.Plan.Items {
			s += fmt.Sprintf(" %s:%s", it.Text, it.Status)
		}
	case p.Session != nil:
		s += fmt.Sprintf(" %s %s", p.Session.ID, p.Session.State)
	case p.Effect != nil:
		s += fmt.Sprintf(" %s %s", p.Effect.Key, p.Effect.Status)
		if p.Effect.Kind == EffWorkerStep {
			s += fmt.Sprintf(" class=%s target=%q hash=%s exit=%d", p.Effect.Class, p.Effect.Target, p.Effect.Hash, p.Effect.Exit)
		}
	case p.Checkpoint != nil:
		s += fmt.Sprintf(" %s %s commit=%s", p.Checkpoint.ID, p.Checkpoint.Status, p.Checkpoint.Commit)
		sep := " files="
		for _, f := range p.Checkpoint.Files {
			s += sep + fmt.Sprintf("%s:%s:+%d:-%d", f.Path, f.Status, f.Added, f.Deleted)
			if f.Binary {
				s += ":bin"
			}
			sep = ","
		}
		if p.Checkpoint.Node != "" {
			s += fmt.Sprintf(" run=%d node=%s", p.Checkpoint.Run, p.Checkpoint.Node)
		} else if strings.HasPrefix(p.Checkpoint.Scope, "mark/") {
			s += fmt.Sprintf(" run=%d", p.Checkpoint.Run)
		}
		if p.Checkpoint.MoreFiles > 0 {
			s += fmt.Sprintf(" more=%d", p.Checkpoint.MoreFiles)
		}
		if p.Checkpoint.Reason != "" {
			s += fmt.Sprintf(" reason=%q", p.Checkpoint.Reason)
		}
	case p.Operation != nil:
		s += fmt.Sprintf(" %s step=%s %s", p.Operation.ID, p.Operation.Step, p.Operation.Status)
		if p.Operation.Target != "" {
			s += fmt.Sprintf(" target=%s dirty=%v", p.Operation.Target, p.Operation.Dirty)
		}
		if p.Operation.Detail != "" {
			s += fmt.Sprintf(" %q", p.Operation.Detail)
		}
	case p.Transfer != nil:
		s += fmt.Sprintf(" %s %s->%s run=%d", p.Transfer.Kind, p.Transfer.From, p.Transfer.To, p.Transfer.Run)
	case p.Handoff != nil:
		s += fmt.Sprintf(" %s %s->%s %s %q", p.Handoff.ID, p.Handoff.From, p.Handoff.To, p.Handoff.Strategy, p.Handoff.Text)
	case p.Rejection != nil:
		s += " " + string(p.Rejection.Reason)
	case p.Receipt != nil:
		s += " " + string(p.Receipt.Kind)
		if p.Receipt.Run != "" {
			s += " run=" + p.Receipt.Run
		}
		if p.Receipt.Mode != "" {
			s += " mode=" + string(p.Receipt.Mode)
		}
		if p.Receipt.Checkpoint != "" {
			s += " checkpoint=" + p.Receipt.Checkpoint
		}
		if p.Receipt.Agent != "" {
			s += " agent=" + p.Receipt.Agent
		}
	case p.Text != "":
		s += fmt.Sprintf(" %s %q", ev.Node, p.Text)
	case p.Note != "":
		s += fmt.Sprintf(" %q", p.Note)
	}
	return s
}

func describeEffect(e *Effect) string {
	s := fmt.Sprintf("%s %s", e.Kind, e.Key)
	if e.Turn != nil {
		s += fmt.Sprintf(" reason=%s instruction=%q users=%d", e.Turn.Reason, e.Turn.Instruction, e.Turn.UserMessages)
		if e.Turn.NativeRef != "" {
			s += " resume=" + e.Turn.NativeRef
		}
		if e.Turn.RevertBefore != "" {
			s += " revert-before=" + e.Turn.RevertBefore
		}
		if e.Turn.ForkOf != "" {
			s += " fork-of=" + e.Turn.ForkOf + "@" + e.Turn.ForkAt
		}
		if len(e.Turn.LLM) > 0 || len(e.Turn.Steps) > 0 {
			s += fmt.Sprintf(" journaled-llm=%d journaled-steps=%d", len(e.Turn.LLM), len(e.Turn.Steps))
		}
		if e.Turn.Agent != "" {
			s += fmt.Sprintf(" agent=%s instructions=%q", e.Turn.Agent, e.Turn.Instructions)
		}
		if len(e.Turn.Policy.Allow) > 0 {
			s += fmt.Sprintf(" allow=%v", e.Turn.Policy.Allow)
		}
		if len(e.Turn.Settled) > 0 {
			var keys []string
			for _, q := range e.Turn.Settled {
				keys = append(keys, q.Key+"="+string(q.Response))
			}
			s += " settled=" + strings.Join(keys, ",")
		}
	}
	if e.Text != "" {
		s += fmt.Sprintf(" text=%q", e.Text)
	}
	if e.Request != nil {
		s += " request=" + e.Request.ID + " response=" + string(e.Request.Response)
	}
	if e.Scope != "" || e.Commit != "" {
		s += fmt.Sprintf(" scope=%s commit=%s", e.Scope, e.Commit)
	}
	if e.Since != "" {
		s += " since=" + e.Since
	}
	return s
}

// summarize prints the state as threads, their runs with attempts, and
// requests, sorted.
func summarize(st *State) string {
	var b strings.Builder
	ids := sortedKeys(st.Threads)
	for _, id := range ids {
		th := st.Threads[id]
		fmt.Fprintf(&b, "thread %s %s provider=%s", th.ID, th.Status, th.Provider)
		if th.ForkedFrom != "" {
			fmt.Fprintf(&b, " fork-of=%s@%d", th.ForkedFrom, th.ForkRun)
		}
		if s := st.Sessions[SessionID(id)]; s != nil {
			fmt.Fprintf(&b, " session=%s", s.State)
		}
		b.WriteString("\n")
		for _, r := range st.RunsOf(id) {
			var at []string
			for _, a := range st.AttemptsOf(r.ID) {
				at = append(at, fmt.Sprintf("%s/%s", a.Reason, a.Status))
			}
			fmt.Fprintf(&b, "  run %d %s [%s]\n", r.Ordinal, r.Status, strings.Join(at, " "))
			for _, q := range st.RequestsOf(r.ID) {
				fmt.Fprintf(&b, "    request %s %s %s\n", q.ID, q.Kind, q.Status)
			}
		}
	}
	var keys []string
	for k, e := range st.Effects {
		keys = append(keys, k+" "+string(e.Status))
	}
	sort.Strings(keys)
	fmt.Fprintf(&b, "effects: %s", strings.Join(keys, ", "))
	return b.String()
}

func costOf(usd float64, unknown bool) string {
	if unknown {
		return fmt.Sprintf("$%g+unknown", usd)
	}
	return fmt.Sprintf("$%g", usd)
}
