package tui

import (
	"context"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// risReset is RIS, a terminal's full reset: a Reset chunk replays the
// recent output from a clean screen and clean modes.
const risReset = "\x1bc"

// read is the pane's reader goroutine: it attaches, then writes the
// feed's chunks into the emulator until the feed or ctx ends, and
// reports why it ended. It publishes once per burst: after a chunk it
// takes the chunks already waiting, for at most a frame, then publishes.
func (p *termPane) read(ctx context.Context) {
	yieldToChildren()
	feed, err := p.term.AttachTerminal(ctx, p.thread)
	if err != nil {
		p.notify(ctx, termEndedMsg{thread: p.thread, id: p.id, err: err})
		return
	}
	ended := func() {
		err := core.ErrTerminalExited
		if feed.Err != nil && feed.Err() != nil {
			err = feed.Err()
		}
		p.notify(ctx, termEndedMsg{thread: p.thread, id: p.id, err: err})
	}
	for {
		select {
		case <-ctx.Done():
			return
		case c, ok := <-feed.Chunks:
			if !ok {
				ended()
				return
			}
			p.apply(ctx, c)
		}
		open := p.more(ctx, feed.Chunks)
		p.publish(ctx)
		if !open {
			ended()
			return
		}
	}
}

// more applies the chunks already waiting, for at most a frame. It
// reports false when the feed closed.
func (p *termPane) more(ctx context.Context, chunks <-chan core.TermChunk) bool {
	for deadline := time.Now().Add(termFrame); time.Now().Before(deadline) && ctx.Err() == nil; {
		select {
		case c, ok := <-chunks:
			if !ok {
				return false
			}
			p.apply(ctx, c)
		default:
			return true
		}
	}
	return true
}

// apply writes one chunk into the emulator, and the lines it scrolls off
// the screen into the scrollback. A Reset starts from a clean screen and
// an empty scrollback at the PTY's size, so the replay lays out as it
// did there, then takes the pane's size and wakes the sender to give it
// to the PTY too.
//
// It stops between two writes once ctx ends: a pane that is behind on a
// flood (its thread runs at low priority) must not hold up the program's
// exit with the rest of it.
func (p *termPane) apply(ctx context.Context, c core.TermChunk) {
	// The emulator's replies to what this writes must not fall between
	// the markers of a key being encoded (term_input.go).
	p.keyMu.Lock()
	defer p.keyMu.Unlock()
	if c.Reset {
		p.hist.reset()
		p.hview.Store(p.hist.view())
		p.emu.Write([]byte(risReset))
		if c.Cols > 0 && c.Rows > 0 {
			p.emu.Resize(c.Cols, c.Rows)
			p.pty.Store(packSize(c.Cols, c.Rows))
		}
	}
	for data := c.Data; len(data) > 0 && ctx.Err() == nil; {
		n := min(len(data), termWriteSize)
		p.emu.Write(data[:n])
		p.keepHistory()
		data = data[n:]
	}
	if c.Reset {
		if cols, rows := unpackSize(p.size.Load()); cols > 0 {
			p.emu.Resize(cols, rows)
			p.wake()
		}
	}
}
