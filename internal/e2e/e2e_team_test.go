package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nexus-tui/nexus/store/natsjournal"
)

// teamEnvs are two state dirs standing for two machines, on one hub and
// one project, sharing a workspace path.
func teamEnvs(t *testing.T, lease string) (*env, *env, *hubProc) {
	t.Helper()
	hub := startHubProc(t, t.TempDir())
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[team]\nurl = %q\ncredentials = %q\nproject = \"team-test\"\nlease = %q\n",
		hub.url, hub.host, lease)), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := newEnv(t), newEnv(t)
	b.ws = a.ws
	a.extra = append(a.extra, "NEXUS_CONFIG="+cfg)
	b.extra = append(b.extra, "NEXUS_CONFIG="+cfg)
	return a, b, hub
}

// Host A's journal is on the hub. A second host of the project is
// refused while A holds the project's lease, and told who holds it. A
// is killed with -9 while a command runs: `nexus serve --take-over` on
// host B waits for the lease, takes A's threads from the hub's journal,
// and the usual recovery follows: resume asks about the command whose
// outcome is unknown (it never reruns it), and the run completes on B.
func TestTeamTakeOverAfterKill(t *testing.T) {
	a, b, hub := teamEnvs(t, "2s")
	serveA := a.bg("serve")
	eventually(t, "host A serving", func() bool { return strings.Contains(serveA.so.String(), "serving") })
	th := a.must("thread", "new", "--yes", "--title", "on A")

	r := b.run("serve")
	if r.code != 4 || !strings.Contains(r.err, "is written by") || !strings.Contains(r.err, a.dir) || !strings.Contains(r.err, "--take-over") || !strings.Contains(r.err, "--project team-test") {
		t.Fatalf("a second host of the project: exit %d, stderr %q; want exit 4 naming host A's lease, --project and --take-over", r.code, r.err)
	}

	send := a.bg("send", th, "run `echo ran >> team-count.txt; sleep 4245`")
	eventually(t, "the command running on A", func() bool { return len(sleepers("4245")) > 0 })
	serveA.c.Process.Signal(syscall.SIGKILL)
	serveA.wait(t)
	send.wait(t)
	for _, pid := range sleepers("4245") {
		syscall.Kill(pid, syscall.SIGKILL) // the orphan of the killed host's worker
	}

	serveB := b.bg("serve", "--take-over")
	eventually(t, "host B serving after taking over", func() bool { return strings.Contains(serveB.so.String(), "serving") })
	defer func() {
		serveB.c.Process.Signal(syscall.SIGTERM)
		serveB.wait(t)
	}()
	if v := b.show("on A"); v.ID != th {
		t.Fatalf("host B shows thread %q as %s, want A's %s", "on A", v.ID, th)
	}
	r = b.run("resume", th)
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" || !strings.Contains(r.err, "unknown") {
		t.Fatalf("resume on B: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	b.must("respond", id, "--deny")
	eventually(t, "the run completed on B", func() bool { return b.show(th).Runs[0].Status == "completed" })
	if got, _ := b.readWS("team-count.txt"); got != "ran\n" {
		t.Fatalf("team-count.txt = %q: the command ran again after the take-over", got)
	}
	// The run's diff starts from a checkpoint made on A's disk: asked
	// through the hub, B's host says where it is, not that it is lost.
	r = b.run("--project", "team-test", "diff", th)
	if r.code != 1 || !strings.Contains(r.err, "took the project over") || strings.Contains(r.err, "garbage") {
		t.Fatalf("the diff of a run begun on A, from B's host: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	checkEpochs(t, hub, a.dir, b.dir)
}

// A host frozen past its lease (SIGSTOP, as a laptop lid or a long GC
// pause does) loses the project to another host; when it runs again it
// finds its lease gone, stops its agents, says so and exits non-zero,
// and the host that took over goes on writing.
func TestTeamStaleHostStops(t *testing.T) {
	a, b, hub := teamEnvs(t, "2s")
	serveA := a.bg("serve")
	eventually(t, "host A serving", func() bool { return strings.Contains(serveA.so.String(), "serving") })
	th := a.must("thread", "new", "--yes", "--title", "before the freeze")
	if err := serveA.c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	serveB := b.bg("serve", "--take-over")
	eventually(t, "host B serving after taking over", func() bool { return strings.Contains(serveB.so.String(), "serving") })
	defer func() {
		serveB.c.Process.Signal(syscall.SIGTERM)
		serveB.wait(t)
	}()
	if err := serveA.c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r := serveA.wait(t)
	if r.code == 0 || !strings.Contains(r.err, "lease") || !strings.Contains(r.err, "stopped its agents") {
		t.Fatalf("the stale host A: exit %d, stderr %q; want a non-zero exit saying it lost its lease and stopped its agents", r.code, r.err)
	}
	th2 := b.must("thread", "new", "--yes", "--title", "after the take-over")
	if v := b.show(th); v.Title != "before the freeze" {
		t.Fatalf("host B shows %q for A's thread", v.Title)
	}
	if v := b.show(th2); v.Title != "after the take-over" {
		t.Fatalf("host B cannot write after A came back: %q", v.Title)
	}
	checkEpochs(t, hub, a.dir, b.dir)
}

// checkEpochs reads which host wrote each message of the project's
// stream: A's, then B's from B's first (its writer note, the fence), and
// none of A's after that.
func checkEpochs(t *testing.T, hub *hubProc, aDir, bDir string) {
	t.Helper()
	nc, err := natsjournal.Connect(hub.url, natsjournal.ConnectOptions{Credentials: hub.viewer})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	j, err := natsjournal.Open(context.Background(), nc, "team-test", natsjournal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var writers []string
	for seq := uint64(1); ; seq++ {
		w, ok, err := j.Writer(context.Background(), seq)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		writers = append(writers, w)
	}
	firstB := -1
	for i, w := range writers {
		switch {
		case strings.Contains(w, bDir):
			if firstB < 0 {
				firstB = i
			}
		case strings.Contains(w, aDir):
			if firstB >= 0 {
				t.Fatalf("message %d of the stream was written by host A after host B's first (message %d): %v", i+1, firstB+1, writers)
			}
		default:
			t.Fatalf("message %d names no host of the test as its writer: %q", i+1, w)
		}
	}
	if firstB <= 0 {
		t.Fatalf("the stream has no messages of A before B's: %v", writers)
	}
}
