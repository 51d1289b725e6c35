package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/internal/host"
)

// statelessHost is a host's backend that takes every command and answers
// every subscription without the state a subscribe from 0 must carry.
type statelessHost struct{ core.Backend }

func (statelessHost) Submit(_ context.Context, cmd core.Command) (*core.Receipt, error) {
	return &core.Receipt{Command: cmd.ID, Kind: cmd.Kind, Thread: cmd.Thread, Run: "r1", Seq: 1}, nil
}

func (statelessHost) Subscribe(ctx context.Context, _ uint64) (*core.Subscription, error) {
	ch := make(chan core.Event)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return &core.Subscription{Events: ch, Err: ctx.Err}, nil
}

// `nexus send` against a host whose subscribe answer has no state fails
// with one line saying so, instead of panicking on the missing state.
func TestSendToHostWithoutSubscribeState(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NEXUS_CONFIG", "")
	dir := t.TempDir()
	ln, err := api.Listen(filepath.Join(dir, host.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- api.NewServer(statelessHost{}, api.HostInfo{PID: 4242, Version: "fake", StateDir: dir}).Serve(ctx, ln)
	}()
	t.Cleanup(func() { cancel(); <-served })

	var out, errOut bytes.Buffer
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	code := Run(rctx, []string{"--state-dir", dir, "send", "t0123abc", "hello"}, strings.NewReader(""), &out, &errOut)
	want := "nexus: api: the host answered a subscribe without its state: the host (pid 4242"
	if code != ExitFailed || !strings.HasPrefix(errOut.String(), want) || strings.Count(errOut.String(), "\n") != 1 {
		t.Fatalf("send: exit %d, stderr %q; want exit %d and one line starting %q", code, errOut.String(), ExitFailed, want)
	}
}
