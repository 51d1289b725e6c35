package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Every bad line gets one error response with the right code and id, and
// the connection keeps answering afterwards.
func TestBadLinesGetErrorsAndConnectionGoesOn(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"not JSON", `{bad`, CodeParse, "null"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":8,"method":"hello"} x`, CodeParse, "null"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hel\xfflo\"}", CodeParse, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"nope"}`, CodeMethodNotFound, "7"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"hello"}]`, CodeInvalidRequest, "null"},
		{"a string", `"hello"`, CodeInvalidRequest, "null"},
		{"no id", `{"jsonrpc":"2.0","method":"hello"}`, CodeInvalidRequest, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"hello"}`, CodeInvalidRequest, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","method":"hello"}`, CodeInvalidRequest, `"a"`},
		{"no method", `{"jsonrpc":"2.0","id":3}`, CodeInvalidRequest, "3"},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":1}`, CodeInvalidRequest, "null"},
		{"submit without params", `{"jsonrpc":"2.0","id":4,"method":"submit"}`, CodeInvalidParams, "4"},
		{"submit unknown field", `{"jsonrpc":"2.0","id":5,"method":"submit","params":{"kind":"thread.create","worktree":true}}`, CodeInvalidParams, "5"},
		{"submit positional params", `{"jsonrpc":"2.0","id":6,"method":"submit","params":[1]}`, CodeInvalidParams, "6"},
		{"subscribe bad from", `{"jsonrpc":"2.0","id":9,"method":"subscribe","params":{"from":-1}}`, CodeInvalidParams, "9"},
	}
	for i, tc := range cases {
		r.send(tc.line)
		in := r.recv()
		if in.Error == nil {
			t.Fatalf("%s: got result %s, want error %d", tc.name, in.Result, tc.code)
		}
		if in.Error.Code != tc.code || string(in.ID) != tc.id {
			t.Errorf("%s: got code %d id %s (%q), want code %d id %s", tc.name, in.Error.Code, in.ID, in.Error.Message, tc.code, tc.id)
		}
		if in.Error.Message == "" {
			t.Errorf("%s: error has no message", tc.name)
		}
		r.hello(100 + i)
	}
}

// Blank lines are skipped without an answer.
func TestBlankLinesAreIgnored(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	r.send("\n  \r")
	r.hello(1)
}

// Refused input carries -32602 and data.kind "input", with the same
// message the backend gave.
func TestInputErrorOnTheWire(t *testing.T) {
	h := startHost(t)
	createThread(t, h.runner, "t1")
	cmd := core.Command{ID: "c1", Kind: core.CmdMessageSend, Thread: "t1", Text: "   "}
	_, want := h.runner.Submit(context.Background(), cmd)
	var ie *core.InputError
	if !errors.As(want, &ie) {
		t.Fatalf("runner: got %v, want an input error", want)
	}
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"submit","params":` + mustJSON(t, cmd) + `}`)
	in := r.recv()
	if in.Error == nil || in.Error.Code != CodeInvalidParams || in.Error.Data == nil || in.Error.Data.Kind != "input" {
		t.Fatalf("got %+v, want code %d with data.kind input", in.Error, CodeInvalidParams)
	}
	if in.Error.Message != ie.Msg {
		t.Errorf("message %q, want the backend's %q", in.Error.Message, ie.Msg)
	}
}

// A line over the limit gets an error and the connection is closed; the
// server goes on serving others.
func TestOversizedLineClosesConnection(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	go func() {
		// The server stops reading part way; the write then fails.
		big := `{"jsonrpc":"2.0","id":1,"method":"hello","params":"` + strings.Repeat("x", MaxRequestBytes) + `"}` + "\n"
		r.nc.Write([]byte(big))
	}()
	in := r.recv()
	if in.Error == nil || in.Error.Code != CodeInvalidRequest || !strings.Contains(in.Error.Message, "over") {
		t.Fatalf("got %+v, want an invalid-request error about the size", in.Error)
	}
	if _, err := r.tryRecv(5 * time.Second); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("after the error: got %v, want the connection closed", err)
	}
	dialRaw(t, h.path).hello(2)
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// A message at the text limit fits in one request line even when every
// byte is escaped six-fold.
func TestCommandAtTextLimitFits(t *testing.T) {
	h := startHost(t)
	c := h.dial(t)
	createThread(t, c, "t1")
	text := strings.Repeat("\x01", core.MaxTextBytes)
	cmd := core.Command{ID: "big", Kind: core.CmdMessageSend, Thread: "t1", Text: text}
	if n := len(mustJSON(t, cmd)); n < 6*core.MaxTextBytes {
		t.Fatalf("the test text encodes to %d bytes; it must be escaped six-fold to test the limit", n)
	}
	rec, err := c.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatalf("Submit at the text limit: %v", err)
	}
	st, err := h.runner.State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if run := st.Runs[rec.Run]; run == nil || run.Text != text {
		t.Fatalf("run %q not recorded with the full text", rec.Run)
	}
}

// A connection that subscribed answers further requests with an error
// and keeps delivering events.
func TestSubscribedConnectionRefusesRequests(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"from":0}}`)
	in := r.recv()
	var res subscribeResult
	if in.Error != nil || json.Unmarshal(in.Result, &res) != nil || res.State == nil {
		t.Fatalf("subscribe: got %s / %+v, want a result with state", in.Result, in.Error)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"hello"}`)
	in = r.recv()
	if in.Error == nil || in.Error.Code != CodeInvalidRequest || string(in.ID) != "2" {
		t.Fatalf("request on a subscribed connection: got %+v id %s, want code %d id 2", in.Error, in.ID, CodeInvalidRequest)
	}
	createThread(t, h.runner, "t1")
	for {
		in = r.recv()
		if in.Method != NotifyEvent {
			t.Fatalf("got %+v, want an event notification", in)
		}
		var ev core.Event
		if err := json.Unmarshal(in.Params, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq == res.State.Seq+1 {
			return
		}
	}
}

// A client that disconnects mid-request cancels its call, and the server
// goes on.
func TestDisconnectMidRequestCancelsCall(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"submit","params":{"id":"c1","kind":"message.send","thread":"t1","text":"` + gateBlock + `"}}`)
	<-h.gate.entered
	r.nc.Close()
	select {
	case err := <-h.gate.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("blocked call ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call of a disconnected client was not cancelled")
	}
	dialRaw(t, h.path).hello(2)
}

// After Serve returns, none of the goroutines it or its connections
// started is left, whatever the clients were doing.
func TestServeLeavesNoGoroutines(t *testing.T) {
	runner := startRunner(t)
	g := newGate(runner)
	before := runtime.NumGoroutine()
	h := serveBackend(t, g)

	c := h.dial(t)
	createThread(t, c, "t1")
	sub, err := c.Subscribe(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	idle := dialRaw(t, h.path) // connected, never sends
	blocked := dialRaw(t, h.path)
	blocked.send(`{"jsonrpc":"2.0","id":1,"method":"submit","params":{"id":"c9","kind":"message.send","thread":"t1","text":"` + gateBlock + `"}}`)
	<-g.entered
	half := dialRaw(t, h.path)
	half.nc.Write([]byte(`{"jsonrpc":"2.0","id":1,`)) // a partial line

	h.stop()
	for range sub.Events {
	}
	// The raw clients stay connected: the server must not rely on them
	// hanging up to end its goroutines.
	defer func() { idle.nc.Close(); blocked.nc.Close(); half.nc.Close() }()

	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%d goroutines after Serve returned, %d before:\n%s", n, before, buf)
	}
}

// floodSubscriber subscribes on a raw connection that then stops reading,
// while the backend sends more than the socket buffers hold.
func floodSubscriber(t *testing.T) (*host, *raw) {
	h := serveBackend(t, &stubBackend{n: 1 << 20})
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"from":1}}`)
	if in := r.recv(); in.Error != nil {
		t.Fatalf("subscribe: %+v", in.Error)
	}
	time.Sleep(200 * time.Millisecond) // let the server's writes block
	return h, r
}

// A client that stops reading does not hold up shutdown.
func TestServeStopsDespiteStuckReader(t *testing.T) {
	h, _ := floodSubscriber(t)
	start := time.Now()
	h.stop()
	if d := time.Since(start); d > shutdownGrace+2*time.Second {
		t.Fatalf("Serve took %v to stop with a stuck reader", d)
	}
}

// A client that stops reading for writeTimeout is disconnected.
func TestStuckReaderIsDropped(t *testing.T) {
	old := writeTimeout
	writeTimeout = 100 * time.Millisecond
	t.Cleanup(func() { writeTimeout = old }) // after the host stops
	_, r := floodSubscriber(t)
	time.Sleep(300 * time.Millisecond)
	for {
		in, err := r.tryRecv(5 * time.Second)
		if err != nil {
			if !errors.Is(err, io.EOF) && !isReset(err) {
				t.Fatalf("got %v, want the server to have hung up", err)
			}
			return
		}
		if in.Method != NotifyEvent {
			t.Fatalf("got %+v, want events then a hang-up", in)
		}
	}
}
