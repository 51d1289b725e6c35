package api

import (
	"context"
	"strings"
	"testing"
)

// A host that answers a subscribe from 0 without the state it must carry
// gets an error from Subscribe, not a Subscription with a nil State for
// the caller to dereference. From a later seq no state is due.
func TestSubscribeWithoutStateIsAnError(t *testing.T) {
	h := serveBackend(t, &stubBackend{}) // its subscriptions carry no state
	r := dialRaw(t, h.path)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"from":0}}`)
	if in := r.recv(); in.Error != nil || strings.Contains(string(in.Result), "state") {
		t.Fatalf("the fake host answered %s / %+v, want a result without state", in.Result, in.Error)
	}
	c := h.dial(t)
	sub, err := c.Subscribe(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "the host answered a subscribe without its state: ") ||
		!strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("Subscribe(0) from a host that sent no state: %+v, %v; want an error naming the host", sub, err)
	}
	sub, err = c.Subscribe(context.Background(), 1)
	if err != nil || sub.State != nil {
		t.Fatalf("Subscribe(1): %+v, %v; want a subscription without state", sub, err)
	}
}
