package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// tickerFPS is the rate Bubble Tea's own ticker is given. quietTicker
// stops it; should that fail, it wakes the program once a second.
const tickerFPS = 1

// program is the Bubble Tea program with frames on demand: Bubble Tea
// reads the input, runs the event loop and the commands; its renderer
// is off, and the painter draws (frames.go). The tty's raw mode, the
// terminal's size and its resizes, which Bubble Tea handles only with
// its renderer on, are handled here.
type program struct {
	*tea.Program
	f       *frames
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closeIn io.Closer
}

// newProgram builds the program for m on the terminal of o and starts
// the painter and the resize watcher; close ends them and gives the
// terminal back.
func newProgram(ctx context.Context, m *Model, o IO) (*program, error) {
	pr := &program{}
	in := o.Input
	if in == nil {
		in = os.Stdin
		if !term.IsTerminal(os.Stdin.Fd()) {
			ttyIn, _, err := tea.OpenTTY()
			if err != nil {
				return nil, fmt.Errorf("open the terminal (run nexus in a terminal): %w", err)
			}
			in, pr.closeIn = ttyIn, ttyIn
		}
	}
	out := o.Output
	if out == nil {
		out = os.Stdout
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	t, err := newTTY(in)
	if err != nil {
		pr.closeInput()
		return nil, fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	resizes := watchSize(out)
	w, h := o.Width, o.Height
	if tw, th, ok := termSize(out); ok {
		w, h = tw, th
	}
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	scr := newScreen(out, env, w, h)
	if t.prev != nil {
		scr.setOptimizations(movementOptimizations(t.prev))
	}
	f := &frames{m: m, tty: t, dirty: true}
	p := tea.NewProgram(f, tea.WithContext(ctx), tea.WithoutRenderer(), tea.WithFPS(tickerFPS),
		tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env), tea.WithWindowSize(w, h),
		tea.WithFilter(f.filter))
	f.p = newPainter(scr, p.Send)
	f.quiet = func() { quietTicker(p) }
	m.frames = f
	pr.Program, pr.f = p, f
	pctx, cancel := context.WithCancel(ctx)
	pr.cancel = cancel
	pr.wg.Add(2)
	go func() {
		defer pr.wg.Done()
		f.p.run(pctx)
	}()
	go func() {
		defer pr.wg.Done()
		resizes(pctx, p.Send)
	}()
	_ = scr.queryModes()
	return pr, nil
}

// close stops the painter and gives the terminal back. Call it after
// Run returned.
func (pr *program) close() {
	pr.cancel()
	pr.wg.Wait()
	_ = pr.f.p.scr.release()
	_ = pr.f.tty.restore()
	pr.closeInput()
}

func (pr *program) closeInput() {
	if pr.closeIn != nil {
		_ = pr.closeIn.Close()
	}
}
