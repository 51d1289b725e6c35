package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// stubBackend counts and records submitted commands. With block set,
// Submit waits until its context ends, like a wedged host.
type stubBackend struct {
	mu    sync.Mutex
	cmds  []core.Command
	block bool
	// entered is signalled each time Submit starts.
	entered chan struct{}
}

func newStub() *stubBackend { return &stubBackend{entered: make(chan struct{}, 16)} }

func (s *stubBackend) Submit(ctx context.Context, cmd core.Command) (*core.Receipt, error) {
	s.mu.Lock()
	s.cmds = append(s.cmds, cmd)
	block := s.block
	s.mu.Unlock()
	select {
	case s.entered <- struct{}{}:
	default:
	}
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	rec := &core.Receipt{Command: cmd.ID, Kind: cmd.Kind, Thread: cmd.Thread, Request: cmd.Request, Mode: cmd.Mode}
	if cmd.Kind == core.CmdThreadCreate || cmd.Kind == core.CmdThreadFork {
		rec.Thread = cmd.NewThread
	}
	return rec, nil
}

func (s *stubBackend) State(ctx context.Context) (*core.State, error) { return core.NewState(), nil }

func (s *stubBackend) Subscribe(ctx context.Context, from uint64) (*core.Subscription, error) {
	ch := make(chan core.Event)
	go func() { <-ctx.Done(); close(ch) }()
	return &core.Subscription{State: core.NewState(), Events: ch, Err: func() error { return ctx.Err() }}, nil
}

func (s *stubBackend) submitted() []core.Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]core.Command(nil), s.cmds...)
}

// harness drives a Model through Update like the program would, without
// a terminal.
type harness struct {
	t  testing.TB
	m  *Model
	b  *stubBackend
	ws string
	// quit is set once a Cmd returned tea.Quit.
	quit bool
	// timers are the messages of the timers the model armed, in order.
	timers []tea.Msg
	// async carries what the terminal panes' goroutines send the program
	// (see pump); nil unless the backend streams terminals.
	async  chan tea.Msg
	wake   <-chan struct{}    // also ends a wait in pump
	cancel context.CancelFunc // ends the model's context
}

func newHarness(t testing.TB, st *core.State, w, h int) *harness {
	t.Helper()
	b := newStub()
	return newHarnessOn(t, b, b, st, w, h)
}

// newHarnessOn is newHarness over another backend; b is its stub part,
// which counts the submits.
func newHarnessOn(t testing.TB, b *stubBackend, backend Backend, st *core.State, w, h int) *harness {
	t.Helper()
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	theme, _ := themes.Lookup(themes.None)
	opts := Options{StateDir: "/state", HostLabel: "host", Host: true, Workspace: ws,
		Profiles: []Profile{{Name: "builtin", Description: "built-in agent", Caps: core.Capabilities{Steer: true, Approvals: true}},
			{Name: "builtin:nosteer", Description: "no steering"}}}
	m := newModel(ctx, backend, opts, themes.NewStyles(theme))
	m.now = func() time.Time { return time.Unix(0, 0).Add(10 * time.Minute) } // screens must not vary
	// Timers are recorded, not run: a test fires them with fire.
	hs0 := &harness{}
	m.timer = func(d time.Duration, msg tea.Msg) tea.Cmd {
		hs0.timers = append(hs0.timers, msg)
		return nil
	}
	hs := hs0
	hs.t, hs.m, hs.b, hs.ws, hs.cancel = t, m, b, ws, cancel
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	if st != nil {
		hs.send(snapshotMsg{state: st})
	}
	return hs
}

// send delivers one message and runs the Cmds it returns, feeding their
// messages back. Timers are recorded, not run (see timers).
func (hs *harness) send(msg tea.Msg) {
	hs.t.Helper()
	_, cmd := hs.m.Update(msg)
	hs.run(cmd)
}

// cmdTimeout bounds one Cmd: every Cmd of the model finishes at once
// against the stub backend, so one that does not is a bug.
const cmdTimeout = 10 * time.Second

func (hs *harness) run(cmd tea.Cmd) {
	hs.t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(cmdTimeout):
		hs.t.Fatalf("a Cmd did not finish within %s", cmdTimeout)
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			hs.run(c)
		}
	case tea.QuitMsg:
		hs.quit = true
	default:
		hs.send(msg)
	}
}

// fire delivers the armed timers' messages of type T (and drops them).
func fire[T tea.Msg](hs *harness) {
	hs.t.Helper()
	var keep, due []tea.Msg
	for _, msg := range hs.timers {
		if _, ok := msg.(T); ok {
			due = append(due, msg)
		} else {
			keep = append(keep, msg)
		}
	}
	hs.timers = keep
	for _, msg := range due {
		hs.send(msg)
	}
}

// press sends named keys: "enter", "ctrl+n", "alt+q", "esc", "tab", "up", ...
func (hs *harness) press(names ...string) {
	hs.t.Helper()
	for _, n := range names {
		hs.send(keyMsg(n))
	}
}

// typeText sends each rune as a key press.
func (hs *harness) typeText(s string) {
	hs.t.Helper()
	for _, r := range s {
		hs.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	for {
		if rest, ok := strings.CutPrefix(name, "ctrl+"); ok {
			mod |= tea.ModCtrl
			name = rest
			continue
		}
		if rest, ok := strings.CutPrefix(name, "alt+"); ok {
			mod |= tea.ModAlt
			name = rest
			continue
		}
		if rest, ok := strings.CutPrefix(name, "shift+"); ok {
			mod |= tea.ModShift
			name = rest
			continue
		}
		break
	}
	codes := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "f1": tea.KeyF1, "f4": tea.KeyF4, "end": tea.KeyEnd,
		"home": tea.KeyHome, "backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight,
		"space": tea.KeySpace}
	if c, ok := codes[name]; ok {
		return tea.KeyPressMsg{Code: c, Mod: mod}
	}
	r := []rune(name)[0]
	if mod == 0 {
		return tea.KeyPressMsg{Code: r, Text: name}
	}
	return tea.KeyPressMsg{Code: r, Mod: mod}
}

// screen is the plain text of the current view.
func (hs *harness) screen() string {
	return ansi.Strip(hs.m.View().Content)
}

// checkScreen asserts the view is exactly the window's size.
func (hs *harness) checkScreen(w, h int) {
	hs.t.Helper()
	lines := strings.Split(hs.m.View().Content, "\n")
	if len(lines) != h {
		hs.t.Errorf("%dx%d: view has %d lines, want %d", w, h, len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			hs.t.Errorf("%dx%d: line %d is %d cells wide, want %d: %q", w, h, i, got, w, ansi.Strip(l))
		}
	}
}

// lastCmd is the last command submitted, failing when there is none.
func (hs *harness) lastCmd() core.Command {
	hs.t.Helper()
	cmds := hs.b.submitted()
	if len(cmds) == 0 {
		hs.t.Fatalf("no command was submitted; screen:\n%s", hs.screen())
	}
	return cmds[len(cmds)-1]
}

// resizeSizes are window sizes every screen must fill exactly, down to
// absurd ones.
var resizeSizes = [][2]int{{80, 24}, {200, 60}, {120, 40}, {40, 12}, {39, 11}, {20, 5}, {1, 1}}

// checkSizes resizes the window to each size and checks that the view
// fills it exactly.
func (hs *harness) checkSizes(sizes [][2]int) {
	hs.t.Helper()
	for _, sz := range sizes {
		hs.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		hs.checkScreen(sz[0], sz[1])
	}
}

// expectScreen reports each of wants that the screen does not show;
// what says which screen it is.
func (hs *harness) expectScreen(what string, wants ...string) {
	hs.t.Helper()
	scr := hs.screen()
	for _, want := range wants {
		if !strings.Contains(scr, want) {
			hs.t.Errorf("%s lacks %q:\n%s", what, want, scr)
		}
	}
}

// viewIn redraws everything with a theme and returns the view with its
// styles.
func (hs *harness) viewIn(theme string) string {
	hs.t.Helper()
	th, err := themes.Lookup(theme)
	if err != nil {
		hs.t.Fatal(err)
	}
	hs.m.st = themes.NewStyles(th)
	hs.m.invalidateAll()
	return hs.m.View().Content
}
