package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
	"github.com/nexus-tui/nexus/providers/agentproc"
	"github.com/nexus-tui/nexus/providers/agentproc/agenttest"
	"github.com/nexus-tui/nexus/providers/ptyterm"
)

// startShell runs bash for thread t1 through the provider (its first turn
// spawns it) and returns its live terminal.
func startShell(t *testing.T) (providers.Provider, providers.Terminal) {
	t.Helper()
	sink := agenttest.NewSink()
	p := New(context.Background(), sink, Config{Name: "shell", Command: []string{"bash", "--norc", "--noprofile", "-i"},
		Env: []string{"PS1=$ "}, Idle: 200 * time.Millisecond,
		Settings: agentproc.Settings{Handshake: time.Second, Grace: time.Second, Term: time.Second}})
	t.Cleanup(p.Close)
	if _, ok := p.(providers.Terminals).Terminal("t1"); ok {
		t.Fatal("a terminal before any turn started the shell")
	}
	p.Handle(turn("1", "echo started"))
	ended(sink, t, "t1/1")
	term, ok := p.(providers.Terminals).Terminal("t1")
	if !ok {
		t.Fatal("no terminal for a running shell")
	}
	return p, term
}

func attach(t *testing.T, term providers.Terminal) *core.TermFeed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	return f
}

// screen is what a pane following a feed has been sent: the data since
// the last Reset, and that Reset.
type screen struct {
	data  string
	reset core.TermChunk
}

// readUntil takes chunks until the data since the last Reset contains
// want, and fails after d.
func readUntil(t *testing.T, f *core.TermFeed, sc *screen, want string, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for !strings.Contains(sc.data, want) {
		select {
		case c, ok := <-f.Chunks:
			if !ok {
				t.Fatalf("the feed ended (%v) before %q; got %q", f.Err(), want, tail(sc.data))
			}
			if c.Reset {
				sc.data, sc.reset = "", c
			}
			sc.data += string(c.Data)
		case <-deadline:
			t.Fatalf("no %q within %v; got %q", want, d, tail(sc.data))
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-300):] }

func type_(t *testing.T, term providers.Terminal, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := term.Input(ctx, []byte(text)); err != nil {
		t.Fatalf("Input(%q): %v", text, err)
	}
}

// A pane attached to a shell first gets a Reset at the spawn size with
// what the shell printed so far, then sees what typing makes it print; a
// resize reaches the program (stty) and every pane as a new Reset.
func TestTerminalShowsTypingAndResizes(t *testing.T) {
	_, term := startShell(t)
	f := attach(t, term)
	var sc screen
	readUntil(t, f, &sc, "started", 5*time.Second)
	if !sc.reset.Reset || sc.reset.Cols != 120 || sc.reset.Rows != 40 {
		t.Fatalf("first chunk %+v, want a Reset at 120x40", sc.reset)
	}

	type_(t, term, "echo hi-$((40+2))\r")
	readUntil(t, f, &sc, "hi-42", 5*time.Second)

	if err := term.Resize(100, 30); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	other := attach(t, term)
	var osc screen
	readUntil(t, other, &osc, "hi-42", 5*time.Second)
	if osc.reset.Cols != 100 || osc.reset.Rows != 30 {
		t.Fatalf("a new pane's Reset is %dx%d, want the last resize 100x30", osc.reset.Cols, osc.reset.Rows)
	}
	type_(t, term, "stty size\r")
	readUntil(t, f, &sc, "30 100", 5*time.Second)
	if sc.reset.Cols != 100 || sc.reset.Rows != 30 || !strings.Contains(sc.data, "hi-42") {
		t.Fatalf("after the resize the first pane's Reset is %dx%d with %q, want 100x30 replaying the output",
			sc.reset.Cols, sc.reset.Rows, tail(sc.data))
	}
}

// Input and sizes a terminal cannot take are refused with a clear error,
// and the shell goes on.
func TestTerminalRefusesBadInputAndSizes(t *testing.T) {
	_, term := startShell(t)
	var ie *core.InputError
	err := term.Input(context.Background(), make([]byte, core.MaxTermInput+1))
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("oversized input: %v, want an input error about the limit", err)
	}
	for _, sz := range [][2]int{{0, 10}, {10, 0}, {1001, 10}, {10, 1001}, {-1, -1}} {
		if err := term.Resize(sz[0], sz[1]); !errors.As(err, &ie) || !strings.Contains(err.Error(), "1 to 1000") {
			t.Errorf("Resize(%d, %d): %v, want an input error naming the range", sz[0], sz[1], err)
		}
	}
	f := attach(t, term)
	type_(t, term, "echo still-$((1+1))\r")
	readUntil(t, f, &screen{}, "still-2", 5*time.Second)
}

// A pane that never reads stalls neither the program nor another pane;
// when it reads again, it gets a Reset with the recent output instead of
// the bytes it missed.
func TestTerminalStuckPaneStallsNothing(t *testing.T) {
	_, term := startShell(t)
	stuck := attach(t, term)
	live := attach(t, term)
	var sc screen
	readUntil(t, live, &sc, "started", 5*time.Second)

	type_(t, term, "seq 1 200000\r") // about 1.3 MiB: more than the ring holds
	readUntil(t, live, &sc, "\r\n200000\r\n", 30*time.Second)

	first := <-stuck.Chunks // prepared at attach, before the flood
	if !first.Reset {
		t.Fatalf("the stuck pane's first chunk is not a Reset: %+v", first)
	}
	var ssc screen
	readUntil(t, stuck, &ssc, "\r\n200000\r\n", 5*time.Second)
	if !ssc.reset.Reset || ssc.reset.Cols != 120 {
		t.Fatalf("the stuck pane got no Reset after falling behind: %+v", ssc.reset)
	}
	if strings.Contains(ssc.data, "\r\n1\r\n2\r\n") || len(ssc.data) > ptyterm.RingSize {
		t.Fatalf("the stuck pane's Reset holds %d bytes from the start of the output, want only the last %d",
			len(ssc.data), ptyterm.RingSize)
	}
}

// When the program exits, every feed ends with ErrTerminalExited after
// its last output, and the thread has no terminal until the next turn.
func TestTerminalExitEndsFeeds(t *testing.T) {
	p, term := startShell(t)
	f := attach(t, term)
	type_(t, term, "echo bye-$((2+3)); exit\r")
	var sc screen
	readUntil(t, f, &sc, "bye-5", 5*time.Second)
	for range f.Chunks {
	}
	if err := f.Err(); !errors.Is(err, core.ErrTerminalExited) {
		t.Fatalf("feed ended with %v, want ErrTerminalExited", err)
	}
	if _, ok := p.(providers.Terminals).Terminal("t1"); ok {
		t.Fatal("a terminal is still offered for an exited shell")
	}
	if _, err := term.Attach(context.Background()); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("Attach after exit: %v, want ErrNoTerminal", err)
	}
	if err := term.Input(context.Background(), []byte("x")); !errors.Is(err, core.ErrNoTerminal) {
		t.Fatalf("Input after exit: %v, want ErrNoTerminal", err)
	}
}

// A feed whose context ends is closed with the context's error.
func TestTerminalFeedEndsWithContext(t *testing.T) {
	_, term := startShell(t)
	ctx, cancel := context.WithCancel(context.Background())
	f, err := term.Attach(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for range f.Chunks {
	}
	if !errors.Is(f.Err(), context.Canceled) {
		t.Fatalf("Err() = %v, want context.Canceled", f.Err())
	}
}
