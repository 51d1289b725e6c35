package workers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTokenIsAcceptedOnce: a fresh token runs its step; the same request
// sent again is refused as a replay and runs nothing, while a new token
// for the same step is accepted.
func TestTokenIsAcceptedOnce(t *testing.T) {
	ws := tempWorkspace(t)
	key, _ := NewKey()
	w := startRaw(t, ws, key)
	a := Args{Command: "echo ran >> log"}
	sign := func() string {
		return Sign(key, Grant{Task: "t1", Step: 1, Action: ActionRunCommand, Target: a.Command,
			Nonce: NewNonce(), Expiry: time.Now().Add(time.Minute)})
	}
	ex := Execute{TaskID: "t1", Step: 1, Action: ActionRunCommand, Args: a, Capability: sign()}
	if res := w.send(t, ex); res.Status != StatusOK {
		t.Fatalf("a fresh token: %+v", res)
	}
	res := w.send(t, ex)
	if res.Status != StatusRefused || !strings.Contains(res.Error, "capability token already used") {
		t.Fatalf("the replayed token: %s %q, want refused as already used", res.Status, res.Error)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "log")); string(b) != "ran\n" {
		t.Fatalf("log = %q after a replay, want the command run once", b)
	}
	ex.Capability = sign()
	if res := w.send(t, ex); res.Status != StatusOK {
		t.Fatalf("a new token for the same step: %+v", res)
	}
}

// TestTokenLifetimeIsBounded: a token valid for a century is refused and
// touches nothing; the bound is the step's timeout plus TokenGrace.
func TestTokenLifetimeIsBounded(t *testing.T) {
	ws := tempWorkspace(t)
	key, _ := NewKey()
	w := startRaw(t, ws, key)
	a := Args{Path: "a.txt", Content: "x"}
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		life    time.Duration
		want    string
	}{
		{"a century", 10 * time.Second, 100 * 365 * 24 * time.Hour, "capability token lives too long"},
		{"past timeout and grace", 10 * time.Second, 10*time.Second + TokenGrace + time.Minute, "capability token lives too long"},
		{"within timeout and grace", 10 * time.Second, 10*time.Second + TokenGrace/2, ""},
	} {
		tok := Sign(key, Grant{Task: "t1", Step: 1, Action: ActionWriteFile, Target: "a.txt",
			Nonce: NewNonce(), Expiry: time.Now().Add(tc.life)})
		res := w.send(t, Execute{TaskID: "t1", Step: 1, Action: ActionWriteFile, Args: a, Capability: tok,
			TimeoutMS: tc.timeout.Milliseconds()})
		if tc.want == "" {
			if res.Status != StatusOK {
				t.Errorf("%s: %+v, want ok", tc.name, res)
			}
			continue
		}
		if res.Status != StatusRefused || !strings.Contains(res.Error, tc.want) || !strings.Contains(res.Error, "may live at most 1m10s") {
			t.Errorf("%s: %s %q, want refused: %s", tc.name, res.Status, res.Error, tc.want)
		}
		if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
			t.Fatalf("%s: a refused token wrote the file", tc.name)
		}
	}
}

// TestLedger: a nonce is spent once, whatever the rest of the grant, and
// forgotten only a TokenGrace after its token expired.
func TestLedger(t *testing.T) {
	var l ledger
	now := time.Unix(1_700_000_000, 0)
	g := Grant{Task: "t", Step: 1, Nonce: NewNonce(), Expiry: now.Add(time.Minute)}
	if err := l.spend(g, now); err != nil {
		t.Fatal(err)
	}
	other := g
	other.Step = 2
	if err := l.spend(other, now.Add(time.Second)); !errors.Is(err, ErrTokenReplayed) {
		t.Fatalf("the nonce again: %v, want ErrTokenReplayed", err)
	}
	if err := l.spend(g, g.Expiry.Add(TokenGrace)); !errors.Is(err, ErrTokenReplayed) {
		t.Fatalf("a TokenGrace after expiry: %v, want still remembered", err)
	}
	if err := l.spend(Grant{Nonce: NewNonce(), Expiry: now}, g.Expiry.Add(TokenGrace+time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.used[g.Nonce]; ok || len(l.used) != 1 {
		t.Fatalf("ledger %v: the expired entry was kept", l.used)
	}
}

// TestPoolBoundsTokenLifetimes: the pool will not sign tokens that its
// workers would refuse, nor for steps longer than MaxStepTimeout.
func TestPoolBoundsTokenLifetimes(t *testing.T) {
	if _, err := NewPool(PoolConfig{TokenTTL: TokenGrace + time.Second}); err == nil || !strings.Contains(err.Error(), "TokenTTL") {
		t.Errorf("NewPool with a TokenTTL over TokenGrace: %v", err)
	}
	if _, err := NewPool(PoolConfig{StepTimeout: MaxStepTimeout + time.Second}); err == nil || !strings.Contains(err.Error(), "MaxStepTimeout") {
		t.Errorf("NewPool with a StepTimeout over MaxStepTimeout: %v", err)
	}
	p := newTestPool(t, tempWorkspace(t))
	_, err := p.Execute(context.Background(), Step{Task: "t", N: 1, Action: ActionListDir, Timeout: 100 * 365 * 24 * time.Hour}, nil)
	if !errors.Is(err, ErrBadStep) || !strings.Contains(err.Error(), "over the 24h0m0s a step may take") {
		t.Errorf("a step with a century's timeout: %v", err)
	}
}
