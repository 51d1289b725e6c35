package tui

import (
	"bytes"
	"context"
	"sync"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/nexus-tui/nexus/core"
)

// outbox holds the bytes the emulator encoded for the child (its
// replies, keys, pastes) until the sender writes them, in order. It is
// bounded: past maxOutbox, bytes are dropped and counted.
type outbox struct {
	mu   sync.Mutex
	data []byte
	sig  chan struct{} // one token: there is data
}

// push appends what the drain read; it never blocks. It reports how many
// bytes it had to drop.
func (o *outbox) push(b []byte) (dropped int) {
	o.mu.Lock()
	room := maxOutbox - len(o.data)
	if len(b) > room {
		dropped = len(b) - max(0, room)
		b = b[:max(0, room)]
	}
	o.data = append(o.data, b...)
	o.mu.Unlock()
	select {
	case o.sig <- struct{}{}:
	default:
	}
	return dropped
}

// take empties the outbox.
func (o *outbox) take() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.data
	o.data = nil
	return b
}

// A pane's emulator never answers the child: the host answers every
// terminal query once, live (providers/ptyterm/answer.go), and a pane
// rebuilt from the output ring would otherwise answer old queries again
// into whatever the program does now (vim's buffer, a shell's command
// line). The emulator writes its replies and the keys the sender encodes
// into the same pipe, so the sender brackets what it encodes with these
// markers (it and the reader take turns on the emulator, keyMu), and the
// drain forwards only what lies between them: the rest is replies.
const (
	keyStart = "\xff\xfeNXK\xfe\xff"
	keyEnd   = "\xff\xfeNXE\xfe\xff"
)

// drain is the goroutine that reads the emulator's pipe for as long as
// the pane lives. The emulator writes into that pipe while it holds its
// lock, so a pipe nobody read would stall the reader and, through the
// lock, View. The pipe ends when the pane's context does.
func (p *termPane) drain() {
	buf := make([]byte, termReadSize)
	var pending []byte
	inKey := false
	for {
		n, err := p.emu.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			pending, inKey = p.sortOut(pending, inKey)
		}
		if err != nil {
			return
		}
	}
}

// sortOut forwards the encoded keys in pending and drops the replies; it
// returns what it must keep (a marker may be cut across two reads).
func (p *termPane) sortOut(pending []byte, inKey bool) ([]byte, bool) {
	for {
		marker := keyStart
		if inKey {
			marker = keyEnd
		}
		i := bytes.Index(pending, []byte(marker))
		if i < 0 {
			keep := min(len(pending), len(marker)-1)
			if inKey {
				p.forward(pending[:len(pending)-keep])
			}
			return append([]byte(nil), pending[len(pending)-keep:]...), inKey
		}
		if inKey {
			p.forward(pending[:i])
			p.ended.Add(1)
		}
		pending = pending[i+len(marker):]
		inKey = !inKey
	}
}

func (p *termPane) forward(b []byte) {
	if len(b) == 0 {
		return
	}
	if d := p.out.push(b); d > 0 {
		p.dropped.Add(int64(d))
	}
}

// write is the sender goroutine: it encodes keys and pastes through the
// emulator (which knows the modes the child set: application cursor
// keys, bracketed paste), forwards the outbox with TerminalInput in
// order, and applies size changes to the emulator and the PTY. A
// TerminalInput that blocks holds up only this goroutine: keys queue,
// then drop.
func (p *termPane) write(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.stopping:
			p.flushOut(ctx)
			p.cancel()
			return
		case in := <-p.in:
			p.encode(in)
		case <-p.resized:
			p.resize(ctx)
		case <-p.out.sig:
			data := p.out.take()
			for len(data) > 0 {
				n := min(len(data), core.MaxTermInput)
				if err := p.term.TerminalInput(ctx, p.thread, data[:n]); err != nil {
					// The child is gone or the host is: the feed ends too
					// and says why; what was left to type is lost.
					p.dropped.Add(int64(len(data)))
					break
				}
				data = data[n:]
			}
		}
	}
}

// flushOut sends what was typed into a pane that stops: the keys still
// queued, encoded, and the outbox, once the drain has moved every encoded
// key into it.
func (p *termPane) flushOut(ctx context.Context) {
	for queued := true; queued; {
		select {
		case in := <-p.in:
			p.encode(in)
		default:
			queued = false
		}
	}
	for i := 0; p.ended.Load() < p.encoded.Load() && i < 1000 && ctx.Err() == nil; i++ {
		time.Sleep(time.Millisecond)
	}
	data := p.out.take()
	for len(data) > 0 && ctx.Err() == nil {
		n := min(len(data), core.MaxTermInput)
		if err := p.term.TerminalInput(ctx, p.thread, data[:n]); err != nil {
			p.dropped.Add(int64(len(data)))
			return
		}
		data = data[n:]
	}
}

// encode has the emulator encode a key or paste into its pipe, between
// the markers the drain forwards.
func (p *termPane) encode(in termInput) {
	p.encoded.Add(1)
	p.keyMu.Lock()
	defer p.keyMu.Unlock()
	p.emu.SendText(keyStart)
	defer p.emu.SendText(keyEnd)
	if !in.isKey {
		p.emu.Paste(in.paste)
	} else if seq := extraKeySeq(in.key); seq != "" {
		p.emu.SendText(seq)
	} else {
		p.emu.SendKey(in.key)
	}
}

// resize gives the emulator the pane's size and, when the PTY has
// another, the PTY too (coalesced: only when a size changed).
func (p *termPane) resize(ctx context.Context) {
	s := p.size.Load()
	cols, rows := unpackSize(s)
	if s == 0 {
		return // a grid cell follows the PTY's size
	}
	if p.emu.Width() != cols || p.emu.Height() != rows {
		p.emu.Resize(cols, rows)
		p.publish(ctx)
	}
	if p.pty.Swap(s) != s {
		// An error leaves the PTY as it was; the next size change tries
		// again. The feed reports a PTY that is gone.
		_ = p.term.ResizeTerminal(ctx, p.thread, cols, rows)
	}
}

// extraKeySeq encodes the keys vt's encoder leaves out: cursor and
// editing keys with modifiers, as xterm sends them (CSI 1;m A, CSI 3;m ~;
// readline binds ctrl+left and ctrl+right to word moves this way), and
// shift+enter and shift+space as their plain keys. "" means vt's encoder
// handles the key.
func extraKeySeq(k uv.KeyPressEvent) string {
	mod := 1
	if k.Mod&uv.ModShift != 0 {
		mod++
	}
	if k.Mod&uv.ModAlt != 0 {
		mod += 2
	}
	if k.Mod&uv.ModCtrl != 0 {
		mod += 4
	}
	if mod == 1 {
		return ""
	}
	switch {
	case csiFinal[k.Code] != "":
		return "\x1b[1;" + itoa(mod) + csiFinal[k.Code]
	case csiTilde[k.Code] != "":
		return "\x1b[" + csiTilde[k.Code] + ";" + itoa(mod) + "~"
	case k.Mod == uv.ModShift && k.Code == uv.KeyEnter:
		return "\r"
	case k.Mod == uv.ModShift && k.Code == uv.KeySpace:
		return " "
	}
	return ""
}

// The xterm encodings of cursor and editing keys: CSI 1;m <final> and
// CSI <n>;m ~.
var (
	csiFinal = map[rune]string{uv.KeyUp: "A", uv.KeyDown: "B", uv.KeyRight: "C", uv.KeyLeft: "D",
		uv.KeyHome: "H", uv.KeyEnd: "F"}
	csiTilde = map[rune]string{uv.KeyInsert: "2", uv.KeyDelete: "3", uv.KeyPgUp: "5", uv.KeyPgDown: "6"}
)
