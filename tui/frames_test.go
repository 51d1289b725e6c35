package tui

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// lockedBuffer is a terminal the painter writes to and the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int // writes
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	return b.buf.Write(p)
}

func (b *lockedBuffer) state() (string, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String(), b.n
}

// paintRig is the frames wrapper over a harness's model, with a painter
// whose budget the test ends by hand and whose drawMsgs it collects.
type paintRig struct {
	hs    *harness
	f     *frames
	out   *lockedBuffer
	over  chan time.Time
	armed chan time.Duration
	draws chan tea.Msg

	mu    sync.Mutex
	clock time.Time
}

func newPaintRig(t *testing.T) *paintRig {
	hs := newHarness(t, demoState(t), 120, 40)
	r := &paintRig{hs: hs, out: &lockedBuffer{}, over: make(chan time.Time), armed: make(chan time.Duration, 16),
		draws: make(chan tea.Msg, 16), clock: time.Unix(1000, 0)}
	scr := newScreen(r.out, []string{"TERM=xterm-256color"}, 120, 40)
	p := newPainter(scr, func(msg tea.Msg) { r.draws <- msg })
	p.now = func() time.Time {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.clock
	}
	p.after = func(d time.Duration) <-chan time.Time {
		r.armed <- d
		return r.over
	}
	r.f = &frames{m: hs.m, p: p, dirty: true, sized: true, quiet: func() {}, tty: &tty{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// step is one turn of Bubble Tea's loop: Update, then View.
func (r *paintRig) step(msg tea.Msg) {
	r.f.Update(msg)
	r.f.View()
}

// pass lets the budget's time go by on the painter's clock.
func (r *paintRig) pass() {
	r.mu.Lock()
	r.clock = r.clock.Add(frameBudget)
	r.mu.Unlock()
}

// endBudget ends the budget of a frame held back: the painter armed its
// timer, the time goes by and the timer fires.
func (r *paintRig) endBudget(t *testing.T) {
	t.Helper()
	select {
	case <-r.armed:
	case <-time.After(time.Minute):
		t.Fatal("the painter held a frame back but armed no timer")
	}
	r.pass()
	r.over <- r.clock
}

// waitFrames waits until n frames were drawn.
func (r *paintRig) waitFrames(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for r.f.p.drawn.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d frames drawn, want %d", r.f.p.drawn.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A frame is drawn at once after a quiet spell; within its budget more
// changes draw nothing and hold one frame back, which the drawMsg at the
// budget's end brings, with the latest view. A timer runs only while a
// frame is held back; with nothing dirty, no frame and no drawMsg come.
func TestFramesOnDemandWithABudget(t *testing.T) {
	r := newPaintRig(t)
	r.f.View() // Bubble Tea's first render
	r.waitFrames(t, 1)
	first, _ := r.out.state()
	for _, seq := range []string{"\x1b[?1049h", "\x1b[?2004h", "\x1b[?1002h", "\x1b[?1006h", "\x1b]2;nexus\a"} {
		if !strings.Contains(first, seq) {
			t.Errorf("the first frame lacks %q (alt screen, paste, mouse, title)", seq)
		}
	}
	for _, c := range "hello" {
		r.step(tea.KeyPressMsg{Code: c, Text: string(c)})
	}
	if n := r.f.p.drawn.Load(); n != 1 {
		t.Fatalf("%d frames drawn within one budget, want 1", n)
	}
	r.endBudget(t)
	msg := <-r.draws
	if _, ok := msg.(drawMsg); !ok {
		t.Fatalf("the painter sent %T, want drawMsg", msg)
	}
	r.step(msg)
	r.waitFrames(t, 2)
	if out, _ := r.out.state(); !strings.Contains(out, "hello") {
		t.Errorf("the held-back frame does not show the keys typed during the budget")
	}
	// Nothing is dirty now: a View draws nothing and no timer is armed.
	r.pass()
	_, writes := r.out.state()
	r.f.View()
	if _, again := r.out.state(); again != writes || r.f.p.drawn.Load() != 2 {
		t.Errorf("a View with nothing dirty drew a frame")
	}
	select {
	case d := <-r.armed:
		t.Errorf("a timer of %v was armed with nothing held back", d)
	case msg := <-r.draws:
		t.Errorf("the painter asked for a frame with nothing changed: %T", msg)
	default:
	}
	// After a quiet spell a key is drawn at once, with no timer.
	r.step(tea.KeyPressMsg{Code: 'x', Text: "x"})
	r.waitFrames(t, 3)
	r.pass()
	r.step(tea.KeyPressMsg{Code: tea.KeyBackspace})
	r.waitFrames(t, 4)
	r.pass()
	before, w0 := r.out.state()
	r.step(spinMsg{}) // the spinner's tick with the thread's run active
	r.waitFrames(t, 5)
	after, w1 := r.out.state()
	if w1 != w0+1 || len(after)-len(before) > 40 {
		t.Errorf("a spinner frame wrote %d bytes in %d writes, want one small write", len(after)-len(before), w1-w0)
	}
	select {
	case d := <-r.armed:
		t.Errorf("a timer of %v was armed for frames drawn at once", d)
	default:
	}
}

// tea.Raw bytes reach the terminal through the painter, as they are.
func TestRawGoesThroughThePainter(t *testing.T) {
	r := newPaintRig(t)
	msg := rawFilter(r.f, tea.Raw("\x1b]52;c;aGk=\a")())
	if _, ok := msg.(rawOutMsg); !ok {
		t.Fatalf("the filter passed %T on, want rawOutMsg", msg)
	}
	r.step(msg)
	deadline := time.Now().Add(time.Minute)
	for {
		if out, _ := r.out.state(); strings.Contains(out, "\x1b]52;c;aGk=\a") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the raw bytes never reached the terminal")
		}
		time.Sleep(time.Millisecond)
	}
}

// The handover to $EDITOR leaves the alternate screen and turns the
// reports off; taking the terminal back redraws every cell.
func TestHandoverReleasesAndRedraws(t *testing.T) {
	r := newPaintRig(t)
	r.f.View()
	r.waitFrames(t, 1)
	r.pass()
	before, _ := r.out.state()
	r.f.giveBack()
	released, _ := r.out.state()
	gone := released[len(before):]
	for _, seq := range []string{"\x1b[?1049l", "\x1b[?2004l", "\x1b[?1002l", "\x1b[?25h"} {
		if !strings.Contains(gone, seq) {
			t.Errorf("giving the terminal back does not write %q: %q", seq, gone)
		}
	}
	r.f.p.frame(r.hs.m.View()) // a frame while released is dropped
	r.f.takeBack()
	r.step(editorExitedMsg{})
	r.waitFrames(t, 3)
	back, _ := r.out.state()
	redraw := back[len(released):]
	if !strings.Contains(redraw, "\x1b[?1049h") || !strings.Contains(redraw, "Threads (3)") {
		t.Errorf("taking the terminal back did not redraw the whole screen: %q", redraw)
	}
}

// quietTicker reaches Bubble Tea's frame ticker by its field; an
// upgrade that renames it would leave a ticker waking the idle UI.
func TestBubbleTeaTickerField(t *testing.T) {
	f, ok := reflect.TypeFor[tea.Program]().FieldByName("ticker")
	if !ok || f.Type != reflect.TypeFor[*time.Ticker]() {
		t.Fatal("tea.Program has no ticker *time.Ticker field: quietTicker cannot stop Bubble Tea's ticker (see docs/decisions/tui-frames-on-demand.md)")
	}
}

// Bytes an update asks to write (the bell, a notification) go out ahead
// of that update's frame, as Bubble Tea wrote them ahead of its next.
func TestRawGoesOutBeforeItsFrame(t *testing.T) {
	r := newPaintRig(t)
	r.hs.m.frames = r.f
	r.f.View()
	r.waitFrames(t, 1)
	r.pass()
	before, _ := r.out.state()
	r.f.Update(tea.KeyPressMsg{Code: 'Z', Text: "Z"})
	if cmd := r.hs.m.raw("\a"); cmd != nil {
		t.Error("with the painter, raw bytes came back as a Cmd")
	}
	r.f.View()
	r.waitFrames(t, 2)
	out, _ := r.out.state()
	out = out[len(before):]
	if bell, key := strings.Index(out, "\a"), strings.Index(out, "Z"); bell < 0 || key < 0 || bell > key {
		t.Errorf("the bell is not written ahead of the frame that draws the key: %q", out)
	}
}
