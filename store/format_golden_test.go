package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/journalgen"
	"github.com/nexus-tui/nexus/store"
)

var update = flag.Bool("update", false, "rewrite testdata/format.golden from the current encodings")

const formatGolden = "testdata/format.golden"

// TestFormatGolden pins the bytes of the on-disk format: journals from
// three sources are appended to a real store and exported (the stored
// event bytes with their hash chain), read back and encoded as JSON (the
// socket and --json), replayed into a State and encoded as a snapshot
// (with the refs of its sealed runs) and as JSON. The sources: generated
// event shapes (internal/journalgen), a scripted scenario through the
// kernel that reaches every event type and every observation kind, and
// the random kernel inputs of TestKernelReplayProperty. Each encoding is
// hashed and compared with testdata/format.golden; the scripted journal
// also has a line per event, so a failure names the first event that
// moved. The codec tests prove that the hand-written codec agrees with
// reflection; this one proves that neither the codec nor the decider's
// output changed at all. Run with -update only for a deliberate format
// change, and review the diff.
func TestFormatGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("# sha256 of each encoding; go test ./store -run TestFormatGolden -update rewrites it\n")
	pinJournal(t, &b, "journalgen", journalgen.New(11).Commits(1500), false)
	pinJournal(t, &b, "scenario", scenarioCommits(t), true)
	for seed := int64(1); seed <= 3; seed++ {
		pinJournal(t, &b, fmt.Sprintf("random%d", seed), randomCommits(seed, 300), false)
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(formatGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(formatGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		var diff []string
		for i := 0; i < max(len(gl), len(wl)) && len(diff) < 10; i++ {
			g, w := line(gl, i), line(wl, i)
			if g != w {
				diff = append(diff, fmt.Sprintf("line %d\n  got  %s\n  want %s", i+1, g, w))
			}
		}
		t.Fatalf("the on-disk format moved:\n%s", strings.Join(diff, "\n"))
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// pinJournal appends commits to a fresh store and writes the hashes of
// its encodings as one line (and, with perEvent, one line per event).
func pinJournal(t *testing.T, out *strings.Builder, name string, commits []core.Commit, perEvent bool) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Append(ctx, commits); err != nil {
		t.Fatalf("%s: append: %v", name, err)
	}
	var export bytes.Buffer
	if err := s.Export(ctx, &export); err != nil {
		t.Fatalf("%s: export: %v", name, err)
	}
	st := core.NewState()
	var evJSON bytes.Buffer
	var lines []string
	err = s.Read(ctx, 1, func(ev core.Event) error {
		j, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		evJSON.Write(append(j, '\n'))
		if perEvent {
			lines = append(lines, fmt.Sprintf("%s e%d %s msgpack=%.16s json=%.16s", name, ev.Seq, ev.Type,
				sum(store.EncodeEvent(&ev)), sum(j)))
		}
		return st.Apply(&ev)
	})
	if err != nil {
		t.Fatalf("%s: read: %v", name, err)
	}
	snap, err := store.EncodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	stJSON, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(out, "%s events=%d export=%s events.json=%s state=%s state.json=%s\n", name, st.Seq,
		sum(export.Bytes()), sum(evJSON.Bytes()), sum(snap), sum(stJSON))
	for _, l := range lines {
		out.WriteString(l + "\n")
	}
}

// randomCommits drives the kernel with TestKernelReplayProperty's random
// inputs.
func randomCommits(seed int64, steps int) []core.Commit {
	rng := rand.New(rand.NewSource(seed))
	k := core.NewKernel(nil)
	for n := 1; n <= steps; n++ {
		_, _ = k.Step(randomInput(rng, k.State(), n)) // refused input journals nothing
	}
	return k.Ready().Commits
}

// scenario drives a kernel through a fixed script: every command kind,
// every observation kind (with every field its kind uses), timers, the
// recovery and shutdown passes, and effects answered the way the host's
// executors answer them.
type scenario struct {
	t       *testing.T
	k       *core.Kernel
	at      int64
	n       int
	effects []core.Effect
}

func (sc *scenario) step(in core.Input) {
	sc.at += 1_000_000
	before := len(sc.k.Ready().Effects)
	_, _ = sc.k.Step(in) // a refused input journals nothing; the coverage check catches a script gone stale
	sc.effects = append(sc.effects, sc.k.Ready().Effects[before:]...)
}

func (sc *scenario) cmd(c core.Command) {
	sc.n++
	c.ID, c.At = fmt.Sprintf("c%d", sc.n), sc.at+1_000_000
	sc.step(core.Input{Command: &c})
}

// obs reports an observation for the thread's active run and its current
// attempt.
func (sc *scenario) obs(thread string, o core.Observation) {
	st := sc.k.State()
	if r := st.ActiveRun(thread); r != nil {
		o.Run = r.ID
		if a := st.CurrentAttempt(r); a != nil {
			o.Attempt = a.ID
		}
	}
	o.Thread = thread
	sc.report(o)
}

// report steps an observation as it is.
func (sc *scenario) report(o core.Observation) {
	o.At = sc.at + 1_000_000
	sc.step(core.Input{Obs: &o})
}

// pending takes the oldest effect of a kind the script has not answered.
func (sc *scenario) pending(kind core.EffectKind) core.Effect {
	for i, e := range sc.effects {
		if e.Kind == kind {
			sc.effects = slices.Delete(sc.effects, i, i+1)
			return e
		}
	}
	sc.t.Fatalf("scenario: no %s effect to answer", kind)
	return core.Effect{}
}

// capture answers the oldest checkpoint effect as the host's executor
// does: ready with a commit, a ref and the files, or an error.
func (sc *scenario) capture(files []core.FileChange, more int, errText string) {
	e := sc.pending(core.EffCheckpoint)
	o := core.Observation{Kind: core.ObsCheckpoint, Thread: e.Thread, Run: e.Run, Key: e.Scope}
	if errText != "" {
		o.CheckpointStatus, o.Error = core.CkError, errText
	} else {
		o.CheckpointStatus, o.Commit, o.Ref = core.CkReady, fmt.Sprintf("%040x", sc.at), "refs/nexus/checkpoints/"+e.Thread+"/"+e.Scope
		o.Files, o.MoreFiles = files, more
		if len(files) > 0 && files[0].By != "" {
			o.Own, o.Outside = true, 1
		}
	}
	sc.report(o)
}

// restore answers the oldest restore effect.
func (sc *scenario) restore(status core.EffectStatus, text, errText string, dirty bool) {
	e := sc.pending(core.EffRestore)
	o := core.Observation{Kind: core.ObsRestored, Thread: e.Thread, Key: e.Scope, EffectStatus: status, Text: text,
		Error: errText, Dirty: dirty}
	if status == core.EffCompleted {
		o.Paths, o.Kept = []string{"a.txt"}, []string{"hand.txt"}
	}
	sc.report(o)
}

func scenarioCommits(t *testing.T) []core.Commit {
	sc := &scenario{t: t, k: core.NewKernel(nil), at: 1_760_000_000_000_000_000}
	all := core.Capabilities{Steer: true, Interrupt: true, Resume: true, Approvals: true, UserInput: true,
		Plans: true, Subagents: true, DurableRequests: true}

	// t1: the built-in agent in a workspace: a baseline, model calls,
	// worker steps under a subagent and its checkpoint, a todo list,
	// requests, a failed run, a mark, rollbacks.
	sc.cmd(core.Command{Kind: core.CmdThreadCreate, NewThread: "t1", Provider: "builtin", Caps: all, Workspace: "/ws",
		Title: "golden", BudgetUSD: 2.5, MaxTokens: 100000, Allow: []string{"write"}})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "#subagent write a"})
	sc.capture([]core.FileChange{{Path: "x.txt", Status: "A", Added: 1}}, 0, "")
	sc.obs("t1", core.Observation{Kind: core.ObsTurnStarted})
	sc.obs("t1", core.Observation{Kind: core.ObsLLM, Key: "k1", Model: "sim", Text: "{plan}", TokensIn: 151, TokensOut: 77,
		CostUSD: 0.0012, DurationMS: 340})
	sc.obs("t1", core.Observation{Kind: core.ObsPlan, Items: []core.PlanItem{{Text: "read", Status: core.ItemCompleted},
		{Text: "write", Status: core.ItemInProgress}, {Text: "sub", Status: core.ItemPending, Depth: 1}}})
	sc.obs("t1", core.Observation{Kind: core.ObsPlan, Key: core.PlanKeyProposed, Items: []core.PlanItem{{Text: "look", Status: core.ItemPending}}})
	sc.obs("t1", core.Observation{Kind: core.ObsNode, Key: "sub", NodeKind: core.NodeSubagent, Title: "subagent: write a"})
	sc.obs("t1", core.Observation{Kind: core.ObsStepStarted, Key: "s1", Parent: "sub", Action: "write_file",
		Class: core.ClassReversible, Title: "write_file a.txt", Hash: "h1", PreHash: "h0", Paths: []string{"a.txt"}})
	sc.obs("t1", core.Observation{Kind: core.ObsStepDone, Key: "s1", EffectStatus: core.EffCompleted, Text: "wrote 12 bytes", Hash: "h1"})
	sc.obs("t1", core.Observation{Kind: core.ObsNode, Key: "tool", Parent: "sub", Title: "grep", Text: "3 matches"})
	sc.obs("t1", core.Observation{Kind: core.ObsNode, Key: "tool", NodeStatus: core.NodeFailed})
	sc.obs("t1", core.Observation{Kind: core.ObsNode, Key: "sub", NodeStatus: core.NodeCompleted})
	sc.capture([]core.FileChange{{Path: "a.txt", Status: "A", Added: 1}}, 0, "")
	sc.obs("t1", core.Observation{Kind: core.ObsText, Key: "reply", Text: "Done: "})
	sc.obs("t1", core.Observation{Kind: core.ObsText, Key: "reply", Text: "a.txt written.", Final: true})
	sc.obs("t1", core.Observation{Kind: core.ObsRequest, Key: "approve", RequestKind: core.RequestApproval,
		Action: "command", Prompt: "Run make?"})
	sc.cmd(core.Command{Kind: core.CmdRequestRespond, Request: "R1", Response: core.RespAllowAlways})
	sc.obs("t1", core.Observation{Kind: core.ObsRequest, Key: "ask", RequestKind: core.RequestUserInput, Prompt: "Which colour?"})
	sc.cmd(core.Command{Kind: core.CmdRequestRespond, Request: "R2", Response: core.RespAnswer, Answer: "blue"})
	sc.cmd(core.Command{Kind: core.CmdRequestRespond, Request: "R2", Response: core.RespDeny})
	sc.obs("t1", core.Observation{Kind: core.ObsRequest, Key: "gone", Prompt: "Still there?"})
	sc.obs("t1", core.Observation{Kind: core.ObsRequestClosed, Key: "gone", Text: "timed out"})
	sc.obs("t1", core.Observation{Kind: core.ObsWarning, Text: "rate limited; retrying"})
	sc.obs("t1", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.capture([]core.FileChange{{Path: "b.txt", Status: "A", Added: 10}, {Path: "a.txt", Status: "M", Added: 3, Deleted: 1},
		{Path: "logo.png", Status: "A", Binary: true}}, 2, "")
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "count"})
	sc.obs("t1", core.Observation{Kind: core.ObsTurnStarted})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "in roman numerals", Mode: core.ModeSteer})
	sc.obs("t1", core.Observation{Kind: core.ObsEffectDone, Key: sc.pending(core.EffSteer).Key})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "then test", Mode: core.ModeQueue})
	sc.cmd(core.Command{Kind: core.CmdQueueHold, Thread: "t1", Run: 3})
	sc.cmd(core.Command{Kind: core.CmdQueueRelease, Thread: "t1", Run: 3})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "drop me", Mode: core.ModeQueue})
	sc.cmd(core.Command{Kind: core.CmdQueueRemove, Thread: "t1", Run: 4})
	sc.obs("t1", core.Observation{Kind: core.ObsStepStarted, Key: "s2", Action: "run_command", Class: core.ClassIrreversible,
		Title: "run_command go test"})
	sc.obs("t1", core.Observation{Kind: core.ObsStepDone, Key: "s2", EffectStatus: core.EffFailed, Exit: 2, Text: "FAIL"})
	sc.obs("t1", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptFailed, Error: "the model gave up"})
	sc.capture(nil, 0, "checkpoint: too many files")
	sc.obs("t1", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.capture([]core.FileChange{{Path: "c.txt", Status: "D", Deleted: 4, By: core.ByCommand}}, 0, "")
	sc.cmd(core.Command{Kind: core.CmdCheckpoint, Thread: "t1"})
	sc.capture(nil, 0, "")
	sc.cmd(core.Command{Kind: core.CmdRollbackToRun, Thread: "t1", Run: 2}) // its checkpoint is in error: rejected
	sc.cmd(core.Command{Kind: core.CmdRollbackToRun, Thread: "t1", Run: 1})
	sc.capture(nil, 0, "") // the safety checkpoint
	sc.restore(core.EffFailed, "", "checkout: permission denied", false)
	sc.cmd(core.Command{Kind: core.CmdRollbackToRun, Thread: "t1", Run: 1})
	sc.capture(nil, 0, "")
	sc.restore(core.EffCompleted, "1 file(s) restored, 1 removed", "", false)
	sc.cmd(core.Command{Kind: core.CmdRollbackUndo, Thread: "t1"})
	sc.capture(nil, 0, "")
	sc.restore(core.EffCompleted, "1 file(s) restored, 0 removed", "", false)
	sc.cmd(core.Command{Kind: core.CmdRollbackToRun, Thread: "t1", Run: 1})
	sc.capture(nil, 0, "")
	sc.restore(core.EffCompleted, "1 file(s) restored, 1 removed", "", false)
	sub := sc.k.State().NodeByKey("t1/1/a1", "sub")
	if sub == nil {
		t.Fatal("scenario: t1's subagent node is missing")
	}
	sc.cmd(core.Command{Kind: core.CmdRollbackNode, Thread: "t1", Node: sub.ID})
	sc.capture(nil, 0, "")
	sc.restore(core.EffCompleted, "1 file(s) restored, 0 removed", "", true)

	// t2: an external agent with native turns and refs, a steer it turns
	// out not to support, a restart, a failed resume, a fork, a merge
	// back, a provider switch, an interrupt it never confirms.
	sc.cmd(core.Command{Kind: core.CmdThreadCreate, NewThread: "t2", Provider: "codex",
		Caps: core.Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Rollback: true}})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t2", Text: "one"})
	sc.obs("t2", core.Observation{Kind: core.ObsSessionState, SessionState: core.SessRunning})
	sc.obs("t2", core.Observation{Kind: core.ObsTurnStarted})
	sc.obs("t2", core.Observation{Kind: core.ObsNativeTurn, Text: "turn-1"})
	sc.obs("t2", core.Observation{Kind: core.ObsNativeRef, Text: "codex-th"})
	sc.obs("t2", core.Observation{Kind: core.ObsLLM, Key: "codex:turn-1:1", Model: "codex", TokensIn: 900, TokensOut: 40})
	sc.obs("t2", core.Observation{Kind: core.ObsText, Key: "m", Text: "reply one", Final: true})
	sc.obs("t2", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t2", Text: "two"})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t2", Text: "three"})
	sc.obs("t2", core.Observation{Kind: core.ObsEffectDone, Key: sc.pending(core.EffSteer).Key, EffectStatus: core.EffUnsupported,
		Text: "no turn/steer in this codex"})
	sc.obs("t2", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptInterrupted})
	sc.obs("t2", core.Observation{Kind: core.ObsResumeFailed, Text: "could not resume Codex thread codex-th"})
	sc.obs("t2", core.Observation{Kind: core.ObsNativeRef, Text: "codex-th2"})
	sc.obs("t2", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.cmd(core.Command{Kind: core.CmdThreadFork, Thread: "t2", NewThread: "f2", Run: 1})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "f2", Text: "in the fork"})
	sc.obs("f2", core.Observation{Kind: core.ObsText, Key: "m", Text: "forked reply", Final: true})
	sc.obs("f2", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t2", Text: "take the fork", MergeBack: "f2"})
	sc.obs("t2", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptCompleted})
	sc.cmd(core.Command{Kind: core.CmdProviderSwitch, Thread: "t2", Provider: "claude",
		Caps: core.Capabilities{Steer: true, Interrupt: true, Resume: true}})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t2", Text: "long"})
	sc.cmd(core.Command{Kind: core.CmdRunInterrupt, Thread: "t2", HoldQueue: true})
	st := sc.k.State()
	sc.step(core.Input{Timer: &core.TimerFired{Key: "interrupt:" + st.CurrentAttempt(st.ActiveRun("t2")).ID, At: sc.at}})
	sc.obs("t2", core.Observation{Kind: core.ObsSessionState, SessionState: core.SessStopped, Text: "stopped"})
	sc.cmd(core.Command{Kind: core.CmdThreadRename, Thread: "t2", Title: "renamed"})

	// t3: an agent without durable requests dies with a request open; the
	// host recovers, the person resumes, the old request cannot be
	// answered; then the thread is stopped and archived.
	sc.cmd(core.Command{Kind: core.CmdThreadCreate, NewThread: "t3", Provider: "ext", Caps: core.Capabilities{Interrupt: true}})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t3", Text: "tool"})
	sc.obs("t3", core.Observation{Kind: core.ObsRequest, Key: "p1", Prompt: "Run ls?"})
	sc.step(core.Input{Recover: &core.Recover{At: sc.at}})
	sc.cmd(core.Command{Kind: core.CmdRunResume, Thread: "t3"})
	sc.cmd(core.Command{Kind: core.CmdRequestRespond, Request: "R4", Response: core.RespAllow})
	sc.obs("t3", core.Observation{Kind: core.ObsSessionState, SessionState: core.SessFailed, Text: "exit 1"})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t3", Text: "again"})
	sc.cmd(core.Command{Kind: core.CmdThreadStop, Thread: "t3"})
	sc.obs("t3", core.Observation{Kind: core.ObsTurnEnded, TurnStatus: core.AttemptInterrupted})
	sc.cmd(core.Command{Kind: core.CmdThreadArchive, Thread: "t3"})

	// t4: a thread started as an agent identity, which is then removed
	// (the thread keeps it); a second add of its alias is rejected first.
	sc.cmd(core.Command{Kind: core.CmdAgentAdd, Agent: "reviewer", NewAgent: "g1", Profile: "builtin", Instructions: "Review; say pass or fail."})
	sc.cmd(core.Command{Kind: core.CmdAgentAdd, Agent: "reviewer", NewAgent: "g2", Profile: "codex"})
	sc.cmd(core.Command{Kind: core.CmdThreadCreate, NewThread: "t4", Provider: "builtin", Agent: "reviewer"})
	sc.cmd(core.Command{Kind: core.CmdMessageSend, Thread: "t4", Text: "review"})
	sc.cmd(core.Command{Kind: core.CmdAgentRemove, Agent: "reviewer"})
	sc.step(core.Input{Shutdown: &core.Recover{At: sc.at}})

	commits := sc.k.Ready().Commits
	seen := map[core.EventType]bool{}
	for _, ev := range journalgen.Flatten(commits) {
		seen[ev.Type] = true
	}
	for _, typ := range []core.EventType{core.EvThreadUpdated, core.EvRunUpdated, core.EvAttemptUpdated, core.EvNodeUpdated,
		core.EvNodeText, core.EvRequestUpdated, core.EvPlanUpdated, core.EvSessionUpdated, core.EvProviderThread,
		core.EvHandoffRecorded, core.EvTransferUpdated, core.EvCheckpoint, core.EvOperation, core.EvEffectStarted,
		core.EvEffectCompleted, core.EvCommandRejected, core.EvCommandAccepted, core.EvRuntimeWarning, core.EvHostRecovered,
		core.EvAgentUpdated} {
		if !seen[typ] {
			t.Errorf("scenario: no %s event; the script no longer reaches it", typ)
		}
	}
	return commits
}
