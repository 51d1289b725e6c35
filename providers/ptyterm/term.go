package ptyterm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/providers"
)

// RingSize is how much of a PTY's most recent raw output its terminal
// keeps to redraw a pane (a Reset): enough for many full-screen redraws of
// an agent's UI or thousands of shell lines, at 1 MiB per PTY.
const RingSize = 1 << 20

// feedGap is the shortest time between two chunks of one feed: a flood
// reaches a pane as one chunk per gap (at most 250 a second) rather than
// one per read, which keeps the program's own CPU for the program, and
// adds at most 4 ms to what it shows.
const feedGap = 4 * time.Millisecond

// readSize is the buffer of Pump's reads.
const readSize = 32 << 10

// Term is the terminal of one PTY process: the master, the ring of its
// recent output, its size and the feeds following it. It implements
// providers.Terminal. Pump reads the PTY into the ring and never waits
// on a feed: each feed copies what it lacks on its own goroutine.
type Term struct {
	tty *os.File // the PTY master, non-blocking (deadlines work on it)
	wmu sync.Mutex

	mu         sync.Mutex
	ring       ring
	cols, rows int
	feeds      map[*feed]struct{}
	exited     bool

	ans *answerer // answers the program's terminal queries (answer.go)
}

var _ providers.Terminal = (*Term)(nil)

// feed is one follower of a terminal. Its fields are guarded by Term.mu.
type feed struct {
	wake  chan struct{} // capacity 1: "there is more", coalesced
	off   int64         // the next byte it has not been given
	reset bool          // its next chunk is a Reset (attach, resize)
}

func newTerm(tty *os.File, cols, rows int) *Term {
	// The ring's whole buffer up front: growing it by appends would copy
	// it on the reader's path. Untouched pages cost no memory.
	t := &Term{tty: tty, ring: ring{buf: make([]byte, 0, RingSize)}, cols: cols, rows: rows, feeds: map[*feed]struct{}{}}
	t.ans = newAnswerer(cols, rows, t.Send)
	return t
}

// Pump reads the PTY until a read fails (EIO once every process has
// closed its side: the program and whatever it left behind exited; or
// the master was closed). Each read goes to the ring, waking every feed,
// then to each, on the reader's path: each must not block. Pump does not
// end the feeds: Exit does.
func (t *Term) Pump(each func(raw []byte)) {
	buf := make([]byte, readSize)
	for {
		n, err := t.tty.Read(buf)
		if n > 0 {
			t.ans.feed(buf[:n])
			t.write(buf[:n])
			if each != nil {
				each(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// write appends output and wakes every feed. It never blocks on a feed.
func (t *Term) write(p []byte) {
	t.mu.Lock()
	t.ring.write(p)
	t.wakeAll()
	t.mu.Unlock()
}

// Exit ends every feed, once each has taken what is left, with
// core.ErrTerminalExited. From then on Attach, Input and Resize answer
// core.ErrNoTerminal; Snapshot still has the last output.
func (t *Term) Exit() {
	t.ans.close()
	t.mu.Lock()
	t.exited = true
	t.wakeAll()
	t.mu.Unlock()
}

// Close closes the master (a Pump still reading returns).
func (t *Term) Close() error {
	t.ans.close()
	return t.tty.Close()
}

// wakeAll signals every feed; t.mu is held.
func (t *Term) wakeAll() {
	for f := range t.feeds {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// Attach implements providers.Terminal. The feed's goroutine ends when
// ctx ends or the reader has taken the chunk that ends it; a reader that
// stops reading holds only that goroutine, never the PTY.
func (t *Term) Attach(ctx context.Context) (*core.TermFeed, error) {
	f := &feed{wake: make(chan struct{}, 1), reset: true}
	t.mu.Lock()
	if t.exited {
		t.mu.Unlock()
		return nil, core.ErrNoTerminal
	}
	t.feeds[f] = struct{}{}
	t.mu.Unlock()
	f.wake <- struct{}{}
	return NewFeed(func(out chan<- core.TermChunk) error {
		defer func() {
			t.mu.Lock()
			delete(t.feeds, f)
			t.mu.Unlock()
		}()
		return t.follow(ctx, f, out)
	}), nil
}

// NewFeed runs follow on a goroutine of its own: the feed's chunks are
// what it sends, its channel closes when follow returns, and Err then
// says what follow returned.
func NewFeed(follow func(out chan<- core.TermChunk) error) *core.TermFeed {
	out := make(chan core.TermChunk)
	var (
		mu  sync.Mutex
		err error
	)
	go func() {
		end := follow(out)
		mu.Lock()
		err = end
		mu.Unlock()
		close(out)
	}()
	return &core.TermFeed{Chunks: out, Err: func() error {
		mu.Lock()
		defer mu.Unlock()
		return err
	}}
}

// Snapshot is the chunk a new pane would start with: a Reset with the
// whole ring at the terminal's size. It works after Exit too, so a
// caller can still show an exited program's last screen.
func (t *Term) Snapshot() core.TermChunk {
	t.mu.Lock()
	defer t.mu.Unlock()
	return core.TermChunk{Reset: true, Data: t.ring.since(t.ring.start()), Cols: t.cols, Rows: t.rows}
}

// follow hands f's chunks to out until the terminal exits (after the
// last byte) or ctx ends, and returns why it stopped.
func (t *Term) follow(ctx context.Context, f *feed, out chan<- core.TermChunk) error {
	gap := time.NewTimer(0)
	defer gap.Stop()
	for {
		select {
		case <-f.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		// Output that follows a chunk within feedGap waits for the rest
		// of the gap and goes as one chunk: under a flood the feed wakes
		// at most once per gap, whatever the reads, and a key's echo
		// after a pause goes at once.
		select {
		case <-gap.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		c, ok, exited := t.next(f)
		if ok {
			select {
			case out <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if exited {
			return core.ErrTerminalExited
		}
		gap.Reset(feedGap)
	}
}

// next is what f has not been given: a Reset with the whole ring and the
// size when it asked for one or its offset fell out of the ring, else the
// bytes since its offset. ok is false when there is nothing new; exited
// reports that nothing more will come.
func (t *Term) next(f *feed) (c core.TermChunk, ok, exited bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case f.reset || f.off < t.ring.start():
		c = core.TermChunk{Reset: true, Data: t.ring.since(t.ring.start()), Cols: t.cols, Rows: t.rows}
		ok, f.reset = true, false
	case f.off < t.ring.total:
		c, ok = core.TermChunk{Data: t.ring.since(f.off)}, true
	}
	f.off = t.ring.total
	return c, ok, t.exited
}

// Input implements providers.Terminal. ctx bounds a write the child does
// not read (its input queue is full).
func (t *Term) Input(ctx context.Context, data []byte) error {
	if len(data) > core.MaxTermInput {
		return &core.InputError{Msg: fmt.Sprintf(
			"terminal input is %d bytes, over the limit of %d; send a long paste in pieces", len(data), core.MaxTermInput)}
	}
	if len(data) == 0 {
		return nil
	}
	return t.Send(ctx, data)
}

// Send writes to the PTY, whole, within ctx, with no bound on its size
// (Input is what a person's keys go through). Writes are serialized so
// that one's deadline never cuts another's short. After Exit, or once
// the master is closed or hung up, it is core.ErrNoTerminal.
func (t *Term) Send(ctx context.Context, data []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.mu.Lock()
	exited := t.exited
	t.mu.Unlock()
	if exited {
		return core.ErrNoTerminal
	}
	deadline, _ := ctx.Deadline() // zero: none
	if err := t.tty.SetWriteDeadline(deadline); errors.Is(err, os.ErrClosed) {
		return core.ErrNoTerminal
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		t.tty.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	_, err := t.tty.Write(data)
	if !stop() {
		<-fired
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("typing into the terminal: %w", ctx.Err())
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("typing into the terminal: its program reads no input: %w", context.DeadlineExceeded)
	default:
		return core.ErrNoTerminal // closed or hung up: the process exited
	}
}

// Resize implements providers.Terminal. A new size makes every feed's
// next chunk a Reset at that size, so each pane showing the terminal
// learns it (the last resize wins); the same size again does nothing.
func (t *Term) Resize(cols, rows int) error {
	if cols < 1 || cols > providers.MaxTermSize || rows < 1 || rows > providers.MaxTermSize {
		return &core.InputError{Msg: fmt.Sprintf("terminal size %dx%d: columns and rows must be 1 to %d",
			cols, rows, providers.MaxTermSize)}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return core.ErrNoTerminal
	}
	if cols == t.cols && rows == t.rows {
		return nil
	}
	if err := setSize(t.tty, cols, rows); err != nil {
		return fmt.Errorf("resizing the terminal: %w", err)
	}
	t.cols, t.rows = cols, rows
	t.ans.resize(cols, rows)
	for f := range t.feeds {
		f.reset = true
	}
	t.wakeAll()
	return nil
}

// Foreground is the PTY's foreground process group, 0 if unknown (the
// program's jobs may run in groups of their own). It asks through
// SyscallConn: Fd would make the master blocking.
func (t *Term) Foreground() int {
	rc, err := t.tty.SyscallConn()
	if err != nil {
		return 0
	}
	pg := 0
	_ = rc.Control(func(fd uintptr) {
		if g, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
			pg = g
		}
	})
	return pg
}

// ring holds the last RingSize bytes written. Invariant: the byte at
// offset o (counted from the first byte ever written) is buf[o%RingSize]
// for start() <= o < total; buf grows to RingSize, then wraps.
type ring struct {
	buf   []byte
	total int64 // bytes ever written
}

func (r *ring) start() int64 { return max(0, r.total-RingSize) }

func (r *ring) write(p []byte) {
	r.total += int64(len(p))
	if len(p) > RingSize {
		p = p[len(p)-RingSize:]
	}
	if len(r.buf) < RingSize {
		if int(r.total) <= RingSize {
			r.buf = append(r.buf, p...)
			return
		}
		r.buf = slices.Grow(r.buf, RingSize-len(r.buf))[:RingSize]
	}
	i := int((r.total - int64(len(p))) % RingSize)
	n := copy(r.buf[i:], p)
	copy(r.buf, p[n:])
}

// since copies the bytes from offset from (start() <= from <= total).
func (r *ring) since(from int64) []byte {
	out := make([]byte, r.total-from)
	i := int(from % RingSize)
	n := copy(out, r.buf[i:])
	copy(out[n:], r.buf)
	return out
}
