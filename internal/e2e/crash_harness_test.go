package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/providers/builtin"
)

// maxCrashThreads caps the threads the workload creates and forks: past
// it, a long loop's state grows in runs only, so a restart late in a
// nightly-size loop costs about what it costs early.
const maxCrashThreads = 60

// op is one step of the crash workload. Its command id is fixed, so a
// retry after a crash is answered by the journal's receipt, not done twice.
type op struct {
	id     string
	cmd    *core.Command // submitted as is (nil for wait)
	wait   string        // thread to wait for: no active, queued or resumable run
	thread string
	// mission to wait for: ended (its threads resumed after a crash)
	mission string
}

// workload builds a deterministic script: threads that write unique files
// and append unique lines to a counter, sent at once or queued behind the
// active run, with approvals, questions, subagents (whose write steps get
// a node checkpoint of their own), forks and renames; the kills
// interrupt runs mid-step, and settle resumes them. slow paces the
// agent's steps so kills land mid-step; the reference run drops it.
//
// Not in it, on purpose: steering and restarts (whether a message finds
// its run still active is timing, so the uncrashed reference could not
// take the same path) and rollbacks (every thread shares one workspace, so
// a restore legitimately rewrites files the "written once" check counts).
// TestE2ERollbackCrash kills the host at each rollback failpoint instead,
// and the e2e tests cover steering and restarts.
func workload(rng *rand.Rand, ws string, n int, slow bool) []op {
	mrepo, base := missionRepo(ws)
	var ops []op
	var threads []string
	k := 0
	pace := func() string {
		ms := 10 + rng.Intn(70) // drawn either way, so both scripts stay aligned
		if slow {
			return fmt.Sprintf("#slow=%dms ", ms)
		}
		return ""
	}
	for len(ops) < n {
		k++
		id := fmt.Sprintf("op%d", k)
		r := rng.Intn(10)
		if len(threads) >= maxCrashThreads && (r == 0 || r == 6 || r == 7) {
			r = 1 + rng.Intn(5) // a send instead: the state stops growing in threads
		}
		switch {
		case len(threads) == 0 || r == 0:
			th := fmt.Sprintf("c%d", k)
			threads = append(threads, th)
			ops = append(ops, op{id: id, thread: th, cmd: &core.Command{Kind: core.CmdThreadCreate, NewThread: th,
				Provider: "builtin", Caps: builtin.Caps, Workspace: ws, Allow: []string{"write", "command"}}})
		case r <= 5:
			th := threads[rng.Intn(len(threads))]
			text := fmt.Sprintf("%swrite w%d to f%d.txt and run `echo k%d >> counter.txt`", pace(), k, k, k)
			if rng.Intn(4) == 0 {
				text = fmt.Sprintf("%swrite w%d to f%d.txt", pace(), k, k)
			}
			if rng.Intn(6) == 0 {
				text = "#approve " + text
			}
			if rng.Intn(8) == 0 {
				text = "#ask=Which colour? " + text
			}
			if rng.Intn(5) == 0 {
				text = "#subagent " + text // its steps nest under a node that gets a checkpoint of its own
			}
			ops = append(ops, op{id: id, thread: th, cmd: &core.Command{Kind: core.CmdMessageSend, Thread: th, Text: text}})
			if rng.Intn(3) == 0 {
				k++
				ops = append(ops, op{id: fmt.Sprintf("op%d", k), thread: th, cmd: &core.Command{Kind: core.CmdMessageSend,
					Thread: th, Mode: core.ModeQueue, Text: fmt.Sprintf("write q%d to g%d.txt", k, k)}})
			}
			ops = append(ops, op{id: id + "w", wait: th})
		case r == 8 && rng.Intn(2) == 0:
			// A mission in the missions' repository: a split of two
			// tasks, or a race of two built-in agents.
			m := &core.Mission{ID: fmt.Sprintf("m%d", k), Strategy: core.StrategySplit,
				Goal:      fmt.Sprintf("%swrite a%d to ma%d.txt and write b%d to mb%d.txt", pace(), k, k, k, k),
				Workspace: mrepo, Repo: mrepo, Base: base, Verify: fmt.Sprintf("test -f ma%d.txt", k), AutoApprove: true,
				Allow: []string{"write", "command"}, MaxAttempts: 2,
				Agents:  []core.MissionAgent{{Name: "builtin", Provider: "builtin", Caps: builtin.Caps}},
				Planner: &core.MissionAgent{Name: "builtin", Provider: "builtin", Caps: builtin.Caps}}
			if rng.Intn(2) == 0 {
				m.Strategy, m.Planner, m.Goal = core.StrategyRace, nil, fmt.Sprintf("write a%d to ma%d.txt", k, k)
				m.Agents = append(m.Agents, m.Agents[0])
			}
			ops = append(ops, op{id: id, cmd: &core.Command{Kind: core.CmdMissionCreate, NewMission: m}},
				op{id: id + "w", mission: m.ID})
		case r <= 7:
			th := threads[rng.Intn(len(threads))]
			nt := fmt.Sprintf("c%d", k)
			threads = append(threads, nt)
			ops = append(ops, op{id: id, thread: nt, cmd: &core.Command{Kind: core.CmdThreadFork, Thread: th, NewThread: nt}})
		default:
			th := threads[rng.Intn(len(threads))]
			ops = append(ops, op{id: id, thread: th, cmd: &core.Command{Kind: core.CmdThreadRename, Thread: th,
				Title: fmt.Sprintf("renamed %d", k)}})
		}
	}
	return ops
}

// host is a `nexus serve` process and a client of it.
type crashHost struct {
	cmd *exec.Cmd
	c   *api.Client
}

func startCrashHost(t *testing.T, dir, ws string, env ...string) (*crashHost, time.Duration) {
	t.Helper()
	cmd := exec.Command(nexusBin, "--state-dir", dir, "serve")
	cmd.Dir = ws
	cmd.Env = append(append(os.Environ(), "NEXUS_SNAPSHOT_EVERY=200"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for {
		c, err := api.Dial(ctx, filepath.Join(dir, host.SocketName), time.Second)
		if err == nil {
			return &crashHost{cmd: cmd, c: c}, time.Since(t0)
		}
		if time.Since(t0) > 20*time.Second {
			t.Fatalf("host did not come up in 20s: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// kill ends the host and everything it started (workers and their
// commands) the way a crash of the machine's process tree would.
func (h *crashHost) kill() {
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	h.cmd.Wait()
	h.c.Close()
}

// runner drives the script against hosts, resubmitting the first op that
// was not acknowledged after each restart.
type runner struct {
	t    *testing.T
	ops  []op
	next int
	// done counts the ops done, for a test goroutine to read while
	// advance runs.
	done   atomic.Int64
	acked  map[string]bool
	fresh  []string        // acknowledged since the last check
	answer map[string]bool // request ids answered (acked)
	// v follows the current host's journal; one subscription per host,
	// not one per wait: a fresh snapshot each time would make the loop
	// quadratic in the journal's size.
	v    *view
	vc   *api.Client
	seen uint64 // the highest seq a receipt named: the view must reach it
}

// ack records that the host acknowledged command id.
func (r *runner) ack(id string) {
	r.acked[id] = true
	r.fresh = append(r.fresh, id)
}

// advance runs ops until the script ends or the host is gone. It returns
// false when the host died under it.
func (r *runner) advance(ctx context.Context, c *api.Client) bool {
	for r.next < len(r.ops) {
		o := r.ops[r.next]
		if o.cmd != nil {
			cmd := *o.cmd
			cmd.ID = o.id
			rec, err := c.Submit(ctx, cmd)
			if err != nil {
				return false
			}
			r.ack(o.id)
			r.seen = max(r.seen, rec.Seq)
		} else if o.mission != "" {
			if !r.settleMission(ctx, c, o.mission) {
				return false
			}
		} else if !r.settle(ctx, c, o.wait) {
			return false
		}
		r.next++
		r.done.Add(1)
	}
	return true
}

// view is a client's live projection: a subscription's snapshot plus
// every event after it.
type view struct {
	st  *core.State
	sub *core.Subscription
}

// follow subscribes to a new host. The first host sends its projection;
// later ones only the events after the view's seq, so attaching costs the
// journal's new tail, not its whole size: a fresh projection per restart
// would make a long loop spend its kill windows copying state.
func (r *runner) follow(ctx context.Context, c *api.Client) error {
	var from uint64
	if r.v != nil {
		from = r.v.st.Seq + 1
	}
	sub, err := c.Subscribe(ctx, from)
	if err != nil {
		return err
	}
	if r.v == nil {
		r.v = &view{st: sub.State}
	}
	r.v.sub, r.vc = sub, c
	return nil
}

// next applies the events that arrive within d; false when the host is gone.
func (v *view) next(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-v.sub.Events:
			if !ok {
				return false
			}
			if ev.Seq > 0 {
				if err := v.st.Apply(&ev); err != nil {
					return false
				}
			}
		case <-timer.C:
			return true
		}
	}
}

// settle waits until a thread has nothing active, answering what it asks
// (approvals allowed, questions answered, unknown command outcomes
// skipped) and resuming what a crash interrupted.
func (r *runner) settle(ctx context.Context, c *api.Client, thread string) bool {
	if r.vc != c {
		if err := r.follow(ctx, c); err != nil {
			return false
		}
	}
	v := r.v
	for v.st.Seq < r.seen {
		if !v.next(20 * time.Millisecond) {
			return false
		}
	}
	asked := map[string]bool{}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		st := v.st
		busy := false
		for _, run := range st.RunsOf(thread) {
			switch {
			case run.Status == core.RunQueued && !run.Held:
				busy = true
			case run.Status == core.RunInterrupted && run.Recoverable:
				busy = true
				if !asked[run.ID+"resume"] {
					asked[run.ID+"resume"] = true
					if _, err := c.Submit(ctx, core.Command{ID: core.NewID("resume"), Kind: core.CmdRunResume, Thread: thread}); err != nil {
						return false
					}
				}
			case run.Status == core.RunRunning:
				busy = true
			case run.Status == core.RunWaiting:
				busy = true
				for _, q := range st.RequestsOf(run.ID) {
					if q.Status != core.RequestPending || asked[q.ID] {
						continue
					}
					asked[q.ID] = true
					cmd := core.Command{ID: "answer-" + q.ID, Kind: core.CmdRequestRespond, Request: q.ID, Response: core.RespAllow}
					switch {
					case q.Kind == core.RequestUserInput:
						cmd.Response, cmd.Answer = core.RespAnswer, "blue"
					case strings.HasPrefix(q.Key, "unknown:"):
						cmd.Response = core.RespDeny
					}
					rec, err := c.Submit(ctx, cmd)
					if err != nil {
						return false
					}
					r.ack(cmd.ID)
					r.seen = max(r.seen, rec.Seq)
				}
			}
		}
		if !busy {
			return true
		}
		if !v.next(20 * time.Millisecond) {
			return false
		}
	}
	r.t.Fatalf("thread %s did not settle in 60s", thread)
	return false
}
