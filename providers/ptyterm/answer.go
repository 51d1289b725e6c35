package ptyterm

import (
	"context"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"
)

// A program asks its terminal questions on its output (cursor position
// CSI 6n, device attributes, colours OSC 10/11, mode reports DECRQM) and
// reads the answers as input. Exactly one emulator per PTY answers: this
// one, in the host, fed every byte once, as it arrives. The screens that
// show the terminal (each UI's pane, rebuilt from the ring on attach,
// resize, zoom or a grid) never answer, so an old query is never answered
// again into whatever the program is doing now, and two UIs attached to
// one shell do not both answer.

// answerQueue bounds the replies waiting to be written to the PTY; past
// it they are dropped (a program that floods queries and reads nothing).
const answerQueue = 64 << 10

// answerWriteTimeout bounds one write of replies to the PTY.
const answerWriteTimeout = 2 * time.Second

type answerer struct {
	mu  sync.Mutex // guards emu's Write and Resize
	emu *vt.Emulator

	qmu  sync.Mutex
	q    []byte
	sig  chan struct{}
	done chan struct{}
	once sync.Once
}

// newAnswerer starts an answerer of a cols x rows terminal that writes
// its replies with send.
func newAnswerer(cols, rows int, send func(ctx context.Context, p []byte) error) *answerer {
	emu := vt.NewEmulator(max(1, cols), max(1, rows))
	emu.SetScrollbackSize(0) // it answers; it shows nothing
	a := &answerer{emu: emu, sig: make(chan struct{}, 1), done: make(chan struct{})}
	go a.drain()
	go a.write(send)
	return a
}

// feed gives the emulator live output. The emulator writes its replies
// into its pipe while it parses; the drain takes them at once, so feed
// never waits on the PTY.
func (a *answerer) feed(p []byte) {
	a.mu.Lock()
	_, _ = a.emu.Write(p)
	a.mu.Unlock()
}

func (a *answerer) resize(cols, rows int) {
	a.mu.Lock()
	a.emu.Resize(max(1, cols), max(1, rows))
	a.mu.Unlock()
}

// close stops both goroutines.
func (a *answerer) close() {
	a.once.Do(func() {
		close(a.done)
		_ = a.emu.Close()
	})
}

// drain moves the emulator's replies into the bounded queue.
func (a *answerer) drain() {
	buf := make([]byte, 4096)
	for {
		n, err := a.emu.Read(buf)
		if n > 0 {
			a.qmu.Lock()
			if len(a.q)+n <= answerQueue {
				a.q = append(a.q, buf[:n]...)
			}
			a.qmu.Unlock()
			select {
			case a.sig <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// write sends the queued replies to the PTY, in order.
func (a *answerer) write(send func(ctx context.Context, p []byte) error) {
	for {
		select {
		case <-a.done:
			return
		case <-a.sig:
		}
		a.qmu.Lock()
		p := a.q
		a.q = nil
		a.qmu.Unlock()
		if len(p) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), answerWriteTimeout)
		_ = send(ctx, p) // a program that reads no input gets no answer
		cancel()
	}
}
