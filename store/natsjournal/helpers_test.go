package natsjournal

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/journaltest"
	"github.com/nexus-tui/nexus/internal/journalgen"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// hub is an embedded server of one test, on its own storage dir.
type hub struct {
	dir  string
	srv  *server.Server
	url  string
	once sync.Once
}

// startHub starts a server on dir and stops it when the test ends.
func startHub(t testing.TB, dir string) *hub {
	t.Helper()
	srv, url, err := StartServer(dir, ServerOptions{})
	if err != nil {
		t.Fatalf("start the server: %v", err)
	}
	h := &hub{dir: dir, srv: srv, url: url}
	t.Cleanup(h.stop)
	return h
}

// stop shuts the server down and waits for it; calls after the first do
// nothing.
func (h *hub) stop() {
	h.once.Do(func() {
		h.srv.Shutdown()
		h.srv.WaitForShutdown()
	})
}

// connect dials url and closes the connection when the test ends.
func connect(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.NoReconnect())
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// openJ opens the test project's journal on nc and closes it when the
// test ends.
func openJ(t testing.TB, nc *nats.Conn, opts Options) *Journal {
	t.Helper()
	return openProject(t, nc, testProject, opts)
}

// openProject opens project's journal on nc and closes it when the test
// ends.
func openProject(t testing.TB, nc *nats.Conn, project string, opts Options) *Journal {
	t.Helper()
	j, err := Open(context.Background(), nc, project, opts)
	if err != nil {
		t.Fatalf("open the journal: %v", err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

// testProject is the project key of the tests: it needs sanitising.
const testProject = "acme/web app"

// streamMsgs returns how many messages the journal's stream holds.
func streamMsgs(t testing.TB, j *Journal) uint64 {
	t.Helper()
	info, err := j.stream.Info(context.Background())
	if err != nil {
		t.Fatalf("stream info: %v", err)
	}
	return info.State.Msgs
}

// rawJS is a JetStream client on nc for publishing past the journal.
func rawJS(t testing.TB, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// gen returns n events of a plausible journal from seq from+1, in
// commits, each with a command id of its own (journalgen repeats a
// command's id on the observations it causes; the kernel does not).
func gen(seed uint64, from uint64, n int) []core.Commit {
	cs := journalgen.New(seed).From(from).Commits(n)
	for i := range cs {
		cs[i].Command = fmt.Sprintf("cmd-%d-%d", seed, cs[i].Events[0].Seq)
	}
	return cs
}

// note returns a commit of one small event at seq with command id cmd.
func note(seq uint64, cmd string) core.Commit {
	return core.Commit{Command: cmd, Events: []core.Event{{Seq: seq, ID: fmt.Sprintf("e%d", seq),
		Type: core.EvRuntimeWarning, Thread: "t1", At: int64(seq), Payload: core.Payload{Note: cmd}}}}
}

// readAll returns every event of j from seq from.
func readAll(t testing.TB, j *Journal, from uint64) []core.Event {
	t.Helper()
	return journaltest.ReadAll(t, j, from)
}

// mustAppend appends cs to j.
func mustAppend(t testing.TB, j *Journal, cs ...core.Commit) {
	t.Helper()
	if err := j.Append(context.Background(), cs); err != nil {
		t.Fatalf("append: %v", err)
	}
}

// ids returns the ids of evs, to compare journals in a failure message.
func ids(evs []core.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = fmt.Sprintf("%d:%s", ev.Seq, ev.ID)
	}
	return out
}
