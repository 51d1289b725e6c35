package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// sealedStub serves one state whose finished run t1/1 is sealed, as a
// host that loaded a snapshot holds it: its history is read from the
// store by load on first use.
type sealedStub struct {
	*stubBackend
	st *core.State
}

func (s *sealedStub) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	ch := make(chan core.Event)
	go func() { <-ctx.Done(); close(ch) }()
	return &core.Subscription{State: s.st.Clone(), Events: ch, Err: func() error { return ctx.Err() }}, nil
}

// sealedDemo is demoState with run t1/1's history behind a seal.
func sealedDemo(t *testing.T, load func() (*core.SealedRun, error)) *core.State {
	st := demoState(t)
	h := st.SealOf("t1/1")
	if len(h.Nodes) == 0 {
		t.Fatal("the demo run has no history to seal")
	}
	for _, a := range h.Attempts {
		delete(st.Attempts, a.ID)
	}
	for _, n := range h.Nodes {
		delete(st.Nodes, n.ID)
	}
	for _, e := range h.Effects {
		delete(st.Effects, e.Key)
	}
	st.Sealed["t1/1"] = &core.Seal{Ref: "0123456789abcdef0123", Load: load}
	st.Reindex()
	return st
}

// runBridge starts a bridge over b and returns the messages it sends.
func runBridge(t *testing.T, b Backend) <-chan tea.Msg {
	msgs := make(chan tea.Msg, 16)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	br := newBridge(b, func(m tea.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	})
	go br.run(ctx)
	return msgs
}

func nextSnapshot(t *testing.T, msgs <-chan tea.Msg) snapshotMsg {
	t.Helper()
	for {
		select {
		case m := <-msgs:
			if s, ok := m.(snapshotMsg); ok {
				return s
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the bridge sent no snapshot")
		}
	}
}

// A sealed history is read by the bridge, never by Update or View: while
// the store read blocks, the UI has not been handed the state (it keeps
// answering keys on what it had), and the state it gets holds the whole
// history with nothing left to read.
func TestSealedHistoryIsReadOffTheUIGoroutine(t *testing.T) {
	release := make(chan struct{})
	var hist *core.SealedRun
	st := sealedDemo(t, func() (*core.SealedRun, error) { <-release; return hist, nil })
	hist = demoState(t).SealOf("t1/1")
	msgs := runBridge(t, &sealedStub{stubBackend: newStub(), st: st})

	hs := newHarness(t, nil, 100, 30)
	for _, r := range "typed while the store read blocks" {
		within(t, time.Second, "Update", func() { hs.send(tea.KeyPressMsg{Code: r, Text: string(r)}) })
	}
	within(t, time.Second, "View", func() { _ = hs.m.View() })
	select {
	case m := <-msgs:
		if _, ok := m.(snapshotMsg); ok {
			t.Fatal("the bridge handed the UI a state before its sealed history was read")
		}
	default:
	}
	close(release)
	snap := nextSnapshot(t, msgs)
	if len(snap.state.Sealed) != 0 || snap.damaged != nil {
		t.Fatalf("the UI got %d sealed runs (damaged: %v); want every history read", len(snap.state.Sealed), snap.damaged)
	}
	within(t, time.Second, "Update", func() { hs.send(snap) })
	within(t, time.Second, "View", func() { _ = hs.m.View() })
	if !strings.Contains(hs.m.composer.value(), "typed while the store read blocks") {
		t.Errorf("typing while the history loaded was lost: %q", hs.m.composer.value())
	}
	if n := len(hs.m.state.NodesOf(core.AttemptID("t1/1", 1))); n == 0 {
		t.Error("the UI's state lost run t1/1's history")
	}
}

// A sealed history that cannot be read shows as an error in the status
// line; the run is listed without its history, and nothing panics.
func TestUnreadableSealedHistoryIsAnErrorNotAPanic(t *testing.T) {
	st := sealedDemo(t, func() (*core.SealedRun, error) { return nil, errors.New("checksum mismatch") })
	msgs := runBridge(t, &sealedStub{stubBackend: newStub(), st: st})
	snap := nextSnapshot(t, msgs)
	if snap.damaged == nil || !strings.Contains(snap.damaged.Error(), "checksum mismatch") {
		t.Fatalf("the snapshot's damage: %v; want the read error", snap.damaged)
	}
	hs := newHarness(t, nil, 120, 30)
	hs.send(snap)
	screen := hs.screen()
	if !strings.Contains(screen, "cannot be read") || !strings.Contains(screen, "fix the parser") {
		t.Fatalf("the screen does not show the thread and the error:\n%s", screen)
	}
}
