package e2e

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store"
)

var (
	crashKills = flag.Int("kills", 1000, "crash loop: how many times to SIGKILL the host (-short: 40)")
	crashSeed  = flag.Int64("seed", 0, "crash loop: the seed to reproduce (0: from the clock)")
)

// maxKillDelayMS bounds the random instant of a kill after the restarted
// host answers: long enough for several paced steps (10 to 80 ms each),
// short enough that most kills land mid-step or mid-recovery. On a busy
// machine an op may take longer than that every time: each kill after
// which no op completed doubles the bound (up to maxKillDelayCapMS), and
// one that saw progress brings it back, so the loop moves on under any
// load and still kills at random points of each op.
const (
	maxKillDelayMS    = 200
	maxKillDelayCapMS = 20000
)

// recoveryBudget is how long a restarted host may take to serve again.
const recoveryBudget = 10 * time.Second

// TestCrashLoop runs a mixed workload on the built-in agent, SIGKILLs the
// host at random instants, restarts it, and after every restart checks:
// no acknowledged intent lost; seq gapless, hash chain valid and bbolt
// consistent; every snapshot equal to a full replay; no file written twice,
// no command line appended twice, one journaled model response per
// planning call; recovery within its budget. A final uninterrupted pass
// must end in the same state as a run that never crashed.
func TestCrashLoop(t *testing.T) {
	kills := *crashKills
	if testing.Short() && kills > 40 {
		kills = 40
	}
	seed := *crashSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("crash loop: %d kills, seed %d (reproduce with -run TestCrashLoop -seed %d -kills %d)", kills, seed, seed, kills)
	crashLoop(t, kills, seed, newChecker())
}

// crashLoop is TestCrashLoop's loop: kills kills of hosts started with
// env, checks runs after every restart.
func crashLoop(t *testing.T, kills int, seed int64, checks *checker, env ...string) {
	root := t.TempDir()
	ws, dir := filepath.Join(root, "ws"), filepath.Join(root, "state")
	os.MkdirAll(ws, 0o755)
	writes := watchWrites(t, ws)
	ops := workload(rand.New(rand.NewSource(seed)), ws, kills*3+20, true)
	rng := rand.New(rand.NewSource(seed + 1))
	r := &runner{t: t, ops: ops, acked: map[string]bool{}}
	ctx := context.Background()
	var tStart, tRun, tCheck time.Duration
	defer func() { t.Logf("time in host start %v, workload %v, checks %v", tStart, tRun, tCheck) }()
	delayMS := maxKillDelayMS
	for k := 0; k < kills; k++ {
		t0 := time.Now()
		h, took := startCrashHost(t, dir, ws, env...)
		tStart += time.Since(t0)
		t0 = time.Now()
		if took > recoveryBudget {
			t.Fatalf("seed %d kill %d: recovery took %v, over %v", seed, k, took, recoveryBudget)
		}
		done := make(chan bool, 1)
		before := r.next
		go func() { done <- r.advance(ctx, h.c) }()
		select {
		case <-time.After(time.Duration(rng.Intn(delayMS)) * time.Millisecond):
		case <-done:
			done <- true
		}
		h.kill()
		<-done
		if r.next > before {
			delayMS = maxKillDelayMS
		} else {
			delayMS = min(delayMS*2, maxKillDelayCapMS)
		}
		tRun += time.Since(t0)
		t0 = time.Now()
		checks.check(t, seed, k, dir, ws, r, writes, false)
		tCheck += time.Since(t0)
		if every := max(kills/10, 1); (k+1)%every == 0 {
			t.Logf("kill %d: op %d of %d; so far: host start %v, workload %v, checks %v",
				k+1, r.next, len(ops), tStart.Round(time.Millisecond), tRun.Round(time.Millisecond), tCheck.Round(time.Millisecond))
		}
	}
	// The script ends with the op in flight at the last kill: the final
	// pass finishes it and the reference runs the same prefix.
	ops = ops[:min(r.next+1, len(ops))]
	r.ops = ops
	// The final, uninterrupted pass.
	h, _ := startCrashHost(t, dir, ws, env...)
	if !r.advance(ctx, h.c) {
		t.Fatalf("seed %d: the final pass lost its host", seed)
	}
	for _, o := range ops {
		if o.thread != "" {
			r.settle(ctx, h.c, o.thread)
		}
		if o.mission != "" && o.cmd == nil {
			r.settleMission(ctx, h.c, o.mission)
		}
	}
	got, err := h.c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.kill()
	checks.check(t, seed, kills, dir, ws, r, writes, true)
	recovered, unknown := 0, 0
	for _, a := range got.Attempts {
		if a.Reason == core.ReasonProviderRecovery {
			recovered++
		}
	}
	for _, q := range got.Requests {
		if strings.HasPrefix(q.Key, "unknown:") {
			unknown++
		}
	}
	completed := 0
	for _, m := range got.Missions {
		if m.Status == core.MissionCompleted {
			completed++
		}
	}
	t.Logf("%d ops, %d threads, %d runs, %d missions (%d completed), %d recovery attempts, %d unknown command outcomes asked, %d events",
		len(ops), len(got.Threads), len(got.Runs), len(got.Missions), completed, recovered, unknown, got.Seq)
	if kills >= 100 && completed == 0 {
		t.Fatalf("seed %d: %d kills and no mission completed: the loop does not test missions", seed, kills)
	}
	if kills >= 20 && recovered == 0 {
		t.Fatalf("seed %d: %d kills and not one run was interrupted mid-turn: the loop proves nothing", seed, kills)
	}
	compareWithReference(t, seed, ops, got, ws)
}

// checker checks the invariants after every restart, a tail at a time,
// so a nightly-size loop costs the same per kill at the end as at the
// start: the journal's new events (store.Verifier), the intents
// acknowledged since the last check, the runs the new events touched. A
// full Verify (whole chain, every snapshot, replay) runs every
// fullVerifyEvery checks and at the end.
type checker struct {
	v *store.Verifier
	n int
	// hub, when set, checks the project's journal on a hub instead of
	// the state dir's (natsjournal.Verifier).
	hub *hubCheck
}

const fullVerifyEvery = 250

func newChecker() *checker { return &checker{v: store.NewVerifier()} }

// checkCrashInvariants checks the whole journal once, for harnesses whose
// journal may legitimately lose its unacknowledged tail between checks
// (power loss), which an incremental check would call damage.
func checkCrashInvariants(t *testing.T, seed int64, k int, dir, ws string, r *runner, writes *writeCounter) {
	t.Helper()
	newChecker().check(t, seed, k, dir, ws, r, writes, true)
}

func (c *checker) check(t *testing.T, seed int64, k int, dir, ws string, r *runner, writes *writeCounter, full bool) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Fatalf("seed %d kill %d: %s", seed, k, fmt.Sprintf(format, args...))
	}
	ctx := context.Background()
	c.n++
	full = full || c.n%fullVerifyEvery == 0
	var st *core.State
	touched, acked := map[string]bool{}, r.fresh
	if full {
		acked = slices.Collect(maps.Keys(r.acked))
	}
	if c.hub != nil {
		var err error
		if st, err = c.hub.check(ctx, full, touched); err != nil {
			fail("the hub's journal: %v", err)
		}
		c.checkOutcomes(fail, st, acked, touched, ws, r, writes)
		return
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		fail("open: %v", err)
	}
	defer s.Close()
	if full {
		// The whole journal: every acknowledged intent, every run.
		if rep, err := s.Verify(ctx); err != nil || !rep.OK {
			fail("verify: %v %+v", err, rep)
		}
		if st, err = core.Load(ctx, s); err != nil {
			fail("load: %v", err)
		}
		for id := range st.Runs {
			touched[id] = true
		}
	} else {
		rep, err := c.v.Check(ctx, s, func(ev *core.Event) {
			if ev.Run != "" {
				touched[ev.Run] = true
			}
		})
		if err != nil || !rep.OK {
			fail("verify the new events: %v %+v", err, rep)
		}
		st = c.v.State()
	}
	c.checkOutcomes(fail, st, acked, touched, ws, r, writes)
}

// checkOutcomes checks what the journal st says against the workspace:
// every acknowledged intent in it, one model response per planning
// call of the runs touched, no command run twice, no file written twice.
func (c *checker) checkOutcomes(fail func(string, ...any), st *core.State, acked []string, touched map[string]bool, ws string, r *runner, writes *writeCounter) {
	for _, id := range acked {
		if st.Receipts[id] == nil {
			fail("acknowledged command %s is not in the journal", id)
		}
	}
	r.fresh = r.fresh[:0]
	// One journaled model response per planning call.
	for run := range touched {
		seen := map[string]bool{}
		for _, a := range st.AttemptsOf(run) {
			for _, n := range st.NodesOf(a.ID) {
				if n.Kind == core.NodeLLMCall {
					if seen[n.Key] {
						fail("run %s journaled model response %s twice", run, n.Key)
					}
					seen[n.Key] = true
				}
			}
		}
	}
	// No command ran twice, no file was written twice.
	if b, err := os.ReadFile(filepath.Join(ws, "counter.txt")); err == nil {
		lines := map[string]bool{}
		for _, l := range strings.Fields(string(b)) {
			if lines[l] {
				fail("command %s ran twice", l)
			}
			lines[l] = true
		}
	}
	writes.mu.Lock()
	for name, n := range writes.counts {
		if (strings.HasPrefix(name, "f") || strings.HasPrefix(name, "g")) && strings.HasSuffix(name, ".txt") && n > 1 {
			writes.mu.Unlock()
			fail("%s written %d times", name, n)
		}
	}
	writes.mu.Unlock()
}

// compareWithReference runs the same script without crashes (and without
// pacing) and compares what a user would see: every thread's runs and
// replies, and every file. Runs whose command a crash left with an unknown
// outcome were skipped on purpose and are compared by status only.
func compareWithReference(t *testing.T, seed int64, ops []op, got *core.State, ws string) {
	t.Helper()
	root := t.TempDir()
	refWS, refDir := filepath.Join(root, "ws"), filepath.Join(root, "state")
	os.MkdirAll(refWS, 0o755)
	refOps := workload(rand.New(rand.NewSource(seed)), refWS, len(ops), false)[:len(ops)]
	// The workload embeds the workspace path; keep ids and texts aligned.
	r := &runner{t: t, ops: refOps, acked: map[string]bool{}}
	h, _ := startCrashHost(t, refDir, refWS)
	defer h.kill()
	ctx := context.Background()
	if !r.advance(ctx, h.c) {
		t.Fatal("reference run lost its host")
	}
	for _, o := range refOps {
		if o.thread != "" {
			r.settle(ctx, h.c, o.thread)
		}
		if o.mission != "" && o.cmd == nil {
			r.settleMission(ctx, h.c, o.mission)
		}
	}
	want, err := h.c.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range sortedThreadIDs(want) {
		wr, gr := want.RunsOf(id), got.RunsOf(id)
		if len(wr) != len(gr) {
			t.Fatalf("seed %d: thread %s has %d runs, the uncrashed run %d", seed, id, len(gr), len(wr))
		}
		for i := range wr {
			skipped := strings.Contains(gr[i].Reply, "skipped by the user")
			if gr[i].Status != wr[i].Status && !skipped {
				t.Fatalf("seed %d: %s run %d is %s, uncrashed %s", seed, id, i+1, gr[i].Status, wr[i].Status)
			}
			if !skipped && gr[i].Reply != wr[i].Reply {
				t.Fatalf("seed %d: %s run %d replied\n%q\nuncrashed\n%q", seed, id, i+1, gr[i].Reply, wr[i].Reply)
			}
		}
	}
	if err := checkMissions(seed, got, want, ws, refWS); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	entries, _ := os.ReadDir(refWS)
	for _, e := range entries {
		if e.Name() == "counter.txt" {
			continue
		}
		wb, _ := os.ReadFile(filepath.Join(refWS, e.Name()))
		gb, err := os.ReadFile(filepath.Join(ws, e.Name()))
		if err != nil || string(gb) != string(wb) {
			t.Fatalf("seed %d: %s = %q, uncrashed %q (%v)", seed, e.Name(), gb, wb, err)
		}
	}
}

func sortedThreadIDs(st *core.State) []string {
	var ids []string
	for id := range st.Threads {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
