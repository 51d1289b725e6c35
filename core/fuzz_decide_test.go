package core

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fuzzKinds are the command kinds the fuzzer picks from by index; an
// index past the end uses the fuzzed kind string as is.
var fuzzKinds = []CommandKind{CmdThreadCreate, CmdThreadRename, CmdThreadArchive, CmdThreadStop, CmdMessageSend,
	CmdQueueHold, CmdQueueRelease, CmdQueueRemove, CmdRunInterrupt, CmdRunResume, CmdRequestRespond,
	CmdProviderSwitch, CmdThreadFork, CmdMergeBack, CmdRollbackToRun, CmdRollbackNode, CmdCheckpoint}

// fuzzState is a small fixed projection: t1 has a run waiting on an
// approval (R1) and a queued follow-up, t2 has a completed run, t3 a
// workspace with run, node and mark checkpoints, and command c1 already
// has a receipt.
func fuzzState(f *testing.F) *State {
	st := NewState()
	caps := Capabilities{Steer: true, Interrupt: true, Resume: true, Fork: true, Rollback: true,
		Approvals: true, UserInput: true, Plans: true, DurableRequests: true}
	at := int64(1e9)
	do := func(in Input) {
		at += 1e6
		if _, _, _, err := Decide(st, in); err != nil {
			f.Fatalf("building the fuzz state: %v", err)
		}
	}
	cmd := func(c Command) { c.At = at; do(Input{Command: &c}) }
	obs := func(o Observation) { o.At = at; do(Input{Obs: &o}) }
	cmd(Command{ID: "c1", Kind: CmdThreadCreate, NewThread: "t1", Provider: "builtin", Caps: caps})
	cmd(Command{ID: "c2", Kind: CmdThreadCreate, NewThread: "t2", Provider: "builtin", Caps: caps})
	cmd(Command{ID: "c3", Kind: CmdMessageSend, Thread: "t1", Text: "#approve deploy"})
	obs(Observation{Kind: ObsTurnStarted, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1"})
	obs(Observation{Kind: ObsRequest, Thread: "t1", Run: "t1/1", Attempt: "t1/1/a1", Key: "approve",
		RequestKind: RequestApproval, Prompt: "Deploy?"})
	cmd(Command{ID: "c4", Kind: CmdMessageSend, Thread: "t1", Text: "then test", Mode: ModeQueue})
	cmd(Command{ID: "c5", Kind: CmdMessageSend, Thread: "t2", Text: "hello"})
	obs(Observation{Kind: ObsTurnStarted, Thread: "t2", Run: "t2/1", Attempt: "t2/1/a1"})
	obs(Observation{Kind: ObsTurnEnded, Thread: "t2", Run: "t2/1", Attempt: "t2/1/a1", TurnStatus: AttemptCompleted})
	// t3 has a workspace: a run whose subagent wrote a file, and a mark.
	cmd(Command{ID: "c6", Kind: CmdThreadCreate, NewThread: "t3", Provider: "builtin", Caps: caps, Workspace: "/ws"})
	cmd(Command{ID: "c7", Kind: CmdMessageSend, Thread: "t3", Text: "#subagent write a"})
	obs(Observation{Kind: ObsCheckpoint, Thread: "t3", Key: ScopeBase, CheckpointStatus: CkReady, Commit: "c0"})
	a3 := Observation{Thread: "t3", Run: "t3/1", Attempt: "t3/1/a1"}
	for _, o := range []Observation{
		{Kind: ObsNode, Key: "sub", NodeKind: NodeSubagent},
		{Kind: ObsStepStarted, Key: "s1", Parent: "sub", Action: "write_file", Class: ClassReversible},
		{Kind: ObsStepDone, Key: "s1", EffectStatus: EffCompleted},
		{Kind: ObsNode, Key: "sub", NodeStatus: NodeCompleted},
		{Kind: ObsTurnEnded, TurnStatus: AttemptCompleted},
	} {
		o.Thread, o.Run, o.Attempt = a3.Thread, a3.Run, a3.Attempt
		obs(o)
	}
	obs(Observation{Kind: ObsCheckpoint, Thread: "t3", Run: "t3/1", Key: NodeScope("t3", "t3/1/a1/n2"), CheckpointStatus: CkReady, Commit: "cn"})
	obs(Observation{Kind: ObsCheckpoint, Thread: "t3", Key: RunScope(1), CheckpointStatus: CkReady, Commit: "c1"})
	cmd(Command{ID: "c8", Kind: CmdCheckpoint, Thread: "t3"})
	obs(Observation{Kind: ObsCheckpoint, Thread: "t3", Run: "t3/1", Key: MarkScope(1), CheckpointStatus: CkReady, Commit: "cm"})
	if st.Requests["R1"] == nil || st.RunByOrdinal("t1", 2) == nil {
		f.Fatal("the fuzz state lacks its request or its queued run")
	}
	if c := st.Checkpoints[CheckpointID("t3", MarkScope(1))]; c == nil || c.Status != CkReady ||
		st.Checkpoints[CheckpointID("t3", NodeScope("t3", "t3/1/a1/n2"))] == nil {
		f.Fatal("the fuzz state lacks t3's node checkpoint or its mark")
	}
	return st
}

// FuzzDecideCommand builds a command from fuzzed fields and decides it
// against fuzzState. Decide must never panic or hang. A refused command
// (Validate or a reference check) is an *InputError and journals
// nothing: no events, no effects, the state untouched. An accepted one
// (or a rejection, which is journaled too) yields events with gapless
// seqs right after the state's, each caused by the command, and a receipt
// that points at the last of them. Replaying those events on a copy of
// the state gives the same projection, and deciding twice gives the same
// events: Decide is deterministic. The state it was cloned from encodes as
// it did: Decide writes through no entity (doc.go, "Invariants"). Seeds
// live in testdata/fuzz/FuzzDecideCommand.
func FuzzDecideCommand(f *testing.F) {
	base := fuzzState(f)
	baseJSON := stateJSON(f, base)
	f.Add(uint8(4), "c9", "t1", "", 0, "", "steer me", "steer_active", "", "", "", "", 0.0, false)
	f.Add(uint8(10), "c9", "", "", 0, "R1", "", "", "", "", "allow", "", 0.0, false)
	f.Add(uint8(0), "c9", "", "t3", 0, "", "", "", "T", "builtin", "", "write,command", 1.5, false)
	f.Add(uint8(12), "c9", "t2", "t4", 1, "", "", "", "", "", "", "", 0.0, false)
	f.Add(uint8(5), "c9", "t1", "", 2, "", "", "", "", "", "", "", 0.0, true)
	f.Add(uint8(8), "c1", "t1", "", 0, "", "", "", "", "", "", "", 0.0, true)
	f.Add(uint8(15), "c9", "t3", "", 0, "t3/1/a1/n2", "", "", "", "", "", "", 0.0, false)
	f.Add(uint8(14), "c9", "t3", "", 0, "", "", "", "", "", "t3/cp/mark/1", "", 0.0, false)
	f.Add(uint8(16), "c9", "t3", "", 0, "", "", "", "", "", "", "", 0.0, false)
	f.Fuzz(func(t *testing.T, kind uint8, id, thread, newThread string, run int, request, text, mode, title,
		provider, response, allow string, budget float64, hold bool) {
		c := Command{ID: id, Thread: thread, NewThread: newThread, Run: run, Request: request, Text: text,
			Mode: SendMode(mode), Title: title, Provider: provider, Response: Response(response), Answer: text, BudgetUSD: budget,
			HoldQueue: hold, At: 2e9, Workspace: "/ws"}
		if int(kind) < len(fuzzKinds) {
			c.Kind = fuzzKinds[kind]
		} else {
			c.Kind = CommandKind(title)
		}
		if c.Kind == CmdRollbackNode || c.Kind == CmdRollbackToRun {
			c.Node, c.Checkpoint = request, response
		}
		if allow != "" {
			c.Allow = strings.Split(allow, ",")
		}
		stop := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("Decide(%+v) ran for over 10s", c)) })
		defer stop.Stop()

		st := base.Clone()
		c1 := c
		evs, effs, rec, err := Decide(st, Input{Command: &c1})
		if stateJSON(t, base) != baseJSON {
			t.Fatalf("%+v: deciding on a clone changed the state it was cloned from", c)
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%+v: refused with %T %v, not an *InputError", c, err, err)
			}
			if len(evs) != 0 || len(effs) != 0 || rec != nil {
				t.Fatalf("%+v: refused (%v) but returned %d events, %d effects, receipt %v", c, err, len(evs), len(effs), rec)
			}
			if st.Seq != base.Seq || len(st.Receipts) != len(base.Receipts) {
				t.Fatalf("%+v: refused (%v) but the state moved to seq %d", c, err, st.Seq)
			}
			return
		}
		if rec == nil {
			t.Fatalf("%+v: accepted without a receipt", c)
		}
		if base.Receipts[c.ID] != nil {
			if len(evs) != 0 || len(effs) != 0 {
				t.Fatalf("%+v: a repeated command id journaled %d events", c, len(evs))
			}
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("%+v: Decide accepted a command that Validate refuses: %v", c, verr)
		}
		if len(evs) == 0 {
			t.Fatalf("%+v: accepted with no event recording it", c)
		}
		for i, ev := range evs {
			if ev.Seq != base.Seq+1+uint64(i) {
				t.Fatalf("%+v: event %d has seq %d, want %d (gapless after %d)", c, i, ev.Seq, base.Seq+1+uint64(i), base.Seq)
			}
			if ev.Causation != c.ID {
				t.Fatalf("%+v: event %d (%s) is caused by %q", c, i, ev.Type, ev.Causation)
			}
		}
		if st.Seq != evs[len(evs)-1].Seq || rec.Seq != st.Seq || st.Receipts[c.ID] == nil {
			t.Fatalf("%+v: state at seq %d, receipt at %d, last event %d", c, st.Seq, rec.Seq, evs[len(evs)-1].Seq)
		}
		replay := base.Clone()
		for i := range evs {
			ev := evs[i]
			if err := replay.Apply(&ev); err != nil {
				t.Fatalf("%+v: replaying event %d: %v", c, i, err)
			}
		}
		if !reflect.DeepEqual(exportedFields(replay), exportedFields(st)) {
			t.Fatalf("%+v: replaying the events does not give the decided state", c)
		}
		c2 := c
		again, _, _, _ := Decide(base.Clone(), Input{Command: &c2})
		if !reflect.DeepEqual(again, evs) {
			t.Fatalf("%+v: deciding twice gave different events", c)
		}
	})
}

// exportedFields lists a State's exported fields (the derived index is
// rebuilt, not replayed, and may differ in capacity).
func exportedFields(st *State) []any {
	v := reflect.ValueOf(st).Elem()
	var out []any
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			out = append(out, v.Field(i).Interface())
		}
	}
	return out
}
