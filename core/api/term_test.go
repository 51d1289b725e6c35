package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// termBackend is a Runner with fake terminals. Thread "t1" has a terminal
// that shows a Reset and one more chunk, then exits; "live" shows a Reset
// and stays open until its feed's context ends; "none" has no terminal;
// any other thread is unknown (refused input).
type termBackend struct {
	core.Backend
	inputs  chan []byte
	resizes chan [2]int
}

func newTermBackend(b core.Backend) *termBackend {
	return &termBackend{Backend: b, inputs: make(chan []byte, 4), resizes: make(chan [2]int, 4)}
}

func (b *termBackend) check(thread string) error {
	switch thread {
	case "t1", "live":
		return nil
	case "none":
		return core.ErrNoTerminal
	}
	return &core.InputError{Msg: "unknown thread " + thread}
}

func (b *termBackend) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	if err := b.check(thread); err != nil {
		return nil, err
	}
	ch := make(chan core.TermChunk)
	errc := make(chan error, 1)
	go func() {
		defer close(ch)
		chunks := []core.TermChunk{{Reset: true, Data: []byte("hello\x1b[1m"), Cols: 80, Rows: 24}}
		if thread == "t1" {
			chunks = append(chunks, core.TermChunk{Data: []byte("world\r\n")})
		}
		for _, c := range chunks {
			select {
			case ch <- c:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
		if thread == "live" {
			<-ctx.Done()
			errc <- ctx.Err()
			return
		}
		errc <- core.ErrTerminalExited
	}()
	var err error
	return &core.TermFeed{Chunks: ch, Err: func() error {
		if err == nil {
			err = <-errc
		}
		return err
	}}, nil
}

func (b *termBackend) TerminalInput(ctx context.Context, thread string, data []byte) error {
	if err := b.check(thread); err != nil {
		return err
	}
	b.inputs <- data
	return nil
}

func (b *termBackend) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	if err := b.check(thread); err != nil {
		return err
	}
	if cols < 1 || rows < 1 {
		return &core.InputError{Msg: "columns and rows must be 1 to 1000"}
	}
	b.resizes <- [2]int{cols, rows}
	return nil
}

func serveTerms(t *testing.T) (*host, *termBackend) {
	b := newTermBackend(startRunner(t))
	return serveBackend(t, b), b
}

// On the wire: term.attach answers {} and then carries the terminal's
// chunks as "term" notifications (data in base64), ending with "end"
// reason "exited"; the connection takes no other request meanwhile.
func TestTermFramesOnTheWire(t *testing.T) {
	h, b := serveTerms(t)
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"term.attach","params":{"thread":"t1"}}`)
	if in := r.recv(); in.Error != nil || string(in.ID) != "1" || string(in.Result) != "{}" {
		t.Fatalf("attach: got id %s result %s error %+v, want {}", in.ID, in.Result, in.Error)
	}
	want := []string{
		`{"reset":true,"data":"aGVsbG8bWzFt","cols":80,"rows":24}`,
		`{"data":"d29ybGQNCg=="}`,
	}
	for i, w := range want {
		in := r.recv()
		if in.Method != NotifyTerm || string(in.Params) != w {
			t.Fatalf("notification %d: %s %s, want term %s", i, in.Method, in.Params, w)
		}
	}
	in := r.recv()
	var end endParams
	if in.Method != NotifyEnd || json.Unmarshal(in.Params, &end) != nil || end.Reason != EndExited {
		t.Fatalf("after the chunks: %s %s, want end with reason exited", in.Method, in.Params)
	}

	r = dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"term.input","params":{"thread":"t1","data":"ZWNobyBoaQ0="}}`)
	if in := r.recv(); in.Error != nil || string(in.Result) != "{}" {
		t.Fatalf("input: %s %+v", in.Result, in.Error)
	}
	if got := <-b.inputs; string(got) != "echo hi\r" {
		t.Fatalf("the backend got %q, want the decoded bytes", got)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"term.resize","params":{"thread":"t1","cols":100,"rows":30}}`)
	if in := r.recv(); in.Error != nil || string(in.Result) != "{}" {
		t.Fatalf("resize: %s %+v", in.Result, in.Error)
	}
	if got := <-b.resizes; got != [2]int{100, 30} {
		t.Fatalf("the backend got %v, want 100x30", got)
	}

	cases := []struct {
		name, line string
		code       int
		kind       string
	}{
		{"no terminal", `{"jsonrpc":"2.0","id":4,"method":"term.attach","params":{"thread":"none"}}`, CodeServer, "no_terminal"},
		{"unknown thread", `{"jsonrpc":"2.0","id":5,"method":"term.input","params":{"thread":"zz","data":""}}`, CodeInvalidParams, "input"},
		{"no params", `{"jsonrpc":"2.0","id":6,"method":"term.attach"}`, CodeInvalidParams, "input"},
		{"unknown field", `{"jsonrpc":"2.0","id":7,"method":"term.resize","params":{"thread":"t1","cols":1,"rows":1,"px":3}}`, CodeInvalidParams, "input"},
		{"data not base64", `{"jsonrpc":"2.0","id":8,"method":"term.input","params":{"thread":"t1","data":"%%%"}}`, CodeInvalidParams, "input"},
		{"bad size", `{"jsonrpc":"2.0","id":9,"method":"term.resize","params":{"thread":"t1","cols":0,"rows":1}}`, CodeInvalidParams, "input"},
	}
	for _, tc := range cases {
		r.send(tc.line)
		in := r.recv()
		if in.Error == nil || in.Error.Code != tc.code || in.Error.Data == nil || in.Error.Data.Kind != tc.kind {
			t.Errorf("%s: got %s / %+v, want code %d kind %s", tc.name, in.Result, in.Error, tc.code, tc.kind)
		}
	}
	r.hello(10)
}

// An attached connection refuses other requests and goes on carrying
// the terminal; closing it ends the feed.
func TestTermAttachedConnectionRefusesRequests(t *testing.T) {
	h, _ := serveTerms(t)
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"term.attach","params":{"thread":"live"}}`)
	if in := r.recv(); in.Error != nil {
		t.Fatalf("attach: %+v", in.Error)
	}
	if in := r.recv(); in.Method != NotifyTerm {
		t.Fatalf("got %+v, want the first chunk", in)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"hello"}`)
	if in := r.recv(); in.Error == nil || in.Error.Code != CodeInvalidRequest || !strings.Contains(in.Error.Message, "term.attach") {
		t.Fatalf("request on an attached connection: %+v, want -32600 naming the stream", in.Error)
	}
}

// The Client is core.Terminals over the socket: chunks arrive as sent,
// errors come back as the same core errors, and a feed ends with the
// terminal's exit, its context, or the host going away.
func TestTermClient(t *testing.T) {
	h, b := serveTerms(t)
	c := h.dial(t)
	ctx := context.Background()

	f, err := c.AttachTerminal(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var got []core.TermChunk
	for ch := range f.Chunks {
		got = append(got, ch)
	}
	if len(got) != 2 || !got[0].Reset || got[0].Cols != 80 || string(got[0].Data) != "hello\x1b[1m" ||
		got[1].Reset || string(got[1].Data) != "world\r\n" {
		t.Fatalf("chunks %+v, want the Reset then the bytes, unchanged", got)
	}
	if !errors.Is(f.Err(), core.ErrTerminalExited) {
		t.Fatalf("Err() = %v, want ErrTerminalExited", f.Err())
	}

	if _, err := c.AttachTerminal(ctx, "none"); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("attach none: %v, want ErrNoTerminal", err)
	}
	if err := c.TerminalInput(ctx, "none", []byte("x")); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("input none: %v, want ErrNoTerminal", err)
	}
	var ie *core.InputError
	if err := c.ResizeTerminal(ctx, "t1", 0, 5); !errors.As(err, &ie) || !strings.Contains(ie.Msg, "1 to 1000") {
		t.Fatalf("resize 0x5: %v, want the backend's input error", err)
	}
	if _, err := c.AttachTerminal(ctx, "zz"); !errors.As(err, &ie) {
		t.Fatalf("attach unknown: %v, want an input error", err)
	}

	// A paste at the limit, every byte non-ASCII, fits in one request.
	big := bytes.Repeat([]byte{0xff}, core.MaxTermInput)
	if err := c.TerminalInput(ctx, "t1", big); err != nil {
		t.Fatalf("input at MaxTermInput: %v", err)
	}
	if in := <-b.inputs; !bytes.Equal(in, big) {
		t.Fatalf("the backend got %d bytes, want the %d sent", len(in), len(big))
	}
	if err := c.ResizeTerminal(ctx, "t1", 132, 43); err != nil {
		t.Fatal(err)
	}
	if rs := <-b.resizes; rs != [2]int{132, 43} {
		t.Fatalf("resize reached the backend as %v", rs)
	}

	fctx, cancel := context.WithCancel(ctx)
	live, err := c.AttachTerminal(fctx, "live")
	if err != nil {
		t.Fatal(err)
	}
	<-live.Chunks
	cancel()
	waitDrained(t, live.Chunks)
	if !errors.Is(live.Err(), context.Canceled) {
		t.Fatalf("Err() after cancel = %v, want context.Canceled", live.Err())
	}

	live, err = c.AttachTerminal(ctx, "live")
	if err != nil {
		t.Fatal(err)
	}
	<-live.Chunks
	h.stop()
	waitDrained(t, live.Chunks)
	if !errors.Is(live.Err(), ErrHostGone) {
		t.Fatalf("Err() after the host stopped = %v, want ErrHostGone", live.Err())
	}
}

// A host whose backend has no terminals says so (-32601), and the Client
// reports the host's words.
func TestTermMethodsNeedATerminalsBackend(t *testing.T) {
	h := startHost(t)
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"term.attach","params":{"thread":"t1"}}`)
	in := r.recv()
	if in.Error == nil || in.Error.Code != CodeMethodNotFound || !strings.Contains(in.Error.Message, "serves no terminals") {
		t.Fatalf("got %+v, want -32601 saying the host serves no terminals", in.Error)
	}
	r.hello(2)
	var e *Error
	if err := h.dial(t).ResizeTerminal(context.Background(), "t1", 80, 24); !errors.As(err, &e) || e.Code != CodeMethodNotFound {
		t.Fatalf("client: %v, want *Error with code -32601", err)
	}
}
