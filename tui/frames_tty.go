package tui

import (
	"io"
	"os"
	"os/exec"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
)

// tty is the terminal the program reads keys from: raw while the UI
// owns it, as it was while another program ($EDITOR) or the shell has
// it. Bubble Tea does this itself only when its renderer is on.
type tty struct {
	in   term.File // nil: input is not a terminal
	prev *term.State
}

// newTTY puts in into raw mode if it is a terminal.
func newTTY(in io.Reader) (*tty, error) {
	t := &tty{}
	if f, ok := in.(term.File); ok && term.IsTerminal(f.Fd()) {
		t.in = f
	}
	return t, t.raw()
}

func (t *tty) raw() error {
	if t.in == nil || t.prev != nil {
		return nil
	}
	st, err := term.MakeRaw(t.in.Fd())
	if err != nil {
		return err
	}
	t.prev = st
	return nil
}

func (t *tty) restore() error {
	if t.in == nil || t.prev == nil {
		return nil
	}
	st := t.prev
	t.prev = nil
	return term.Restore(t.in.Fd(), st)
}

// termSize is the size of out if it is a terminal.
func termSize(out io.Writer) (w, h int, ok bool) {
	f, isFile := out.(term.File)
	if !isFile || !term.IsTerminal(f.Fd()) {
		return 0, 0, false
	}
	w, h, err := term.GetSize(f.Fd())
	return w, h, err == nil && w > 0 && h > 0
}

// giveBack hands the terminal to another program: the screen as it was
// before nexus, the tty in its old mode.
func (f *frames) giveBack() {
	_ = f.p.scr.release()
	_ = f.tty.restore()
}

// takeBack takes the terminal again; the next frame redraws it all and
// Bubble Tea's ticker, restarted with the input, is stopped again.
func (f *frames) takeBack() {
	_ = f.tty.raw()
	_ = f.p.scr.restore()
	f.retick = true
	f.dirty = true
}

// handover runs a program ($EDITOR) on the terminal: tea.Exec calls Run
// on the event loop with the input reader stopped.
type handover struct {
	*exec.Cmd
	f *frames
}

func (h *handover) Run() error {
	h.f.giveBack()
	defer h.f.takeBack()
	return h.Cmd.Run()
}

func (h *handover) SetStdin(r io.Reader) {
	if h.Stdin == nil {
		h.Stdin = r
	}
}

func (h *handover) SetStdout(w io.Writer) {
	if h.Stdout == nil {
		h.Stdout = w
	}
}

func (h *handover) SetStderr(w io.Writer) {
	if h.Stderr == nil {
		h.Stderr = os.Stderr
	}
}

// execProcess runs c with the terminal handed over, as tea.ExecProcess
// does with Bubble Tea's renderer.
func (m *Model) execProcess(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	if m.frames == nil {
		return tea.ExecProcess(c, fn)
	}
	return tea.Exec(&handover{Cmd: c, f: m.frames}, fn)
}

// filter gives the terminal back before Bubble Tea suspends the
// process (tea.Suspend); ResumeMsg takes it again.
func (f *frames) filter(model tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.SuspendMsg); ok {
		f.giveBack()
	}
	return rawFilter(model, msg)
}
