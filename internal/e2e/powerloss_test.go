package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
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
	"github.com/nexus-tui/nexus/internal/powerloss"
	"github.com/nexus-tui/nexus/store"
	"github.com/nexus-tui/nexus/store/checkpoint"
	bolt "go.etcd.io/bbolt"
)

var powerCuts = flag.Int("powerloss-cuts", 50, "power-loss test: how many times to cut the power (-short: 10)")

// TestPowerLoss runs the crash workload with the state dir on a FUSE
// mount that remembers every write not yet fsynced (internal/powerloss).
// At random instants, or right after a random write to the journal (before
// the fsync that should follow it), it SIGKILLs the host's process tree
// and cuts the power: the mount goes away and every unsynced write is
// undone, so the state dir holds only what reached the disk. Then it
// opens the state dir directly and checks the crash invariants (every
// acknowledged command journaled, chain and snapshots valid, no effect
// twice), and restarts the host on the mount. A journal that acknowledged
// a commit before fsyncing it fails here, where a plain SIGKILL (whose
// writes the page cache keeps) would not notice.
//
// It needs /dev/fuse and root; where they are missing it fails and says
// so rather than skipping.
func TestPowerLoss(t *testing.T) {
	if err := powerloss.Check(); err != nil {
		t.Fatalf("the power-loss test needs FUSE: %v", err)
	}
	cuts := *powerCuts
	if testing.Short() && cuts > 10 {
		cuts = 10
	}
	seed := *crashSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("power loss: %d cuts, seed %d (reproduce with -run TestPowerLoss -seed %d -powerloss-cuts %d)", cuts, seed, seed, cuts)
	ws, disk, mnt := powerDirs(t)
	// The host sees its state dir on the mount; the checks read the same
	// files on the disk beneath it, after the cut.
	dir, diskDir := filepath.Join(mnt, "state"), filepath.Join(disk, "state")
	journal := filepath.Join("state", "journal.db")
	writes := watchWrites(t, ws)
	ops := workload(rand.New(rand.NewSource(seed)), ws, cuts*3+20, true)
	rng := rand.New(rand.NewSource(seed + 1))
	r := &runner{t: t, ops: ops, acked: map[string]bool{}}
	ctx := context.Background()
	var midCommit, journalLosses, changes, readyCheckpoints int
	var fsyncs int64
	for k := 0; k < cuts; k++ {
		m := mountPowerloss(t, disk, mnt)
		h := &powerHost{exited: make(chan struct{})}
		// Half the cuts come right after the n-th write to the journal
		// since this start, from inside that write: between bbolt's page
		// writes and their fsync, or between the meta page and its fsync.
		if rng.Intn(2) == 0 {
			n, seen := int64(1+rng.Intn(24)), new(atomic.Int64)
			m.OnWrite(func(rel string) {
				if rel == journal && seen.Add(1) == n {
					h.killNow()
				}
			})
		}
		if !h.start(t, dir, ws) {
			midCommit++ // cut while it recovered, before it served
			h.kill()
		} else {
			done := make(chan bool, 1)
			go func() { done <- r.advance(ctx, h.c) }()
			// The cut comes after a number of operations, not of
			// seconds, so a busy machine meets the same cases (the
			// shadow repository's packing among them) as an idle one.
			target := r.done.Load() + int64(1+rng.Intn(4))
			tick := time.NewTicker(2 * time.Millisecond)
		wait:
			for {
				select {
				case <-tick.C:
					if r.done.Load() >= target {
						break wait
					}
				case <-h.exited:
					h.mustBeKilled(t)
					midCommit++
					break wait
				case <-done:
					done <- true
					break wait
				}
			}
			tick.Stop()
			h.kill()
			<-done
		}
		fsyncs += m.Fsyncs()
		loss, err := m.Cut()
		if err != nil {
			t.Fatalf("seed %d cut %d: %v", seed, k, err)
		}
		changes += loss.Changes
		for _, f := range loss.Files {
			if f == journal {
				journalLosses++
			}
		}
		checkCrashInvariants(t, seed, k, diskDir, ws, r, writes)
		readyCheckpoints += checkCheckpointsSurvive(t, seed, k, diskDir, ws)
	}
	if cuts >= 10 && readyCheckpoints == 0 {
		t.Fatalf("seed %d: no workspace checkpoint was ever ready after a cut: the checkpoint check proves nothing", seed)
	}
	// The host recovers from the last cut, too.
	m := mountPowerloss(t, disk, mnt)
	h := &powerHost{exited: make(chan struct{})}
	if !h.start(t, dir, ws) {
		t.Fatalf("seed %d: the host restarted after the last cut exited", seed)
	}
	if _, err := h.c.State(ctx); err != nil {
		t.Fatalf("seed %d: the host restarted after the last cut does not answer: %v", seed, err)
	}
	h.kill()
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	checkCrashInvariants(t, seed, cuts, diskDir, ws, r, writes)
	t.Logf("%d of %d ops done, %d acknowledged; %d fsyncs served; %d cuts right after a journal write; "+
		"%d cuts took back unsynced journal writes; %d writes undone in all",
		r.next, len(ops), len(r.acked), fsyncs, midCommit, journalLosses, changes)
	if fsyncs == 0 {
		t.Fatalf("seed %d: the host never fsynced through the mount: the test proves nothing", seed)
	}
	if cuts >= 10 && journalLosses == 0 {
		t.Fatalf("seed %d: no cut ever caught an unsynced journal write: the test proves nothing", seed)
	}
	packs, _ := filepath.Glob(filepath.Join(diskDir, "checkpoints", "shadow", "*", "objects", "pack", "*.pack"))
	t.Logf("%d ready checkpoints checked; %d packs in the shadow repository", readyCheckpoints, len(packs))
	if cuts >= 10 && readyCheckpoints >= 10 && len(packs) == 0 {
		t.Fatalf("seed %d: the shadow repository was never packed: the cuts never met packing", seed)
	}
}

// TestPowerLossFreshStateDir cuts the power right after the first
// acknowledged intent on a state dir the host has just created. The
// journal file's name, and the state dir's own name, are durable only
// once the host fsyncs the state dir and its parent (the power-loss
// mount undoes directory entries not made durable), so this is what
// fails if the store stops doing so. TestPowerLoss may not notice: its
// checks open the journal on the disk after each cut, which recreates a
// lost journal file there, durable for every later start.
// checkCheckpointsSurvive checks, on the disk after a cut, that every
// checkpoint the journal calls ready still resolves by its ref (in the
// shadow repository under the state dir, or the git repository of the
// thread's workspace): the journal never outlives the ref it names. It returns how many it checked.
func checkCheckpointsSurvive(t *testing.T, seed int64, k int, dir, ws string) int {
	t.Helper()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatalf("seed %d cut %d: open: %v", seed, k, err)
	}
	st, err := core.Load(context.Background(), s)
	s.Close()
	if err != nil {
		t.Fatalf("seed %d cut %d: load: %v", seed, k, err)
	}
	m := checkpoint.New(dir, checkpoint.Options{})
	n := 0
	for _, c := range st.Checkpoints {
		if c.Status != core.CkReady || c.Ref == "" {
			continue
		}
		n++
		where := ws // a mission's threads work in its repository and worktrees
		if th := st.Threads[c.Thread]; th != nil && th.Workspace != "" {
			where = th.Workspace
		}
		d, err := m.Stats(context.Background(), where, "", c.Ref)
		if err != nil || d.To != c.Commit {
			t.Fatalf("seed %d cut %d: checkpoint %s is ready in the journal but its ref %s is lost after the cut: %v (commit %s, journal says %s)",
				seed, k, c.ID, c.Ref, err, d.To, c.Commit)
		}
	}
	return n
}

func TestPowerLossFreshStateDir(t *testing.T) {
	if err := powerloss.Check(); err != nil {
		t.Fatalf("the power-loss test needs FUSE: %v", err)
	}
	ws, disk, mnt := powerDirs(t)
	writes := watchWrites(t, ws)
	// The workload's first op creates a thread.
	r := &runner{t: t, ops: workload(rand.New(rand.NewSource(1)), ws, 1, true), acked: map[string]bool{}}
	m := mountPowerloss(t, disk, mnt)
	h := &powerHost{exited: make(chan struct{})}
	if !h.start(t, filepath.Join(mnt, "state"), ws) {
		t.Fatal("the host exited before it served")
	}
	if !r.advance(context.Background(), h.c) || len(r.acked) != 1 {
		t.Fatalf("the host did not acknowledge the first intent:\n%s", h.stderr.String())
	}
	h.kill()
	loss, err := m.Cut()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the cut took back entries %v and writes to %v", loss.Entries, loss.Files)
	checkCrashInvariants(t, 0, 0, filepath.Join(disk, "state"), ws, r, writes)
}

// powerDirs makes a workspace, a disk for the state dir and a mount
// point for the power-loss mount.
func powerDirs(t *testing.T) (ws, disk, mnt string) {
	t.Helper()
	root := t.TempDir()
	ws, disk, mnt = filepath.Join(root, "ws"), filepath.Join(root, "disk"), filepath.Join(root, "mnt")
	for _, d := range []string{ws, disk, mnt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, disk, mnt
}

// mountPowerloss mounts disk at mnt for one host's life; the cleanup
// unmounts it if the test stops early.
func mountPowerloss(t *testing.T, disk, mnt string) *powerloss.FS {
	t.Helper()
	m, err := powerloss.Mount(disk, mnt)
	if err != nil {
		t.Fatalf("the power-loss test needs FUSE: %v", err)
	}
	t.Cleanup(func() { m.Unmount() })
	return m
}

// powerHost is a `nexus serve` on the mount, killed from the test or
// from inside a write it is making.
type powerHost struct {
	cmd    *exec.Cmd
	pid    atomic.Int64 // process group, 0 until started
	killed atomic.Bool  // set before the kill is sent
	c      *api.Client  // nil until it serves
	stderr lockedBuffer
	exited chan struct{}
}

// start runs the host and waits until it serves (true), or until it is
// killed first (false). The host is killed when the test stops early, so
// the mount can go away.
func (h *powerHost) start(t *testing.T, dir, ws string) bool {
	t.Helper()
	h.cmd = exec.Command(nexusBin, "--state-dir", dir, "serve")
	h.cmd.Dir = ws
	// Shadow repositories are packed every few captures, so cuts land
	// in and around packing too. The missions' worktrees are work trees
	// like the workspace, beside it, not the state the cut tests: they go
	// on the disk that keeps what it is given ([worktree] dir).
	cfg := filepath.Join(filepath.Dir(ws), "config.toml")
	if err := os.WriteFile(cfg, []byte("[worktree]\ndir = \""+filepath.Join(filepath.Dir(ws), "worktrees")+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.cmd.Env = append(os.Environ(), "NEXUS_SNAPSHOT_EVERY=200", "NEXUS_CHECKPOINT_PACK_AFTER=24", "NEXUS_CONFIG="+cfg)
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	h.cmd.Stderr = &h.stderr
	t0 := time.Now()
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.pid.Store(int64(h.cmd.Process.Pid))
	go func() { h.cmd.Wait(); close(h.exited) }()
	t.Cleanup(h.killNow)
	for {
		c, err := api.Dial(context.Background(), filepath.Join(dir, host.SocketName), time.Second)
		if err == nil {
			h.c = c
			return true
		}
		select {
		case <-h.exited:
			h.mustBeKilled(t)
			return false
		default:
		}
		if time.Since(t0) > recoveryBudget {
			t.Fatalf("the host did not serve within %v after a power cut: %v", recoveryBudget, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mustBeKilled fails the test if the host exited on its own: after a
// power cut it must always come back.
func (h *powerHost) mustBeKilled(t *testing.T) {
	t.Helper()
	if !h.killed.Load() {
		t.Fatalf("the host exited by itself after a power cut: %v\n%s", h.cmd.ProcessState, h.stderr.String())
	}
}

// killNow sends SIGKILL to the host's process tree without waiting; it
// is safe on the FUSE server's goroutine, inside the host's own write.
func (h *powerHost) killNow() {
	h.killed.Store(true)
	if pid := h.pid.Load(); pid > 0 {
		syscall.Kill(-int(pid), syscall.SIGKILL)
	}
}

// kill ends the host's process tree and waits for the host to be reaped.
func (h *powerHost) kill() {
	h.killNow()
	<-h.exited
	if h.c != nil {
		h.c.Close()
	}
}

// TestPowerLossRepair runs `nexus verify --repair` on a corrupt journal
// whose state dir is on the power-loss mount and cuts the power as soon
// as it returns: the original that repair reports keeping aside must hold
// every byte of it, and the rebuilt journal must verify with as many
// events as before (the damaged one now a journal.repaired event). It is
// what fails if repair stops fsyncing the new journal or the state dir.
func TestPowerLossRepair(t *testing.T) {
	if err := powerloss.Check(); err != nil {
		t.Fatalf("the power-loss test needs FUSE: %v", err)
	}
	ws, disk, mnt := powerDirs(t)
	diskDir := filepath.Join(disk, "state")
	e := &env{t: t, dir: diskDir, ws: ws}
	for i := range 4 {
		e.must("thread", "new", "--title", fmt.Sprintf("t%d", i))
	}
	s, err := store.Open(diskDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	events := s.Last()
	s.Close()
	original := corruptEvent(t, filepath.Join(diskDir, store.JournalFile), 3)

	m := mountPowerloss(t, disk, mnt)
	e.dir = filepath.Join(mnt, "state")
	out := e.must("verify", "--repair")
	loss, err := m.Cut()
	if err != nil {
		t.Fatal(err)
	}
	_, backup, ok := strings.Cut(out, "the original is kept as ")
	if !ok {
		t.Fatalf("verify --repair did not name its copy: %q", out)
	}
	rel, err := filepath.Rel(mnt, strings.TrimSpace(backup))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(filepath.Join(disk, rel))
	if err != nil || !bytes.Equal(kept, original) {
		t.Fatalf("after a power cut the copy repair kept aside has %d of the original's %d bytes (%v; cut took back %+v): "+
			"repair must fsync the state dir before it replaces the journal", len(kept), len(original), err, loss)
	}
	s, err = store.Open(diskDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Verify(context.Background())
	if err != nil || !rep.OK || rep.Events != events {
		t.Fatalf("after repair and a power cut the journal verifies as %+v (%v), want OK with its %d events", rep, err, events)
	}
}

// corruptEvent flips the last byte of the stored event seq in the bbolt
// file at path and returns the file's new contents.
func corruptEvent(t *testing.T, path string, seq uint64) []byte {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var value []byte
	db.View(func(tx *bolt.Tx) error {
		key := binary.BigEndian.AppendUint64(nil, seq)
		value = bytes.Clone(tx.Bucket([]byte("events")).Get(key))
		return nil
	})
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Copy-on-write leaves older copies of the page in free pages; flip
	// the byte in every copy so the live one is certainly hit.
	if len(value) == 0 || !bytes.Contains(b, value) {
		t.Fatalf("cannot find event %d in %s to corrupt it", seq, path)
	}
	for rest := b; ; {
		at := bytes.Index(rest, value)
		if at < 0 {
			break
		}
		rest[at+len(value)-1] ^= 0xff
		rest = rest[at+len(value):]
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}
