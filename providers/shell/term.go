package shell

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

// ringSize is how much of a PTY's most recent raw output its terminal
// keeps to redraw a pane (a Reset): enough for many full-screen redraws of
// an agent's UI or thousands of shell lines, at 1 MiB per live PTY.
const ringSize = 1 << 20

// feedGap is the shortest time between two chunks of one feed: a flood
// reaches a pane as one chunk per gap (at most 250 a second) rather than
// one per read, which keeps the program's own CPU for the program, and
// adds at most 4 ms to what it shows.
const feedGap = 4 * time.Millisecond

// Spawn size of every PTY, until a pane resizes it.
const (
	spawnCols = 120
	spawnRows = 40
)

// term is the live terminal of one PTY process: the ring of its recent
// output, its size and the feeds following it. The PTY's reader calls
// write and never waits on a feed: each feed copies what it lacks on its
// own goroutine.
type term struct {
	tty *os.File // the PTY master, non-blocking (deadlines work on it)
	wmu sync.Mutex

	mu         sync.Mutex
	ring       ring
	cols, rows int
	feeds      map[*feed]struct{}
	exited     bool
}

// feed is one follower of a terminal. Its fields are guarded by term.mu.
type feed struct {
	wake  chan struct{} // capacity 1: "there is more", coalesced
	off   int64         // the next byte it has not been given
	reset bool          // its next chunk is a Reset (attach, resize)
}

func newTerm(tty *os.File, cols, rows int) *term {
	// The ring's whole buffer up front: growing it by appends would copy
	// it on the reader's path. Untouched pages cost no memory.
	return &term{tty: tty, ring: ring{buf: make([]byte, 0, ringSize)}, cols: cols, rows: rows, feeds: map[*feed]struct{}{}}
}

// write appends output and wakes every feed. It never blocks on a feed.
func (t *term) write(p []byte) {
	t.mu.Lock()
	t.ring.write(p)
	t.wakeAll()
	t.mu.Unlock()
}

// exit ends every feed, once each has taken what is left, with
// core.ErrTerminalExited.
func (t *term) exit() {
	t.mu.Lock()
	t.exited = true
	t.wakeAll()
	t.mu.Unlock()
}

// wakeAll signals every feed; t.mu is held.
func (t *term) wakeAll() {
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
func (t *term) Attach(ctx context.Context) (*core.TermFeed, error) {
	f := &feed{wake: make(chan struct{}, 1), reset: true}
	t.mu.Lock()
	if t.exited {
		t.mu.Unlock()
		return nil, core.ErrNoTerminal
	}
	t.feeds[f] = struct{}{}
	t.mu.Unlock()
	f.wake <- struct{}{}
	out := make(chan core.TermChunk)
	var (
		mu  sync.Mutex
		err error
	)
	go func() {
		end := t.follow(ctx, f, out)
		t.mu.Lock()
		delete(t.feeds, f)
		t.mu.Unlock()
		mu.Lock()
		err = end
		mu.Unlock()
		close(out)
	}()
	return &core.TermFeed{Chunks: out, Err: func() error {
		mu.Lock()
		defer mu.Unlock()
		return err
	}}, nil
}

// follow hands f's chunks to out until the terminal exits (after the
// last byte) or ctx ends, and returns why it stopped.
func (t *term) follow(ctx context.Context, f *feed, out chan<- core.TermChunk) error {
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
func (t *term) next(f *feed) (c core.TermChunk, ok, exited bool) {
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
func (t *term) Input(ctx context.Context, data []byte) error {
	if len(data) > core.MaxTermInput {
		return &core.InputError{Msg: fmt.Sprintf(
			"terminal input is %d bytes, over the limit of %d; send a long paste in pieces", len(data), core.MaxTermInput)}
	}
	if len(data) == 0 {
		return nil
	}
	return t.send(ctx, data)
}

// send writes to the PTY, whole, within ctx. Writes are serialized so
// that one's deadline never cuts another's short.
func (t *term) send(ctx context.Context, data []byte) error {
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
func (t *term) Resize(cols, rows int) error {
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
	for f := range t.feeds {
		f.reset = true
	}
	t.wakeAll()
	return nil
}

// setSize sets a PTY's size (the child gets SIGWINCH). It is
// pty.Setsize's ioctl, made through SyscallConn: pty.Setsize calls Fd,
// which turns the file blocking for good, so deadlines and Close would no
// longer interrupt a read or a write.
func setSize(tty *os.File, cols, rows int) error {
	rc, err := tty.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	}); err != nil {
		return err
	}
	return ierr
}

// ring holds the last ringSize bytes written. Invariant: the byte at
// offset o (counted from the first byte ever written) is buf[o%ringSize]
// for start() <= o < total; buf grows to ringSize, then wraps.
type ring struct {
	buf   []byte
	total int64 // bytes ever written
}

func (r *ring) start() int64 { return max(0, r.total-ringSize) }

func (r *ring) write(p []byte) {
	r.total += int64(len(p))
	if len(p) > ringSize {
		p = p[len(p)-ringSize:]
	}
	if len(r.buf) < ringSize {
		if int(r.total) <= ringSize {
			r.buf = append(r.buf, p...)
			return
		}
		r.buf = slices.Grow(r.buf, ringSize-len(r.buf))[:ringSize]
	}
	i := int((r.total - int64(len(p))) % ringSize)
	n := copy(r.buf[i:], p)
	copy(r.buf, p[n:])
}

// since copies the bytes from offset from (start() <= from <= total).
func (r *ring) since(from int64) []byte {
	out := make([]byte, r.total-from)
	i := int(from % ringSize)
	n := copy(out, r.buf[i:])
	copy(out[n:], r.buf)
	return out
}
