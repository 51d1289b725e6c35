package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// freePorts returns n ports free on loopback a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// hubCluster is three `nexus hub --cluster` child processes.
type hubCluster struct {
	hubs  map[string]*hubProc // by name
	urls  string              // every client URL, comma-separated
	creds string              // the host credentials
}

func startHubCluster(t *testing.T) *hubCluster {
	t.Helper()
	base := t.TempDir()
	ports := freePorts(t, 6)
	names := []string{"hub1", "hub2", "hub3"}
	c := &hubCluster{hubs: map[string]*hubProc{}}
	var urls []string
	for i, name := range names {
		dir := filepath.Join(base, name)
		if i > 0 { // the first hub's credentials, as the README says
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"host.creds", "sender.creds", "viewer.creds"} {
				b, err := os.ReadFile(filepath.Join(base, names[0], f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		var routes []string
		for k := range names {
			if k != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[3+k]))
			}
		}
		h := startHubProcAt(t, dir, fmt.Sprintf("127.0.0.1:%d", ports[i]), "--cluster", "team", "--name", name,
			"--cluster-listen", fmt.Sprintf("127.0.0.1:%d", ports[3+i]), "--routes", strings.Join(routes, ","))
		c.hubs[name] = h
		urls = append(urls, h.url)
		c.creds = h.host
	}
	c.urls = strings.Join(urls, ",")
	return c
}

// openClustered opens a journal replicated on the three hubs, retrying
// while the cluster elects its leaders (a count of tries, not a time).
func openClustered(t *testing.T, c *hubCluster, project string) *natsjournal.Journal {
	t.Helper()
	nc, err := natsjournal.Connect(c.urls, natsjournal.ConnectOptions{Credentials: c.creds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var last error
	for range 60 {
		j, err := natsjournal.Open(context.Background(), nc, project, natsjournal.Options{Replicas: 3, Timeout: 5 * time.Second})
		if err == nil {
			t.Cleanup(func() { _ = j.Close() })
			return j
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("the cluster never took the journal: %v", last)
	return nil
}

// Three hubs as child processes keep a journal on all three. 64 writers
// append while the stream's leader is killed with -9: every append that
// was acknowledged is in the journal afterwards, once, in order, and the
// chain verifies; writes go on with the two hubs left. With a second hub
// stopped, the one left cannot commit (no quorum): the append gets no
// answer and says it may or may not be stored; with the hub back, the
// journal goes on, holding that append at most once and in its place.
func TestHubClusterLeaderKill(t *testing.T) {
	c := startHubCluster(t)
	j := openClustered(t, c, "/home/team/project")
	ctx := context.Background()

	const writers, each = 64, 8
	var (
		mu      sync.Mutex // one journal: a writer takes the next seq and appends under it
		acked   = map[string]uint64{}
		failed  int
		killAt  time.Time     // when the leader was killed
		resumed time.Duration // from the kill to the first append acknowledged after it
		killed  = make(chan string, 1)
		wg      sync.WaitGroup
		started sync.WaitGroup
	)
	appendOne := func(w, k int) bool {
		mu.Lock()
		defer mu.Unlock()
		seq := j.Last() + 1
		id := fmt.Sprintf("w%d-%d", w, k)
		ev := core.Event{Seq: seq, ID: id, Type: core.EvRuntimeWarning, Thread: fmt.Sprintf("t%d", w), At: int64(seq), Payload: core.Payload{Note: id}}
		err := j.Append(ctx, []core.Commit{{Command: id, Events: []core.Event{ev}}})
		if errors.Is(err, natsjournal.ErrDuplicate) {
			// An attempt the election left unanswered was stored after
			// all: the receipt keeps it once. Its seq is checked below.
			acked[id] = 0
			return true
		}
		if err != nil {
			failed++
			return false
		}
		acked[id] = seq
		if !killAt.IsZero() && resumed == 0 {
			resumed = time.Since(killAt)
		}
		return true
	}
	started.Add(writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			for k := 0; k < each; {
				// A writer retries a failed append, up to a bound:
				// the cluster needs an election after the kill.
				for tries := 0; ; tries++ {
					if appendOne(w, k) {
						break
					}
					if tries > 2400 { // two minutes of 50 ms pauses: an election takes seconds
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				k++
				if w == 0 && k == 2 {
					leader, err := j.Leader(ctx)
					if err != nil || c.hubs[leader] == nil {
						t.Errorf("no leader to kill (%q, %v)", leader, err)
						continue
					}
					mu.Lock()
					c.hubs[leader].kill()
					killAt = time.Now()
					mu.Unlock()
					killed <- leader
				}
			}
		}()
	}
	started.Wait()
	wg.Wait()
	leader := <-killed
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < writers*each {
		t.Fatalf("with %s killed only %d of %d appends were acknowledged (%d attempts failed): the two hubs left did not go on", leader, len(acked), writers*each, failed)
	}
	// The first read may meet the cluster still moving the stream's
	// consumers off the killed hub: a few tries, counted.
	var read []core.Event
	var err error
	for try := 0; try < 5; try++ {
		read = read[:0]
		if err = j.Read(ctx, 1, func(ev core.Event) error { read = append(read, ev); return nil }); err == nil {
			break
		}
		t.Logf("read %d after the leader's kill: %v", try+1, err)
	}
	if err != nil {
		t.Fatalf("read after the leader's kill (chain checked): %v", err)
	}
	seen := map[string]bool{}
	for i, ev := range read {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: the journal has a gap", i+1, ev.Seq)
		}
		if seen[ev.ID] {
			t.Fatalf("%s is in the journal twice", ev.ID)
		}
		seen[ev.ID] = true
	}
	for id, seq := range acked {
		if seq == 0 && seen[id] {
			continue
		}
		if seq == 0 || seq > uint64(len(read)) || read[seq-1].ID != id {
			t.Fatalf("acknowledged append %s at seq %d is not in the journal after %s was killed", id, seq, leader)
		}
	}
	t.Logf("killed the leader %s; %d appends acknowledged, %d attempts failed during the election; the first append after the kill was acknowledged %v after it",
		leader, len(acked), failed, resumed.Round(time.Millisecond))

	// A minority cannot commit: stop one of the two left.
	var stopped *hubProc
	for name, h := range c.hubs {
		if name != leader {
			stopped = h
			break
		}
	}
	if err := stopped.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer stopped.cmd.Process.Signal(syscall.SIGCONT)
	before := j.Last()
	ev := core.Event{Seq: before + 1, ID: "minority", Type: core.EvRuntimeWarning, At: 1, Payload: core.Payload{Note: "minority"}}
	err = j.Append(ctx, []core.Commit{{Command: "minority", Events: []core.Event{ev}}})
	if err == nil {
		t.Fatal("one hub of three committed an append alone")
	}
	if !errors.Is(err, natsjournal.ErrMaybeStored) {
		t.Fatalf("the minority's append failed for another reason than no quorum answering: %v", err)
	}
	if err := stopped.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for range 120 {
		if err = j.Append(ctx, []core.Commit{{Command: "after", Events: []core.Event{{Seq: j.Last() + 1, ID: "after",
			Type: core.EvRuntimeWarning, At: 1, Payload: core.Payload{Note: "after"}}}}}); err == nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("with two hubs up again the journal takes no append: %v", err)
	}
	var notes []string
	if err := j.Read(ctx, before, func(ev core.Event) error { notes = append(notes, ev.Payload.Note); return nil }); err != nil {
		t.Fatal(err)
	}
	// The leader had taken the minority's append into its log: when the
	// quorum came back it may have committed it (Raft does), once and in
	// its place, never after "after".
	tail := strings.Join(notes, ",")
	if last := read[before-1].Payload.Note; tail != last+",after" && tail != last+",minority,after" {
		t.Fatalf("after the minority's unanswered append the journal's tail is %v, want %s then (perhaps minority then) after", notes, last)
	}
}
