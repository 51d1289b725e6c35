package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// hubProc is a `nexus hub` child process of a test.
type hubProc struct {
	cmd                       *exec.Cmd
	url, host, sender, viewer string // from what it printed
}

var (
	hubURL   = regexp.MustCompile(`^nexus hub: serving (\S+) `)
	hubCreds = regexp.MustCompile(`^(host|sender|viewer) credentials.*: (\S+)$`)
)

// startHubProc runs `nexus hub` on dir and a free port, waits for the
// lines it prints when it serves, and kills it when the test ends.
func startHubProc(t *testing.T, dir string, extra ...string) *hubProc {
	t.Helper()
	return startHubProcAt(t, dir, "127.0.0.1:0", extra...)
}

// startHubProcAt is startHubProc listening on listen.
func startHubProcAt(t *testing.T, dir, listen string, extra ...string) *hubProc {
	t.Helper()
	cmd := exec.Command(nexusBin, append([]string{"hub", "--dir", dir, "--listen", listen}, extra...)...)
	cmd.Env = append(os.Environ(), "NEXUS_STATE_DIR="+filepath.Join(dir, "state"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hubProc{cmd: cmd}
	t.Cleanup(func() { h.kill() })
	sc := bufio.NewScanner(out)
	for h.host == "" || h.sender == "" || h.viewer == "" {
		if !sc.Scan() {
			h.kill()
			t.Fatalf("nexus hub ended before it served: %v\n%s", sc.Err(), stderr.String())
		}
		if m := hubURL.FindStringSubmatch(sc.Text()); m != nil {
			h.url = m[1]
		}
		if m := hubCreds.FindStringSubmatch(sc.Text()); m != nil {
			switch m[1] {
			case "host":
				h.host = m[2]
			case "sender":
				h.sender = m[2]
			default:
				h.viewer = m[2]
			}
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return h
}

// kill ends the hub with SIGKILL (a crash or a power cut, as far as its
// clients can tell) and reaps it; calls after the first do nothing.
func (h *hubProc) kill() {
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.cmd.Process.Signal(syscall.SIGKILL)
	_ = h.cmd.Wait()
}

// `nexus hub` serves a journal to a host's credentials; killed with -9
// and started again on its dir, it has every acknowledged commit, the
// chain verifies, and the credentials are the same files.
func TestHubKeepsAcknowledgedCommitsAcrossKill(t *testing.T) {
	dir := t.TempDir()
	h := startHubProc(t, dir)
	nc, err := natsjournal.Connect(h.url, natsjournal.ConnectOptions{Credentials: h.host})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j, err := natsjournal.Open(ctx, nc, "/home/dev/project", natsjournal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var acked []core.Event
	for i := 1; i <= 40; i++ {
		ev := core.Event{Seq: uint64(i), ID: fmt.Sprintf("e%d", i), Type: core.EvRuntimeWarning, Thread: fmt.Sprintf("t%d", i%3),
			At: int64(i), Payload: core.Payload{Note: fmt.Sprintf("note %d", i)}}
		if err := j.Append(ctx, []core.Commit{{Command: fmt.Sprintf("c%d", i), Events: []core.Event{ev}}}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		acked = append(acked, ev)
	}
	_ = j.Close()
	nc.Close()
	h.kill()

	h2 := startHubProc(t, dir)
	if h2.host != h.host {
		t.Fatalf("the restarted hub named other credentials: %s, then %s", h.host, h2.host)
	}
	nc2, err := natsjournal.Connect(h2.url, natsjournal.ConnectOptions{Credentials: h2.host})
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	j2, err := natsjournal.Open(ctx, nc2, "/home/dev/project", natsjournal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if j2.Last() != 40 {
		t.Fatalf("after kill -9 and a restart the journal ends at seq %d, want 40", j2.Last())
	}
	var got []string
	if err := j2.Read(ctx, 1, func(ev core.Event) error {
		got = append(got, ev.Payload.Note)
		return nil
	}); err != nil {
		t.Fatalf("read (the chain checked) after the restart: %v", err)
	}
	for i, ev := range acked {
		if i >= len(got) || got[i] != ev.Payload.Note {
			t.Fatalf("event %d after the restart is %q, want %q", i+1, at(got, i), ev.Payload.Note)
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(missing)"
}

// The hub refuses to listen off loopback without TLS, and says what to
// do; bad flags get one line naming the flag.
func TestHubRefusesCleartextOffLoopback(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "pass --tls-cert and --tls-key"},
		{[]string{"--listen", "nowhere"}, `--listen "nowhere" is not HOST:PORT`},
		{[]string{"--tls-cert", "a.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--cluster", "team"}, "--cluster needs --name"},
		{[]string{"--cluster", "team", "--name", "h1", "--cluster-listen", "0.0.0.0:6222"}, "pass --cluster-ca (with --tls-cert and --tls-key)"},
		{[]string{"--cluster", "team", "--name", "h1", "--cluster-ca", "ca.pem"}, "--cluster-ca puts the routes on TLS with this hub's certificate"},
	} {
		cmd := exec.Command(nexusBin, append([]string{"hub", "--dir", dir}, tc.args...)...)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...).CombinedOutput()
		cancel()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Fatalf("nexus hub %v: exit %v, want 2 (usage)\n%s", tc.args, err, out)
		}
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Fatalf("nexus hub %v said %q, want one line with %q", tc.args, out, tc.want)
		}
	}
}
