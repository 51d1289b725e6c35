package tui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// frameBudget is the least time between the starts of two frames. It
// only holds frames back while something floods: the first frame after
// a quiet spell is drawn at once.
const frameBudget = 8 * time.Millisecond

// drawMsg wakes the event loop for a frame the budget held back.
type drawMsg struct{}

// rawOutMsg is a tea.Raw on its way to the terminal: the program's
// filter turns every tea.RawMsg into one, so the bytes go out through
// the painter, in order with the frames, and not through Bubble Tea's
// output buffer (which only its ticker would flush).
type rawOutMsg struct{ s string }

// rawFilter is the program's filter: see rawOutMsg.
func rawFilter(_ tea.Model, msg tea.Msg) tea.Msg {
	if r, ok := msg.(tea.RawMsg); ok {
		if s, ok := r.Msg.(string); ok {
			return rawOutMsg{s: s}
		}
	}
	return msg
}

// raw writes s to the terminal ahead of the frame of the update that
// asks for it (the bell and a notification before the title that counts
// the wait), as Bubble Tea wrote tea.Raw ahead of its next frame. Without
// the painter (tests that drive Update) it is a tea.Raw.
func (m *Model) raw(s string) tea.Cmd {
	if m.frames == nil {
		return tea.Raw(s)
	}
	m.frames.p.raw(s)
	return nil
}

// frames is the model the program runs: the root Model with frames on
// demand around it. Any message the Model takes marks the view dirty;
// after Bubble Tea's Update the loop calls View, which draws the Model
// only when it is dirty and the painter is free, and hands the view to
// the painter. A frame the budget holds back comes with the drawMsg the
// painter sends when the budget is over, so nothing is lost and nothing
// ticks while the screen is still.
type frames struct {
	m     *Model
	p     *painter
	dirty bool
	// sized is set by the first tea.WindowSizeMsg: Bubble Tea renders
	// once before it, at the model's default size, which would flash a
	// wrong-sized frame.
	sized bool
	// quiet stops Bubble Tea's own frame ticker (frames_ticker.go); it
	// runs again after the terminal was handed to $EDITOR (retick).
	quiet  func()
	retick bool
	tty    *tty
}

func (f *frames) Init() tea.Cmd {
	f.quiet()
	return f.m.Init()
}

func (f *frames) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	// Bubble Tea restarts its ticker when it takes the terminal back,
	// before it hands this update the message that did it (the exec's,
	// ResumeMsg); stop it again afterwards.
	defer func() {
		if f.retick {
			f.retick = false
			f.quiet()
		}
	}()
	switch msg := msg.(type) {
	case drawMsg:
		return f, nil
	case rawOutMsg:
		f.p.raw(msg.s)
		return f, nil
	case tea.ModeReportMsg:
		f.p.scr.modeReport(msg)
		return f, nil
	case tea.ColorProfileMsg:
		f.p.scr.setProfile(msg)
	case tea.WindowSizeMsg:
		f.p.scr.resize(msg.Width, msg.Height)
		f.sized = true
	case tea.SuspendMsg:
		// Bubble Tea has suspended and resumed already (the filter gave
		// the terminal back first); ResumeMsg follows.
		return f, nil
	case tea.ResumeMsg:
		f.takeBack()
	}
	f.dirty = true
	_, cmd := f.m.Update(msg)
	return f, cmd
}

// View hands a frame to the painter; Bubble Tea's renderer is off, so
// what it returns is never drawn.
func (f *frames) View() tea.View {
	if f.dirty && f.sized && f.p.begin() {
		f.dirty = false
		f.p.frame(f.m.View())
	}
	return tea.View{}
}

// painter is the goroutine that writes frames, and the budget between
// them. A timer runs only while a frame is held back.
type painter struct {
	scr    *screen
	send   func(tea.Msg)
	budget time.Duration
	// now and after are the clock; tests set their own.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time

	mu      sync.Mutex
	drawing bool      // a frame is posted and not written yet
	last    time.Time // when the last frame was posted
	wanted  bool      // the loop holds a dirty view back
	queue   []paintJob
	wake    chan struct{}

	drawn atomic.Int64 // frames written, for tests
}

// paintJob is a frame or raw bytes.
type paintJob struct {
	view *tea.View
	raw  string
}

func newPainter(scr *screen, send func(tea.Msg)) *painter {
	return &painter{scr: scr, send: send, budget: frameBudget, now: time.Now, after: time.After,
		wake: make(chan struct{}, 1)}
}

// begin reports whether a frame may be drawn now: none is being written
// and the budget since the last one is over. If not, the painter sends
// a drawMsg when it may.
func (p *painter) begin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.drawing || now.Sub(p.last) < p.budget {
		if !p.wanted {
			p.wanted = true
			p.kick()
		}
		return false
	}
	p.drawing, p.wanted, p.last = true, false, now
	return true
}

func (p *painter) frame(v tea.View) { p.post(paintJob{view: &v}) }

func (p *painter) raw(s string) { p.post(paintJob{raw: s}) }

func (p *painter) post(j paintJob) {
	p.mu.Lock()
	p.queue = append(p.queue, j)
	p.mu.Unlock()
	p.kick()
}

// kick wakes the painter; a wake already pending is enough.
func (p *painter) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run writes what the loop posts until ctx ends. While nothing is
// posted or held back it waits on a channel: no timer runs.
func (p *painter) run(ctx context.Context) {
	var over <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
			p.mu.Lock()
			jobs := p.queue
			p.queue = nil
			p.mu.Unlock()
			for _, j := range jobs {
				if j.view == nil {
					_ = p.scr.writeRaw(j.raw)
					continue
				}
				_ = p.scr.draw(*j.view) // a terminal that is gone shows up as the input's end
				p.drawn.Add(1)
				p.mu.Lock()
				p.drawing = false
				p.mu.Unlock()
			}
		case <-over:
			over = nil
			p.mu.Lock()
			wanted := p.wanted
			p.wanted = false
			p.mu.Unlock()
			if wanted {
				p.send(drawMsg{})
			}
			continue
		}
		// A frame held back waits for the end of the budget.
		p.mu.Lock()
		if p.wanted && over == nil {
			over = p.after(p.budget - p.now().Sub(p.last))
		}
		p.mu.Unlock()
	}
}
