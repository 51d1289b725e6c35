package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// within fails the test if f does not return within d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s: Update or View blocked", what, d)
	}
}

// TestUpdateNeverBlocks drives the model against a backend whose Submit
// never returns, like a wedged host: every Update and View must still
// return at once, and the submit must be running in its Cmd, not in Update.
func TestUpdateNeverBlocks(t *testing.T) {
	b := newStub()
	b.block = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	theme, _ := themes.Lookup(themes.None)
	m := newModel(ctx, b, Options{Workspace: t.TempDir()}, themes.NewStyles(theme))
	const limit = time.Second
	update := func(msg tea.Msg) tea.Cmd {
		var cmd tea.Cmd
		within(t, limit, "Update", func() { _, cmd = m.Update(msg) })
		return cmd
	}
	update(tea.WindowSizeMsg{Width: 120, Height: 40})
	update(snapshotMsg{state: demoState(t)})
	update(tea.KeyPressMsg{Code: 'm', Mod: tea.ModAlt}) // t1's approval aside: the draft sends
	for _, r := range "hello" {
		update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	send := update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if send == nil {
		t.Fatal("enter returned no Cmd: the send did not happen off the event loop")
	}
	if n := len(b.submitted()); n != 0 {
		t.Fatalf("Update itself called Submit %d times; it must only return a Cmd", n)
	}
	result := make(chan tea.Msg, 1)
	go func() { result <- send() }()
	select {
	case <-b.entered:
	case <-time.After(limit):
		t.Fatal("the send Cmd never reached the backend")
	}

	// While the submit hangs, the UI keeps working.
	update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	approve := update(tea.KeyPressMsg{Code: '1', Text: "1"})
	if approve == nil {
		t.Fatal("1 on the approval returned no Cmd")
	}
	go approve()
	update(tea.WindowSizeMsg{Width: 80, Height: 24})
	update(frameMsg{live: map[string]string{core.NodeID(core.AttemptID("t1/2", 1), 2): "streaming"}})
	for _, r := range "more" {
		update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	within(t, limit, "View", func() { _ = m.View() })
	if !strings.Contains(m.composer.value(), "more") {
		t.Errorf("typing while a submit hangs was lost: composer %q", m.composer.value())
	}
	select {
	case msg := <-result:
		t.Fatalf("the blocked submit returned %T before its context ended", msg)
	default:
	}
	if n := len(b.submitted()); n < 1 {
		t.Errorf("the backend counted %d submits, want at least 1", n)
	}

	// Ending the context releases the submit; its failure reaches the
	// person and the text comes back to the composer.
	cancel()
	var msg tea.Msg
	select {
	case msg = <-result:
	case <-time.After(limit):
		t.Fatal("the submit Cmd ignored its context")
	}
	m.composer.take()
	update(msg)
	if !strings.Contains(m.flash.text, "sending failed") || m.composer.value() != "hello" {
		t.Errorf("after the failed send: flash %q, composer %q; want an error and the text back", m.flash.text, m.composer.value())
	}
}
