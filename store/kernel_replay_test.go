package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
)

// randomInput picks a plausible next input for the kernel: commands of
// every kind and provider observations for the runs that exist.
func randomInput(rng *rand.Rand, st *core.State, n int) core.Input {
	threads := make([]string, 0, len(st.Threads))
	for id := range st.Threads {
		threads = append(threads, id)
	}
	sortStrings(threads)
	at := int64(n) * 1000
	cmd := func(c core.Command) core.Input {
		c.ID, c.At = fmt.Sprintf("c%d", n), at
		return core.Input{Command: &c}
	}
	if len(threads) == 0 || rng.Intn(12) == 0 {
		caps := core.Capabilities{Steer: rng.Intn(2) == 0, Interrupt: rng.Intn(3) > 0, DurableRequests: rng.Intn(2) == 0}
		c := core.Command{Kind: core.CmdThreadCreate, NewThread: fmt.Sprintf("t%d", n), Provider: "p", Caps: caps}
		if n%2 == 0 {
			c.Workspace = "/ws" // its runs wait on checkpoint captures
		}
		return cmd(c)
	}
	if rng.Intn(3) == 0 {
		for _, th := range threads {
			if r := st.ActiveRun(th); r != nil && (r.AwaitBase || r.Finishing != "") {
				return core.Input{Obs: checkpointObs(rng, th, r, at)}
			}
		}
	}
	th := threads[rng.Intn(len(threads))]
	active := st.ActiveRun(th)
	if active != nil && rng.Intn(2) == 0 {
		a := st.CurrentAttempt(active)
		o := core.Observation{Thread: th, Run: active.ID, Attempt: a.ID, At: at}
		switch rng.Intn(7) {
		case 0:
			o.Kind = core.ObsTurnStarted
		case 1:
			o.Kind, o.Key, o.Text, o.Final = core.ObsText, "reply", fmt.Sprintf("w%d ", n), rng.Intn(4) == 0
		case 2:
			o.Kind, o.Items = core.ObsPlan, []core.PlanItem{{Text: "a", Status: core.ItemCompleted}, {Text: "b", Status: core.ItemPending}}
		case 3:
			o.Kind, o.Key, o.Prompt = core.ObsRequest, fmt.Sprintf("q%d", rng.Intn(3)), "ok?"
			if rng.Intn(2) == 0 {
				o.RequestKind = core.RequestUserInput
			}
		case 4:
			o.Kind, o.Key, o.NodeKind = core.ObsNode, "sub", core.NodeSubagent
		default:
			o.Kind = core.ObsTurnEnded
			o.TurnStatus = []core.AttemptStatus{core.AttemptCompleted, core.AttemptInterrupted, core.AttemptFailed}[rng.Intn(3)]
		}
		return core.Input{Obs: &o}
	}
	switch rng.Intn(10) {
	case 0, 1, 2:
		modes := []core.SendMode{core.ModeAuto, core.ModeSteer, core.ModeRestart, core.ModeQueue, core.ModeImmediate}
		return cmd(core.Command{Kind: core.CmdMessageSend, Thread: th, Text: fmt.Sprintf("m%d", n), Mode: modes[rng.Intn(len(modes))]})
	case 3:
		return cmd(core.Command{Kind: core.CmdRunInterrupt, Thread: th, HoldQueue: rng.Intn(2) == 0})
	case 4:
		for _, q := range st.Requests {
			if q.Status == core.RequestPending {
				if q.Kind == core.RequestUserInput {
					return cmd(core.Command{Kind: core.CmdRequestRespond, Request: q.ID, Response: core.RespAnswer, Answer: "blue"})
				}
				return cmd(core.Command{Kind: core.CmdRequestRespond, Request: q.ID, Response: core.RespAllow})
			}
		}
	case 5:
		if r := st.RunByOrdinal(th, 1+rng.Intn(3)); r != nil {
			kinds := []core.CommandKind{core.CmdQueueHold, core.CmdQueueRelease, core.CmdQueueRemove}
			return cmd(core.Command{Kind: kinds[rng.Intn(3)], Thread: th, Run: r.Ordinal})
		}
	case 6:
		return cmd(core.Command{Kind: core.CmdThreadFork, Thread: th, NewThread: fmt.Sprintf("f%d", n)})
	case 7:
		return core.Input{Recover: &core.Recover{At: at}}
	case 8:
		return cmd(core.Command{Kind: core.CmdRunResume, Thread: th})
	}
	if active != nil {
		return core.Input{Timer: &core.TimerFired{Key: "interrupt:" + st.CurrentAttempt(active).ID, At: at}}
	}
	return cmd(core.Command{Kind: core.CmdThreadRename, Thread: th, Title: fmt.Sprintf("r%d", n)})
}

// checkpointObs reports the capture an active run waits for: the
// baseline, or the run's checkpoint with files in no particular order,
// sometimes more than a checkpoint keeps, or an error.
func checkpointObs(rng *rand.Rand, th string, r *core.Run, at int64) *core.Observation {
	o := &core.Observation{Kind: core.ObsCheckpoint, Thread: th, Run: r.ID, Key: core.RunScope(r.Ordinal), At: at,
		CheckpointStatus: core.CkReady, Commit: fmt.Sprintf("%040x", at)}
	if r.AwaitBase {
		o.Key = core.ScopeBase
	}
	switch rng.Intn(8) {
	case 0:
		o.CheckpointStatus, o.Commit, o.Error = core.CkError, "", "checkpoint: too many files"
	case 1:
		o.Error = "checkpoint captured, but its file list is not recorded"
	}
	n := 1 + rng.Intn(4)
	if rng.Intn(10) == 0 {
		n = core.MaxCheckpointFiles + rng.Intn(20)
	}
	for i := 0; i < n; i++ {
		o.Files = append(o.Files, core.FileChange{Path: fmt.Sprintf("d%d/f%d.go", rng.Intn(5), rng.Intn(1000)),
			Status: []string{"A", "M", "D", "T"}[rng.Intn(4)], Added: rng.Intn(400), Deleted: rng.Intn(3), Binary: rng.Intn(9) == 0})
	}
	o.MoreFiles = rng.Intn(2) * rng.Intn(50)
	return o
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestKernelReplayProperty drives the real kernel with random command
// sequences into a real journal, snapshotting at random points, and checks
// that snapshot + tail replay equals a full replay equals the live state,
// byte for byte.
func TestKernelReplayProperty(t *testing.T) {
	withFiles := 0 // checkpoints listing files, over all seeds
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			s, err := store.Open(t.TempDir(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			k := core.NewKernel(nil)
			ctx := context.Background()
			for n := 1; n <= 400; n++ {
				if _, err := k.Step(randomInput(rng, k.State(), n)); err != nil {
					continue // refused input journals nothing
				}
				rd := k.Ready()
				if len(rd.Commits) > 0 {
					if err := s.Append(ctx, rd.Commits); err != nil {
						t.Fatalf("seed %d step %d: %v", seed, n, err)
					}
				}
				k.Advance()
				if rng.Intn(60) == 0 {
					if err := s.SaveSnapshot(k.State().Clone()); err != nil {
						t.Fatal(err)
					}
				}
			}
			full := core.NewState()
			if err := s.Read(ctx, 1, func(ev core.Event) error { return full.Apply(&ev) }); err != nil {
				t.Fatal(err)
			}
			fromSnap, err := core.Load(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			live, _ := store.EncodeState(k.State())
			b1, _ := store.EncodeState(full)
			b2, _ := store.EncodeState(fromSnap)
			if !bytes.Equal(b1, b2) || !bytes.Equal(b1, live) {
				t.Fatalf("seed %d: full replay (%d bytes), snapshot+tail (%d bytes) and live state (%d bytes) differ at seq %d",
					seed, len(b1), len(b2), len(live), full.Seq)
			}
			// Sealed runs answer every accessor like hot ones.
			sealed := len(fromSnap.Sealed)
			for id := range full.Runs {
				if a, b := history(full, id), history(fromSnap, id); a != b {
					t.Fatalf("seed %d: run %s reads differently sealed:\n got %s\nwant %s", seed, id, b, a)
				}
			}
			fromSnap.ThawAll()
			// JSON sees every exported field by reflection, so a field the
			// snapshot codec forgot shows up here.
			j1, _ := json.Marshal(full)
			j2, _ := json.Marshal(fromSnap)
			if !bytes.Equal(j1, j2) {
				t.Fatalf("seed %d: snapshot + tail differs from full replay in JSON: a field is lost by the snapshot codec", seed)
			}
			if sealed == 0 {
				t.Fatalf("seed %d: the snapshot sealed no run; the property says nothing about sealing", seed)
			}
			for _, c := range full.Checkpoints {
				if len(c.Files) > 0 {
					withFiles++
				}
			}
			if full.Seq < 200 {
				t.Fatalf("seed %d: only %d events; the generator is too timid to prove anything", seed, full.Seq)
			}
		})
	}
	if withFiles < 10 {
		t.Fatalf("only %d checkpoints list files; the property says little about them", withFiles)
	}
}

// history renders what the accessors say about one run.
func history(st *core.State, run string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, a := range st.AttemptsOf(run) {
		_ = enc.Encode(a)
		_ = enc.Encode(st.Attempt(a.ID))
		for _, n := range st.NodesOf(a.ID) {
			_ = enc.Encode(n)
			_ = enc.Encode(st.Node(n.ID))
		}
	}
	for _, e := range st.EffectsOf(run) {
		_ = enc.Encode(e)
		_ = enc.Encode(st.Effect(e.Key))
	}
	_ = enc.Encode(st.Plan(core.PlanID(run)))
	return b.String()
}
