package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core/api"
)

// A host of another user stops the command with one line that says whose
// host it is and what to do, and so does a host at its connection limit;
// other dial errors go on to find or start a host.
func TestHostRefusal(t *testing.T) {
	ue := &api.UIDError{Path: "/s/nexus.sock", UID: 1001, PID: 9, Want: 1000}
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out}
	code := a.exit(hostRefusal(fmt.Errorf("connect: %w", ue)))
	want := "nexus: the host on /s runs as uid 1001, not you; "
	if code != ExitFailed || !strings.HasPrefix(out.String(), want) || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit %d and one line starting %q", code, out.String(), ExitFailed, want)
	}
	full := fmt.Errorf("%w: 256 connections are open", api.ErrHostFull)
	if r := hostRefusal(full); r != full {
		t.Errorf("hostRefusal(%v) = %v, want the error itself: connect stops on a full host", full, r)
	}
	for _, err := range []error{api.ErrNoHost, api.ErrRefused, context.DeadlineExceeded, errors.New("boom")} {
		if r := hostRefusal(err); r != nil {
			t.Errorf("hostRefusal(%v) = %v, want nil: connect goes on", err, r)
		}
	}
}
