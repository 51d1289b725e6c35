package tui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// fakeTerms is a Backend that also streams terminals, like a host whose
// shell threads run PTYs. Each attach gets a feed the test writes into;
// what the TUI types and the sizes it asks for are recorded.
type fakeTerms struct {
	*stubBackend

	mu      sync.Mutex
	feeds   map[string]*fakePTYFeed
	input   map[string][]byte
	resizes map[string][][2]int
	// attachErr makes AttachTerminal fail; noTerm lists threads without
	// a PTY (ErrNoTerminal).
	attachErr error
	noTerm    map[string]bool
	attaches  int
	// first is the first chunk's data of every attach (a Reset at 80x24).
	first string
	// flood makes a thread's feeds write chunks as fast as they can, and
	// stuck makes its TerminalInput hang until its context ends.
	flood, stuck map[string]bool
	// changed is signalled on every recorded input, resize and attach.
	changed chan struct{}
}

type fakePTYFeed struct {
	ch     chan core.TermChunk
	ctx    context.Context
	closed bool
	err    error
}

func newFakeTerms() *fakeTerms {
	return &fakeTerms{stubBackend: newStub(), feeds: map[string]*fakePTYFeed{}, input: map[string][]byte{},
		resizes: map[string][][2]int{}, noTerm: map[string]bool{}, flood: map[string]bool{}, stuck: map[string]bool{}, changed: make(chan struct{}, 1),
		first: "\x1b[32muser@box\x1b[0m:~$ "}
}

var _ core.Terminals = (*fakeTerms)(nil)

func (f *fakeTerms) signal() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fakeTerms) AttachTerminal(ctx context.Context, thread string) (*core.TermFeed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.signal()
	f.attaches++
	if f.attachErr != nil {
		return nil, f.attachErr
	}
	if f.noTerm[thread] {
		return nil, core.ErrNoTerminal
	}
	ff := &fakePTYFeed{ch: make(chan core.TermChunk, 16), ctx: ctx}
	f.feeds[thread] = ff
	ff.ch <- core.TermChunk{Reset: true, Cols: 80, Rows: 24, Data: []byte(f.first)}
	if f.flood[thread] {
		go func() {
			line := []byte(strings.Repeat("flood ", 13) + "\r\n")
			for {
				select {
				case ff.ch <- core.TermChunk{Data: bytes.Repeat(line, 100)}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return &core.TermFeed{Chunks: ff.ch, Err: func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		return ff.err
	}}, nil
}

func (f *fakeTerms) TerminalInput(ctx context.Context, thread string, data []byte) error {
	f.mu.Lock()
	block := f.stuck[thread]
	if !block {
		f.input[thread] = append(f.input[thread], data...)
	}
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return ctx.Err()
	}
	f.signal()
	return nil
}

func (f *fakeTerms) ResizeTerminal(ctx context.Context, thread string, cols, rows int) error {
	f.mu.Lock()
	f.resizes[thread] = append(f.resizes[thread], [2]int{cols, rows})
	f.mu.Unlock()
	f.signal()
	return nil
}

// attached reports whether the thread has a feed now.
func (f *fakeTerms) attached(thread string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.feeds[thread] != nil
}

// write sends a chunk on the thread's current feed.
func (f *fakeTerms) write(t testing.TB, thread string, c core.TermChunk) {
	t.Helper()
	f.mu.Lock()
	ff := f.feeds[thread]
	f.mu.Unlock()
	if ff == nil {
		t.Fatalf("%s is not attached", thread)
	}
	select {
	case ff.ch <- c:
	case <-time.After(termWait):
		t.Fatalf("the TUI did not read %s's feed", thread)
	}
}

// end closes the thread's feed with err, as the host does when the
// child exits.
func (f *fakeTerms) end(thread string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ff := f.feeds[thread]; ff != nil && !ff.closed {
		ff.closed, ff.err = true, err
		close(ff.ch)
	}
}

func (f *fakeTerms) typed(thread string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.input[thread])
}

func (f *fakeTerms) resizesOf(thread string) [][2]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][2]int(nil), f.resizes[thread]...)
}

func (f *fakeTerms) lastResize(thread string) [2]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.resizes[thread]; len(r) > 0 {
		return r[len(r)-1]
	}
	return [2]int{}
}

// await waits until cond holds over the fake's records.
func (f *fakeTerms) await(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(termWait)
	for !cond() {
		select {
		case <-f.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// newTermHarness drives a model over fakeTerms. The panes' messages go
// to hs.async; pump feeds them to Update on the test's goroutine, as the
// program's loop would.
func newTermHarness(t testing.TB, st *core.State, w, h int) (*harness, *fakeTerms) {
	t.Helper()
	ft := newFakeTerms()
	hs := newHarnessOn(t, ft.stubBackend, ft, nil, w, h)
	hs.m.opts.Workspace = "/work/demo"
	hs.async = make(chan tea.Msg, 64)
	hs.wake = ft.changed
	ctx := hs.m.ctx
	hs.m.terms.send = func(msg tea.Msg) {
		select {
		case hs.async <- msg:
		case <-ctx.Done():
		}
	}
	t.Cleanup(func() {
		hs.cancel()
		done := make(chan struct{})
		go func() { hs.m.terms.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(termWait):
			t.Errorf("the terminal panes' goroutines did not end with the context")
		}
	})
	if st != nil {
		hs.send(snapshotMsg{state: st})
	}
	return hs, ft
}

// pump delivers the panes' messages until cond holds. It also looks
// again whenever the fake recorded something (hs.wake).
func (hs *harness) pump(what string, cond func() bool) {
	hs.t.Helper()
	deadline := time.After(termWait)
	for !cond() {
		select {
		case msg := <-hs.async:
			hs.send(msg)
		case <-hs.wake:
		case <-deadline:
			hs.t.Fatalf("timed out waiting for %s; screen:\n%s", what, hs.screen())
		}
	}
}

// feed writes data to the thread's PTY and pumps until the pane has
// taken it in.
func (hs *harness) feed(ft *fakeTerms, thread, data string) {
	hs.t.Helper()
	p := hs.m.terms.panes[thread]
	if p == nil {
		hs.t.Fatalf("%s has no pane", thread)
	}
	v := p.version.Load()
	ft.write(hs.t, thread, core.TermChunk{Data: []byte(data)})
	hs.pump("the pane to take the chunk in", func() bool { return p.version.Load() > v && !p.dirty.Load() })
}

// pumpScreen pumps until the screen shows s.
func (hs *harness) pumpScreen(s string) {
	hs.t.Helper()
	hs.pump("the screen to show "+s, func() bool { return strings.Contains(hs.screen(), s) })
}

// settle pumps until the selected thread has a pane and every pane has
// taken in its feed and, if it drives its PTY's size, has that size and
// the fake PTY too, so the screen no longer changes.
func (hs *harness) settle(ft *fakeTerms) {
	hs.t.Helper()
	hs.pump("the terminals to settle", func() bool {
		if hs.m.terms.panes[hs.m.selected] == nil {
			return false
		}
		for id, p := range hs.m.terms.panes {
			if p.version.Load() == 0 || p.dirty.Load() {
				return false
			}
			if s := p.size.Load(); s != 0 {
				cols, rows := unpackSize(s)
				if snap := p.snap.Load(); snap.w != cols || snap.h != rows || ft.lastResize(id) != [2]int{cols, rows} {
					return false
				}
			}
		}
		return true
	})
}

// shellState is a shell thread whose session runs (selected: it moved
// last) and a built-in thread.
func shellState(t testing.TB) *core.State {
	j := newJournal(t)
	j.thread("t2", "write docs", core.ThreadIdle, 1, 20*sec)
	j.run("t2", 1, core.RunCompleted, "document the API", 21*sec, 22*sec)
	j.shellThread("s1", "bash box", 30*sec)
	j.session("s1", core.SessRunning)
	return j.st
}

// shellThread adds a thread of the shell provider (it has a PTY) with
// one completed run.
func (j *journal) shellThread(id, title string, at int64) {
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: id, Payload: core.Payload{Thread: &core.Thread{
		ID: id, Title: title, Provider: "shell", Caps: core.Capabilities{Steer: true, Interrupt: true, PTY: true},
		Workspace: "/work/demo", Status: core.ThreadIdle, Runs: 1, CreatedAt: at, UpdatedAt: at}}})
	r := j.run(id, 1, core.RunCompleted, "ls", at+sec, at+2*sec)
	j.node(r, 2, core.NodeAssistantMessage, core.NodeCompleted, "output", "README.md  go.mod")
}

// session sets the thread's provider session state.
func (j *journal) session(thread string, state core.SessionState) {
	j.add(core.Event{Type: core.EvSessionUpdated, Thread: thread, Payload: core.Payload{Session: &core.Session{
		ID: core.SessionID(thread), Thread: thread, Provider: "shell", State: state}}})
}

// termWait bounds how long a test waits for a pane's goroutines (which
// run at the lowest CPU priority) to take something in. It only keeps a
// broken pane from hanging the suite: on a machine busy with other work
// a pane may take many seconds to catch up, and that is no failure.
const termWait = 2 * time.Minute
