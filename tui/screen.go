package tui

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// screen writes frames to the terminal: the cell diff of ultraviolet's
// TerminalRenderer (the one Bubble Tea's own renderer uses) plus the
// terminal modes a tea.View asks for (alternate screen, bracketed paste,
// focus reports, mouse, title, keyboard enhancements, the cursor), with
// synchronized output (mode 2026) once the terminal said it has it. It
// follows Bubble Tea v2.1.1's cursed renderer, so a frame costs the same
// bytes; what differs is who decides when to draw (frames.go).
//
// Every method takes mu: the writer goroutine draws, the event loop
// resizes and hands the terminal over to $EDITOR.
type screen struct {
	mu      sync.Mutex
	w       io.Writer
	buf     bytes.Buffer // the renderer's output of one frame
	scr     *uv.TerminalRenderer
	cells   uv.ScreenBuffer
	last    *tea.View // the view last drawn; nil before the first frame
	env     []string
	profile *tea.ColorProfileMsg
	width   int
	height  int

	hardTabs, backspace bool // cursor movement optimisations the tty allows
	syncd               bool // the terminal has synchronized output
	starting            bool // the next frame is the first after start
	pendingErase        bool // a resize or start asked for a full redraw
	released            bool // the terminal belongs to another program
	// lines are the last frame's content lines: a frame redraws into
	// the cell buffer only the lines that changed (drawChangedLines).
	lines []string
}

func newScreen(w io.Writer, env []string, width, height int) *screen {
	s := &screen{w: w, env: env, width: width, height: height, cells: uv.NewScreenBuffer(width, height),
		starting: true}
	s.reset()
	return s
}

// reset starts a new TerminalRenderer that knows nothing of the screen.
func (s *screen) reset() {
	s.buf.Reset()
	scr := uv.NewTerminalRenderer(&s.buf, s.env)
	if s.profile != nil {
		scr.SetColorProfile(s.profile.Profile)
	}
	scr.SetRelativeCursor(true)
	scr.SetFullscreen(false)
	if s.hardTabs {
		scr.SetTabStops(s.width)
	} else {
		scr.SetTabStops(-1)
	}
	scr.SetBackspace(s.backspace)
	scr.SetScrollOptim(runtime.GOOS != "windows")
	s.scr = scr
}

func (s *screen) setOptimizations(hardTabs, backspace bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hardTabs, s.backspace = hardTabs, backspace
	if hardTabs {
		s.scr.SetTabStops(s.width)
	} else {
		s.scr.SetTabStops(-1)
	}
	s.scr.SetBackspace(backspace)
}

func (s *screen) setProfile(p tea.ColorProfileMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profile = &p
	s.scr.SetColorProfile(p.Profile)
}

// modeReport takes the terminal's answer to the queries of queryModes.
func (s *screen) modeReport(msg tea.ModeReportMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch msg.Mode {
	case ansi.ModeSynchronizedOutput:
		if msg.Value == ansi.ModeReset {
			s.syncd = true
		}
	case ansi.ModeUnicodeCore:
		if msg.Value == ansi.ModeReset || msg.Value == ansi.ModeSet || msg.Value == ansi.ModePermanentlySet {
			_, _ = s.scr.WriteString(ansi.SetModeUnicodeCore)
			s.cells.Method = ansi.GraphemeWidth
		}
	}
}

func (s *screen) resize(w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scr.Erase()
	s.width, s.height = w, h
	s.scr.Resize(w, h)
	s.pendingErase = true
}

// writeRaw writes bytes the model asked for (tea.Raw: notifications,
// the clipboard) as they are.
func (s *screen) writeRaw(str string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return nil
	}
	_, err := io.WriteString(s.w, str)
	return err
}

// draw writes what changed between the last frame and view.
func (s *screen) draw(view tea.View) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return nil
	}
	area := uv.Rect(0, 0, s.width, s.height)
	if view.Content == "" {
		area.Max.Y = 0
	}
	content := uv.NewStyledString(view.Content)
	if !view.AltScreen {
		if h := content.Height(); h != area.Dy() {
			area.Max.Y = h
		}
	}
	if s.starting && s.hardTabs {
		_, _ = s.scr.WriteString(ansi.SetTabEvery8Columns)
	}
	if !s.starting && !s.pendingErase && s.last != nil && viewsEqual(s.last, &view) && area == s.cells.Bounds() {
		return nil
	}
	full := s.starting || s.pendingErase || s.lines == nil || !view.AltScreen || area != s.cells.Bounds()
	s.starting, s.pendingErase = false, false
	if area != s.cells.Bounds() {
		s.scr.Erase()
		s.cells.Touched = nil
		s.cells.Resize(area.Dx(), area.Dy())
	}
	if full {
		s.cells.Clear()
		content.Draw(s.cells, s.cells.Bounds())
		s.lines = strings.Split(view.Content, "\n")
	} else {
		s.drawChangedLines(view.Content)
	}
	if h := area.Dy(); h > s.height {
		s.cells.Lines = s.cells.Lines[h-s.height:]
	}
	switchScreen := s.last == nil && view.AltScreen || s.last != nil && s.last.AltScreen != view.AltScreen
	if switchScreen {
		s.altScreen(view.AltScreen, false)
	}
	s.modes(view)
	s.scr.Render(s.cells.RenderBuffer)
	if cur := view.Cursor; cur != nil {
		s.scr.MoveTo(cur.X, cur.Y)
	} else if !view.AltScreen {
		if x, y := s.scr.Position(); x >= s.width-1 {
			s.scr.MoveTo(0, y)
		}
	}
	if err := s.scr.Flush(); err != nil {
		return err
	}
	out := s.wrapFrame(view, switchScreen)
	s.buf.Reset()
	s.last = &view
	if out.Len() == 0 {
		return nil
	}
	_, err := s.w.Write(out.Bytes())
	return err
}

// drawChangedLines draws into the cell buffer the lines of content that
// differ from the last frame's, each on its own: a spinner frame parses
// one line, not the whole screen. Each of nexus's lines sets its own
// styles (every pane line is styled whole), which
// TestLinesDrawnAloneMatchTheScreen holds. Only the changed lines are
// marked touched, so the renderer hashes and compares those and not the
// whole screen; it tracks the rows its scroll optimisation moves
// itself. TestPartialFramesMatchTheScreen plays the frames into a
// terminal emulator through spinners, scrolling panes, full-width
// scrolls and new screens: every cell matches, and the bytes are the
// same as with every line touched.
func (s *screen) drawChangedLines(content string) {
	lines := strings.Split(content, "\n")
	w := s.cells.Width()
	for y := range s.cells.Height() {
		var now, was string
		if y < len(lines) {
			now = lines[y]
		}
		if y < len(s.lines) {
			was = s.lines[y]
		}
		if now != was || (y < len(lines)) != (y < len(s.lines)) {
			uv.NewStyledString(now).Draw(s.cells, uv.Rect(0, y, w, 1))
			s.cells.TouchLine(0, y, w)
		}
	}
	s.lines = lines
}

// queryModes asks the terminal whether it has synchronized output and
// Unicode core (modeReport takes the answers), where Bubble Tea would.
func (s *screen) queryModes() error {
	if !shouldQuerySync(s.env) {
		return nil
	}
	return s.writeRaw(ansi.RequestModeSynchronizedOutput + ansi.RequestModeUnicodeCore)
}

// shouldQuerySync is Bubble Tea's rule for which terminals to ask about
// mode 2026: not over ssh unless the terminal is known to have it.
func shouldQuerySync(env []string) bool {
	e := uv.Environ(env)
	term := e.Getenv("TERM")
	prog, hasProg := e.LookupEnv("TERM_PROGRAM")
	_, ssh := e.LookupEnv("SSH_TTY")
	_, wt := e.LookupEnv("WT_SESSION")
	return (!hasProg && !ssh) || wt || (hasProg && !strings.Contains(prog, "Apple") && !ssh) ||
		strings.Contains(term, "ghostty") || strings.Contains(term, "wezterm") ||
		strings.Contains(term, "alacritty") || strings.Contains(term, "kitty") || strings.Contains(term, "rio")
}
