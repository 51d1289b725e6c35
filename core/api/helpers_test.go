package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Texts of message.send that the gate backend treats specially.
const (
	gateBlock = "block-me" // waits until released or its context ends
	gateFail  = "fail-me"  // fails with a plain (non-input) error
)

// gate wraps the real Runner so tests can hold a call in flight.
type gate struct {
	core.Backend
	entered chan struct{} // one value per blocked call that started
	release chan struct{} // closed to let blocked calls go on
	ended   chan error    // the context error a blocked call saw (nil if released)
}

func newGate(b core.Backend) *gate {
	return &gate{Backend: b, entered: make(chan struct{}, 16), release: make(chan struct{}), ended: make(chan error, 16)}
}

func (g *gate) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	switch cmd.Text {
	case gateBlock:
		g.entered <- struct{}{}
		select {
		case <-g.release:
			g.ended <- nil
		case <-ctx.Done():
			g.ended <- ctx.Err()
			return nil, ctx.Err()
		}
	case gateFail:
		return nil, errors.New("disk full: free some space")
	}
	return g.Backend.Submit(ctx, cmd)
}

// host is a Runner over a MemJournal served on a socket in a temp dir.
type host struct {
	tb     testing.TB
	runner *core.Runner
	gate   *gate
	path   string
	info   HostInfo
	srv    *Server

	stopOnce sync.Once
	cancel   context.CancelFunc
	served   chan error
}

// startRunner runs a real Runner until the test ends.
func startRunner(tb testing.TB) *core.Runner {
	tb.Helper()
	r, err := core.NewRunner(core.RunnerConfig{Journal: &core.MemJournal{}})
	if err != nil {
		tb.Fatalf("NewRunner: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("runner: %v", err)
		}
	})
	return r
}

func startHost(tb testing.TB) *host {
	tb.Helper()
	return serveBackend(tb, nil)
}

// serveBackend serves b (a gated Runner when b is nil) on a fresh socket.
func serveBackend(tb testing.TB, b core.Backend) *host {
	tb.Helper()
	return serveWith(tb, b, nil)
}

// serveWith is serveBackend with a chance to configure the server
// before it serves.
func serveWith(tb testing.TB, b core.Backend, configure func(*Server)) *host {
	tb.Helper()
	h := &host{tb: tb, path: filepath.Join(tb.TempDir(), "nexus.sock"), served: make(chan error, 1)}
	if b == nil {
		h.runner = startRunner(tb)
		h.gate = newGate(h.runner)
		b = h.gate
	}
	h.info = HostInfo{PID: 4242, Version: "test", StateDir: filepath.Dir(h.path)}
	ln, err := Listen(h.path)
	if err != nil {
		tb.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	srv := NewServer(b, h.info)
	if configure != nil {
		configure(srv)
	}
	h.srv = srv
	go func() { h.served <- srv.Serve(ctx, ln) }()
	tb.Cleanup(h.stop)
	return h
}

// stop cancels Serve and waits for it to return.
func (h *host) stop() {
	h.stopOnce.Do(func() {
		h.cancel()
		select {
		case err := <-h.served:
			if err != nil {
				h.tb.Errorf("Serve returned %v, want nil after cancel", err)
			}
		case <-time.After(10 * time.Second):
			h.tb.Errorf("Serve did not return within 10s of cancel")
		}
	})
}

func (h *host) dial(tb testing.TB) *Client {
	tb.Helper()
	c, err := Dial(context.Background(), h.path, 2*time.Second)
	if err != nil {
		tb.Fatalf("Dial: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// raw is a bare protocol connection for tests that speak the wire format.
type raw struct {
	tb testing.TB
	nc net.Conn
	lr *lineReader
}

func dialRaw(tb testing.TB, path string) *raw {
	tb.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		tb.Fatalf("dial %s: %v", path, err)
	}
	tb.Cleanup(func() { nc.Close() })
	return &raw{tb: tb, nc: nc, lr: newLineReader(bufio.NewReader(nc), MaxResponseBytes)}
}

func (r *raw) send(line string) {
	r.tb.Helper()
	r.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.nc.Write([]byte(line + "\n")); err != nil {
		r.tb.Fatalf("write: %v", err)
	}
}

// recv reads one message, failing the test after 5 s.
func (r *raw) recv() incoming {
	r.tb.Helper()
	in, err := r.tryRecv(5 * time.Second)
	if err != nil {
		r.tb.Fatalf("read: %v", err)
	}
	return in
}

func (r *raw) tryRecv(d time.Duration) (incoming, error) {
	r.nc.SetReadDeadline(time.Now().Add(d))
	line, err := r.lr.next()
	if err != nil {
		return incoming{}, err
	}
	var in incoming
	if err := json.Unmarshal(line, &in); err != nil {
		r.tb.Fatalf("server sent a line that is not JSON: %v: %q", err, line)
	}
	return in, nil
}

// hello checks that the connection still answers.
func (r *raw) hello(id int) {
	r.tb.Helper()
	r.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"hello"}`)
	in := r.recv()
	if in.Error != nil || string(in.ID) != itoa(id) {
		r.tb.Fatalf("hello on the same connection: got id %s error %+v, want a result", in.ID, in.Error)
	}
	var info HostInfo
	if err := json.Unmarshal(in.Result, &info); err != nil || info.PID == 0 {
		r.tb.Fatalf("hello result %s: %v", in.Result, err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func createThread(tb testing.TB, b core.Backend, id string) *core.Receipt {
	tb.Helper()
	r, err := b.Submit(context.Background(), core.Command{ID: "c-" + id, Kind: core.CmdThreadCreate,
		NewThread: id, Provider: "builtin", Title: "thread " + id})
	if err != nil {
		tb.Fatalf("create thread %s: %v", id, err)
	}
	return r
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// logLines collects what a server logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *logLines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
