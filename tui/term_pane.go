package tui

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
	"github.com/nexus-tui/nexus/core"
)

// termPane is one attached terminal: a vt emulator that mirrors the
// thread's PTY and the three goroutines that keep it (term_feed.go,
// term_input.go):
//
//   - the reader attaches, writes every chunk of the feed into the
//     emulator, publishes a snapshot of its screen at most once per
//     burst (and at least once a frame in a flood) and sends a coalesced
//     termDirtyMsg;
//   - the drain reads the emulator's pipe, always, so the emulator never
//     waits on it, and moves the keys the sender encodes into a bounded
//     outbox; the emulator's answers to the child's queries are dropped
//     (the host answers them, once);
//   - the sender encodes keys and pastes through the emulator, sends the
//     outbox with TerminalInput, and applies size changes.
//
// The event loop only touches the fields marked "loop", reads the
// published snapshot, and talks to the goroutines through non-blocking
// channel sends and atomics. It never takes the emulator's lock, so a
// busy or stuck terminal can never hold up Update, View or another pane.
type termPane struct {
	thread string
	id     int // loop: tells this attach's messages from an earlier one's
	term   core.Terminals
	emu    *vt.SafeEmulator
	cancel context.CancelFunc
	send   func(tea.Msg) // program.Send

	// in carries keys and pastes to the sender; full means dropped.
	in chan termInput
	// keyMu makes the reader's writes and the sender's encodings take
	// turns on the emulator (term_input.go, keyStart).
	keyMu sync.Mutex
	// encoded counts the keys and pastes the sender encoded, ended the
	// ones the drain has moved to the outbox: equal, nothing typed is
	// still in the emulator's pipe.
	encoded, ended atomic.Int64
	// stopping is closed by stop: the sender flushes and ends the pane.
	stopping chan struct{}
	stopOnce sync.Once
	// resized wakes the sender when size changed; it holds one token.
	resized chan struct{}
	out     outbox

	// size is the size the pane wants (cols<<32 | rows), 0 when the pane
	// does not drive the PTY's size (a grid cell).
	size atomic.Uint64
	// pty is the PTY's size as last known (from a Reset or our resize).
	pty atomic.Uint64
	// snap is the screen as last published; nil until the first chunk.
	snap   atomic.Pointer[termSnap]
	snapMu sync.Mutex // one publisher at a time (the reader, the sender)
	// version counts published snapshots.
	version atomic.Uint64
	// dirty is set while a termDirtyMsg is on its way; the loop clears it.
	dirty atomic.Bool
	// dropped counts input bytes and keys dropped because the terminal
	// did not take them.
	dropped atomic.Int64

	// hist is the scrollback (term_scroll.go), kept by the reader alone;
	// histErased is set when the program erased it. hview is the latest
	// view of hist, which publish puts in the snapshot.
	hist       history
	histErased bool
	hview      atomic.Pointer[histView]

	want   uint64     // loop: the size last stored in size
	cache  termView   // loop: the rendered screen
	scroll termScroll // loop: where the person scrolled the view
}

// termSnap is a published copy of the emulator's screen: what View draws.
type termSnap struct {
	lines  []string // Render's lines, styled
	w, h   int
	cur    uv.Position
	hidden bool
	alt    bool      // the program uses the alternate screen
	hist   *histView // the scrollback above lines; never nil
}

// termInput is a key or a paste for the sender.
type termInput struct {
	key   uv.KeyPressEvent
	paste string
	isKey bool
}

// Bounds of a pane's buffers. A terminal that does not read its input
// loses what is past them, and says so, rather than stall the UI.
const (
	termInQueue  = 256     // keys and pastes waiting for the sender
	maxOutbox    = 1 << 20 // encoded bytes waiting for TerminalInput
	termReadSize = 32 << 10
	// termWriteSize bounds one emulator write, so a key or a resize waits
	// for the emulator's lock at most one such piece of a flood. vt
	// scrolls by copying the whole screen: 4 KB of scrolling output take
	// about 2.5 ms in a 200x50 emulator.
	termWriteSize = 4 << 10
	// termFrame is the longest the reader writes a flood without
	// publishing a snapshot.
	termFrame = 16 * time.Millisecond
)

// termDirtyMsg says a pane's emulator changed. At most one per pane is
// on its way (termPane.dirty); its handler clears the flag.
type termDirtyMsg struct {
	thread string
	id     int
}

// termEndedMsg says a pane's attach failed or its feed ended.
type termEndedMsg struct {
	thread string
	id     int
	err    error
}

// packSize and unpackSize keep a size in one atomic word.
func packSize(cols, rows int) uint64 {
	if cols <= 0 || rows <= 0 {
		return 0
	}
	return uint64(cols)<<32 | uint64(uint32(rows))
}

func unpackSize(s uint64) (cols, rows int) { return int(s >> 32), int(uint32(s)) }

// startTermPane creates a pane that keeps up to scrollback lines above
// its screen (none when 0 or less) and starts its goroutines on wg. It
// never blocks: the attach itself happens in the reader.
func startTermPane(ctx context.Context, wg *sync.WaitGroup, term core.Terminals, send func(tea.Msg),
	thread string, id int, cols, rows, scrollback int) *termPane {
	ctx, cancel := context.WithCancel(ctx)
	p := &termPane{thread: thread, id: id, term: term, cancel: cancel, send: send,
		emu: vt.NewSafeEmulator(max(1, cols), max(1, rows)), in: make(chan termInput, termInQueue),
		resized: make(chan struct{}, 1), stopping: make(chan struct{})}
	p.out.sig = make(chan struct{}, 1)
	// The emulator's scrollback only carries lines to the pane's own
	// (keepHistory); ED 3 erases the pane's too.
	p.emu.SetScrollbackSize(termSpill)
	p.emu.RegisterCsiHandler('J', p.onErase)
	p.hist.max = scrollback
	p.hview.Store(p.hist.view())
	p.want = packSize(cols, rows)
	p.size.Store(p.want)
	// Ending the context closes the reply pipe, which ends the drain and
	// releases a sender or reader writing into it. (Emulator.Close would
	// race with Read: it sets a flag Read reads without a lock.)
	if pw, ok := p.emu.InputPipe().(*io.PipeWriter); ok {
		context.AfterFunc(ctx, func() { _ = pw.CloseWithError(io.EOF) })
	}
	wg.Add(3)
	go func() { defer wg.Done(); p.read(ctx) }()
	go func() { defer wg.Done(); p.drain() }()
	go func() { defer wg.Done(); p.write(ctx) }()
	return p
}

// stop detaches the pane; its goroutines end on their own. What was
// typed into it still goes out first: the sender encodes the keys left in
// its queue and sends them (flushOut), then ends the pane. A terminal
// that takes nothing cannot hold the pane past stopGrace.
func (p *termPane) stop() {
	p.stopOnce.Do(func() {
		close(p.stopping)
		time.AfterFunc(stopGrace, p.cancel)
	})
}

// stopGrace bounds how long a stopped pane may take to send what was
// typed into it.
const stopGrace = 3 * time.Second

// setSize records the size the pane is drawn at (0 x 0: follow the PTY)
// and wakes the sender when it changed. It never blocks.
func (p *termPane) setSize(cols, rows int) {
	s := packSize(cols, rows)
	if s == p.want {
		return
	}
	p.want = s
	p.size.Store(s)
	p.wake()
}

// wake leaves a token for the sender to look at the size again.
func (p *termPane) wake() {
	select {
	case p.resized <- struct{}{}:
	default:
	}
}

// input queues a key or paste for the sender; a full queue drops it.
func (p *termPane) input(in termInput) {
	select {
	case p.in <- in:
	default:
		p.dropped.Add(1)
	}
}

// notify hands a message to the event loop unless the pane was detached.
func (p *termPane) notify(ctx context.Context, msg tea.Msg) {
	if ctx.Err() == nil {
		p.send(msg)
	}
}

// publish snapshots the emulator's screen for View and sends a dirty
// notice unless one is on its way already: a flood costs the loop one
// message per frame it takes, not one per chunk. Rendering a 200x50
// screen takes about 0.3 ms, off the event loop.
func (p *termPane) publish(ctx context.Context) {
	p.snapMu.Lock()
	s := &termSnap{lines: strings.Split(p.emu.Render(), "\n"), w: p.emu.Width(), h: p.emu.Height(),
		cur: p.emu.CursorPosition(), hidden: p.emu.CursorHidden(), alt: p.emu.IsAltScreen(), hist: p.hview.Load()}
	p.snap.Store(s)
	p.version.Add(1)
	p.snapMu.Unlock()
	if !p.dirty.Swap(true) {
		p.notify(ctx, termDirtyMsg{thread: p.thread, id: p.id})
	}
}
