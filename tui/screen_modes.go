package tui

import (
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// release gives the terminal back as it was before the first frame
// (main screen, cursor shown, no mouse, focus or paste reports, the
// keyboard stack popped), for $EDITOR or at exit. Frames drawn while
// released are dropped; restore and the next frame repaint everything.
func (s *screen) release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return nil
	}
	s.released = true
	lv := s.last
	if lv != nil {
		s.buf.WriteString(ansi.ResetModifyOtherKeys)
		s.buf.WriteString(ansi.PopKittyKeyboard(1))
		s.scr.MoveTo(0, s.cells.Height()-1)
		_ = s.scr.Flush()
		if lv.AltScreen {
			s.altScreen(false, true)
		} else {
			_, _ = s.scr.WriteString(ansi.EraseScreenBelow)
		}
		if lv.Cursor == nil {
			_, _ = s.scr.WriteString(ansi.SetModeTextCursorEnable)
		}
		if !lv.DisableBracketedPasteMode {
			_, _ = s.scr.WriteString(ansi.ResetModeBracketedPaste)
		}
		if lv.ReportFocus {
			_, _ = s.scr.WriteString(ansi.ResetModeFocusEvent)
		}
		if lv.MouseMode != tea.MouseModeNone {
			_, _ = s.scr.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
		}
		if lv.WindowTitle != "" {
			_, _ = s.scr.WriteString(ansi.SetWindowTitle(""))
		}
		if c := lv.Cursor; c != nil {
			if st := cursorStyle(c.Shape, c.Blink); st != 0 && st != 1 {
				_, _ = s.scr.WriteString(ansi.SetCursorStyle(0))
			}
			if c.Color != nil {
				_, _ = s.scr.WriteString(ansi.ResetCursorColor)
			}
		}
	}
	if s.cells.Method == ansi.GraphemeWidth {
		_, _ = s.scr.WriteString(ansi.ResetModeUnicodeCore)
	}
	err := s.scr.Flush()
	if s.buf.Len() > 0 {
		if _, werr := io.Copy(s.w, &s.buf); err == nil {
			err = werr
		}
	}
	x, y := s.scr.Position()
	s.reset()
	s.scr.SetPosition(x, y)
	return err
}

// restore takes the terminal back after release. The next frame is
// drawn as the first one was: the alternate screen, every mode of its
// view and every cell.
func (s *screen) restore() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		return nil
	}
	s.released = false
	s.starting = true
	s.last = nil
	s.lines = nil
	s.cells.Touched = nil
	if s.cells.Method == ansi.GraphemeWidth {
		return s.writeLocked(ansi.SetModeUnicodeCore)
	}
	return nil
}

func (s *screen) writeLocked(str string) error {
	_, err := io.WriteString(s.w, str)
	return err
}

// viewsEqual reports whether two views draw the same frame: Bubble
// Tea's viewEquals for the fields nexus sets.
func viewsEqual(a, b *tea.View) bool {
	if a.Content != b.Content || a.AltScreen != b.AltScreen ||
		a.DisableBracketedPasteMode != b.DisableBracketedPasteMode || a.ReportFocus != b.ReportFocus ||
		a.MouseMode != b.MouseMode || a.WindowTitle != b.WindowTitle ||
		a.KeyboardEnhancements != b.KeyboardEnhancements || (a.Cursor == nil) != (b.Cursor == nil) {
		return false
	}
	if a.Cursor != nil {
		ca, cb := a.Cursor, b.Cursor
		return ca.X == cb.X && ca.Y == cb.Y && ca.Shape == cb.Shape && ca.Blink == cb.Blink && ca.Color == cb.Color
	}
	return true
}

// keyboardFlags are the kitty keyboard flags for a view's enhancements;
// basic disambiguation is always on.
func keyboardFlags(ke tea.KeyboardEnhancements) int {
	flags := 1
	if ke.ReportEventTypes {
		flags |= ansi.KittyReportEventTypes
	}
	if ke.ReportAlternateKeys {
		flags |= ansi.KittyReportAlternateKeys
	}
	if ke.ReportAllKeysAsEscapeCodes {
		flags |= ansi.KittyReportAllKeysAsEscapeCodes
	}
	if ke.ReportAssociatedText {
		flags |= ansi.KittyReportAssociatedKeys
	}
	return flags
}

// cursorStyle is the DECSCUSR number of a cursor shape.
func cursorStyle(shape tea.CursorShape, blink bool) int {
	st := int(shape)*2 + 1
	if !blink {
		st++
	}
	return st
}
