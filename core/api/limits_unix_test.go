//go:build unix

package api

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A host that refused the connection wrote why and closed it before the
// client wrote its request: the write fails, and the client still
// returns the host's reason rather than a broken pipe.
func TestRoundTripReadsRefusalAfterFailedWrite(t *testing.T) {
	ends := socketPair(t)
	refuseFull(ends[1], 2) // writes the error line and closes
	if _, err := ends[0].Write([]byte("x")); err == nil {
		t.Fatal("a write to a closed host succeeded; the test needs it to fail")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	in, _, err := roundTrip(ctx, ends[0], newLineReader(ends[0], MaxResponseBytes), []byte(`{}`), "1", MethodHello)
	if err != nil || in.Error == nil {
		t.Fatalf("roundTrip: %+v, %v; want the host's error line", in, err)
	}
	if err := remoteError(in.Error); !errors.Is(err, ErrHostFull) || !strings.Contains(err.Error(), "2 connections are open") {
		t.Fatalf("remoteError: %v, want ErrHostFull with the host's message", err)
	}
}
