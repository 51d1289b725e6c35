package ptyterm

import (
	"context"
	"io"
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
//
// The emulator costs nothing while a program only prints: output is kept
// unparsed until a query appears in it (hasQuery), then all of it is fed
// at once and the emulator answers. Past maxUnfed bytes without a query
// the emulator starts afresh from the last part, as a screen attached
// then would (a full screen of output fixes what the cursor position
// depends on).

// answerQueue bounds the replies waiting to be written to the PTY; past
// it they are dropped (a program that floods queries and reads nothing).
const answerQueue = 64 << 10

// answerWriteTimeout bounds one write of replies to the PTY.
const answerWriteTimeout = 2 * time.Second

// maxUnfed bounds the output kept unparsed; past it the oldest half goes.
const maxUnfed = 1 << 20

type answerer struct {
	mu         sync.Mutex // guards emu, unfed and the size
	emu        *vt.Emulator
	unfed      []byte
	cols, rows int

	qmu  sync.Mutex
	q    []byte
	sig  chan struct{}
	done chan struct{}
	once sync.Once
}

// newAnswerer starts an answerer of a cols x rows terminal that writes
// its replies with send.
func newAnswerer(cols, rows int, send func(ctx context.Context, p []byte) error) *answerer {
	a := &answerer{sig: make(chan struct{}, 1), done: make(chan struct{}), cols: max(1, cols), rows: max(1, rows)}
	a.emu = a.newEmulator()
	go a.write(send)
	return a
}

// newEmulator starts an emulator at the current size and its drain.
func (a *answerer) newEmulator() *vt.Emulator {
	emu := vt.NewEmulator(a.cols, a.rows)
	// It answers; it shows nothing. (The emulator ignores sizes below 1
	// and would keep its default of 10,000 lines.)
	emu.SetScrollbackSize(1)
	go a.drain(emu)
	return emu
}

// stopEmulator ends an emulator's drain. (Emulator.Close would race with
// Read, which reads its closed flag without a lock: close the pipe.)
func stopEmulator(emu *vt.Emulator) {
	if pw, ok := emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}

// feed takes live output. When a query may be in what is unparsed, the
// emulator parses it all and writes its replies into its pipe, which the
// drain empties at once, so feed never waits on the PTY.
func (a *answerer) feed(p []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	from := max(0, len(a.unfed)-maxQueryLen) // a query may have begun in the last read
	a.unfed = append(a.unfed, p...)
	if hasQuery(a.unfed[from:]) {
		_, _ = a.emu.Write(a.unfed)
		a.unfed = a.unfed[:0]
		return
	}
	if len(a.unfed) > maxUnfed {
		stopEmulator(a.emu)
		a.emu = a.newEmulator()
		a.unfed = append(a.unfed[:0], a.unfed[len(a.unfed)-maxUnfed/2:]...)
	}
}

func (a *answerer) resize(cols, rows int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Output not parsed yet is parsed at the new size when a query comes:
	// a program redraws after a resize anyway, and parsing a flood here
	// would hold the PTY's reader.
	a.cols, a.rows = max(1, cols), max(1, rows)
	a.emu.Resize(a.cols, a.rows)
}

// close stops the goroutines.
func (a *answerer) close() {
	a.once.Do(func() {
		close(a.done)
		a.mu.Lock()
		stopEmulator(a.emu)
		a.mu.Unlock()
	})
}

// drain moves an emulator's replies into the bounded queue.
func (a *answerer) drain(emu *vt.Emulator) {
	buf := make([]byte, 4096)
	for {
		n, err := emu.Read(buf)
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

// maxQueryLen is the longest query hasQuery looks for across two reads.
const maxQueryLen = 64

// hasQuery reports whether b may hold a terminal query: a CSI sequence
// ending in n (status, cursor position), c (device attributes), t
// (window reports), q with > (version) or p with $ (mode report); an OSC
// that asks (a ?); a DCS request ($q, +q). A sequence cut at the end
// counts, so a query split across reads is not missed.
func hasQuery(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			continue
		}
		if i+1 >= len(b) {
			return true // cut: decide with the next read
		}
		switch b[i+1] {
		case '[':
			j := i + 2
			gt, dollar := false, false
			for ; j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f; j++ {
				gt = gt || b[j] == '>'
				dollar = dollar || b[j] == '$'
			}
			if j >= len(b) {
				return true
			}
			switch f := b[j]; {
			case f == 'n' || f == 'c' || f == 't', f == 'q' && gt, f == 'p' && dollar:
				return true
			}
		case ']':
			for j := i + 2; j < len(b) && j < i+2+maxQueryLen; j++ {
				if b[j] == 0x07 || b[j] == 0x1b {
					break
				}
				if b[j] == '?' {
					return true
				}
				if j == len(b)-1 {
					return true
				}
			}
		case 'P':
			if i+3 >= len(b) || (b[i+3] == 'q' && (b[i+2] == '$' || b[i+2] == '+')) {
				return true
			}
		}
	}
	return false
}
