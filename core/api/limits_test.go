package api

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// expectClosed fails unless the server closed r (EOF, or a reset when it
// closed with bytes of ours unread).
func expectClosed(t *testing.T, r *raw, what string) {
	t.Helper()
	if in, err := r.tryRecv(30 * time.Second); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("%s: got %+v / %v, want the connection closed", what, in, err)
	}
}

// expectRefusal reads the one error line a connection gets before the
// server closes it, and checks that it is closed after.
func expectRefusal(t *testing.T, r *raw, code int, says string) incoming {
	t.Helper()
	in, err := r.tryRecv(30 * time.Second)
	if err != nil {
		t.Fatalf("want an error line saying %q: %v", says, err)
	}
	if in.Error == nil || in.Error.Code != code || string(in.ID) != "null" || !strings.Contains(in.Error.Message, says) {
		t.Fatalf("got id %s error %+v, want code %d with id null saying %q", in.ID, in.Error, code, says)
	}
	expectClosed(t, r, "after the error line")
	return in
}

// Connections over MaxConns get one error line and are closed; the host
// logs the spell once, keeps serving the connections it has, and takes a
// new one as soon as one of them closes.
func TestConnectionLimit(t *testing.T) {
	var log logLines
	h := serveWith(t, nil, func(s *Server) {
		s.SetLimits(Limits{MaxConns: 2})
		s.SetLog(log.add)
	})
	a := dialRaw(t, h.path)
	a.hello(1)
	b := dialRaw(t, h.path)
	b.hello(2)
	for range 3 {
		in := expectRefusal(t, dialRaw(t, h.path), CodeServer, "2 connections are open")
		if in.Error.Data == nil || in.Error.Data.Kind != kindHostFull {
			t.Fatalf("refusal data %+v, want kind %q", in.Error.Data, kindHostFull)
		}
	}
	// A Client writes hello at once, maybe after the host closed: it
	// still reads why.
	for range 20 {
		if _, err := Dial(context.Background(), h.path, 5*time.Second); !errors.Is(err, ErrHostFull) ||
			!strings.Contains(err.Error(), "close some clients") {
			t.Fatalf("Dial to a full host: %v, want ErrHostFull saying what to do", err)
		}
	}
	if lines := log.get(); len(lines) != 1 || !strings.Contains(lines[0], "2 are open") {
		t.Fatalf("log %q, want one line for the spell of refusals", lines)
	}
	if n := h.srv.Conns(); n != 2 {
		t.Fatalf("Conns() = %d, want the 2 admitted", n)
	}
	a.nc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for h.srv.Conns() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the closed connection is still counted: Conns() = %d", h.srv.Conns())
		}
		time.Sleep(5 * time.Millisecond)
	}
	dialRaw(t, h.path).hello(3)
	b.hello(4)
}

// A request line over MaxLineBytes is answered with an error and the
// connection closed; the server stops reading it at the limit, so a
// client that writes without end gets its writes refused after about
// the limit plus the socket's buffers, not after all it sent.
func TestLineLimitBoundsWhatIsRead(t *testing.T) {
	const limit = 1024
	h := serveWith(t, nil, func(s *Server) { s.SetLimits(Limits{MaxLineBytes: limit}) })
	line := func(n int) string {
		head := `{"jsonrpc":"2.0","id":1,"method":"hello","params":"`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	r := dialRaw(t, h.path)
	r.send(line(limit))
	if in := r.recv(); in.Error != nil {
		t.Fatalf("a line of exactly the limit: %+v, want an answer", in.Error)
	}
	r.send(line(limit + 1))
	expectRefusal(t, r, CodeInvalidRequest, "over 1024 bytes")

	r = dialRaw(t, h.path)
	uc := r.nc.(*net.UnixConn)
	uc.SetWriteBuffer(64 << 10) // the kernel's share of the bound below
	chunk := []byte(strings.Repeat("x", 64<<10))
	const attempt, bound = 64 << 20, 1 << 20
	written := 0
	uc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	for written < attempt {
		n, err := uc.Write(chunk)
		written += n
		if err != nil {
			break
		}
	}
	if written >= bound {
		t.Fatalf("the host took %d bytes of a line with a limit of %d; want it closed before %d", written, limit, bound)
	}
	expectRefusal(t, r, CodeInvalidRequest, "over 1024 bytes")
}

// A line begun and not ended within LineTimeout closes the connection
// with an error, even when its bytes keep trickling in; a connection idle
// between lines, or subscribed, stays open however long it waits.
func TestLineTimeout(t *testing.T) {
	const timeout = 20 * time.Millisecond
	h := serveWith(t, nil, func(s *Server) { s.SetLimits(Limits{LineTimeout: timeout}) })

	idle := dialRaw(t, h.path)
	idle.hello(1)
	sub := dialRaw(t, h.path)
	sub.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"from":0}}`)
	if in := sub.recv(); in.Error != nil {
		t.Fatalf("subscribe: %+v", in.Error)
	}

	stalled := dialRaw(t, h.path)
	stalled.hello(1) // a whole line first: only a begun line is timed
	stalled.nc.Write([]byte(`{"jsonrpc":"2.0","id":2,`))
	expectRefusal(t, stalled, CodeInvalidRequest, "not ended within 20ms")

	// One byte at a time, each well within the timeout, the whole line
	// far beyond it: the deadline is the line's, not each read's.
	trickle := dialRaw(t, h.path)
	for _, c := range []byte(`{"jsonrpc":"2.0","id":3,"method":"hello"}`) {
		if _, err := trickle.nc.Write([]byte{c}); err != nil {
			break // closed already
		}
		time.Sleep(timeout / 4)
	}
	trickle.nc.Write([]byte("\n"))
	expectRefusal(t, trickle, CodeInvalidRequest, "not ended within 20ms")

	// By now the idle connections have waited many timeouts.
	time.Sleep(10 * timeout)
	idle.hello(2)
	c := h.dial(t)
	createThread(t, c, "t1")
	if in := sub.recv(); in.Method != NotifyEvent {
		t.Fatalf("the idle subscriber got %+v, want an event", in)
	}
}
