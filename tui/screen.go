package tui

import (
	"bytes"
	"image/color"
	"io"
	"runtime"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/lucasb-eyer/go-colorful"
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
	s.starting, s.pendingErase = false, false
	if area != s.cells.Bounds() {
		s.scr.Erase()
		s.cells.Touched = nil
		s.cells.Resize(area.Dx(), area.Dy())
	}
	s.cells.Clear()
	content.Draw(s.cells, s.cells.Bounds())
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

// modes queues the mode changes from the last view to view.
func (s *screen) modes(view tea.View) {
	last := s.last
	first := last == nil
	if first || view.DisableBracketedPasteMode != last.DisableBracketedPasteMode {
		if !view.DisableBracketedPasteMode {
			_, _ = s.scr.WriteString(ansi.SetModeBracketedPaste)
		} else if !first {
			_, _ = s.scr.WriteString(ansi.ResetModeBracketedPaste)
		}
	}
	if first || last.ReportFocus != view.ReportFocus {
		if view.ReportFocus {
			_, _ = s.scr.WriteString(ansi.SetModeFocusEvent)
		} else if !first {
			_, _ = s.scr.WriteString(ansi.ResetModeFocusEvent)
		}
	}
	if first || view.MouseMode != last.MouseMode {
		switch view.MouseMode {
		case tea.MouseModeNone:
			if !first && last.MouseMode != tea.MouseModeNone {
				_, _ = s.scr.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
			}
		case tea.MouseModeCellMotion:
			if !first && last.MouseMode == tea.MouseModeAllMotion {
				_, _ = s.scr.WriteString(ansi.ResetModeMouseAnyEvent)
			}
			_, _ = s.scr.WriteString(ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr)
		case tea.MouseModeAllMotion:
			if !first && last.MouseMode == tea.MouseModeCellMotion {
				_, _ = s.scr.WriteString(ansi.ResetModeMouseButtonEvent)
			}
			_, _ = s.scr.WriteString(ansi.SetModeMouseAnyEvent + ansi.SetModeMouseExtSgr)
		}
	}
	if (first && view.WindowTitle != "") || (!first && view.WindowTitle != last.WindowTitle) {
		_, _ = s.scr.WriteString(ansi.SetWindowTitle(view.WindowTitle))
	}
	if first || view.KeyboardEnhancements != last.KeyboardEnhancements || view.AltScreen != last.AltScreen {
		// The alternate screen has its own keyboard stack: push an
		// entry on the first frame and on a switch, else update ours.
		_, _ = s.scr.WriteString(ansi.SetModifyOtherKeys2)
		flags := keyboardFlags(view.KeyboardEnhancements)
		if first || view.AltScreen != last.AltScreen {
			_, _ = s.scr.WriteString(ansi.PushKittyKeyboard(flags))
		} else {
			_, _ = s.scr.WriteString(ansi.KittyKeyboard(flags, 1))
		}
		_, _ = s.scr.WriteString(ansi.RequestKittyKeyboard)
	}
	var cc, lcc color.Color
	if view.Cursor != nil {
		cc = view.Cursor.Color
	}
	var curStyle, lastStyle int
	if view.Cursor != nil {
		curStyle = cursorStyle(view.Cursor.Shape, view.Cursor.Blink)
	}
	if !first && last.Cursor != nil {
		lcc = last.Cursor.Color
		lastStyle = cursorStyle(last.Cursor.Shape, last.Cursor.Blink)
	}
	if cc != lcc {
		if cc == nil {
			_, _ = s.scr.WriteString(ansi.ResetCursorColor)
		} else if col, ok := colorful.MakeColor(cc); ok {
			_, _ = s.scr.WriteString(ansi.SetCursorColor(col.Hex()))
		}
	}
	if curStyle != lastStyle {
		_, _ = s.scr.WriteString(ansi.SetCursorStyle(curStyle))
	}
}

// wrapFrame is the frame's bytes with the screen switch, the cursor's
// visibility and synchronized output around them.
func (s *screen) wrapFrame(view tea.View, switchScreen bool) *bytes.Buffer {
	var out bytes.Buffer
	updates := s.buf.Len() > 0
	shown := s.last != nil && s.last.Cursor != nil
	show := view.Cursor != nil
	visChange := s.last == nil || shown != show || switchScreen
	if switchScreen {
		out.WriteString(ansi.ResetModifyOtherKeys)
		if s.last != nil {
			out.WriteString(ansi.PopKittyKeyboard(1))
		}
		if view.AltScreen {
			out.WriteString(ansi.SetModeAltScreenSaveCursor)
		} else {
			out.WriteString(ansi.ResetModeAltScreenSaveCursor)
		}
	}
	if s.syncd {
		if updates {
			out.WriteString(ansi.SetModeSynchronizedOutput)
		}
		if visChange && !show {
			out.WriteString(ansi.ResetModeTextCursorEnable)
		}
	} else if (visChange && !show) || (updates && show && shown) {
		out.WriteString(ansi.ResetModeTextCursorEnable)
	}
	out.Write(s.buf.Bytes())
	if s.syncd {
		if visChange && show {
			out.WriteString(ansi.SetModeTextCursorEnable)
		}
		if updates {
			out.WriteString(ansi.ResetModeSynchronizedOutput)
		}
	} else if (visChange && show) || (updates && show && shown) {
		out.WriteString(ansi.SetModeTextCursorEnable)
	}
	return &out
}

func (s *screen) altScreen(on, write bool) {
	if on {
		s.scr.SaveCursor()
		if write {
			s.buf.WriteString(ansi.SetModeAltScreenSaveCursor)
		}
		s.scr.SetFullscreen(true)
		s.scr.SetRelativeCursor(false)
		s.scr.Erase()
		return
	}
	s.scr.Erase()
	s.scr.SetRelativeCursor(true)
	s.scr.SetFullscreen(false)
	if write {
		s.buf.WriteString(ansi.ResetModeAltScreenSaveCursor)
	}
	s.scr.RestoreCursor()
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
