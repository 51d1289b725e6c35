package tui

import (
	"bytes"
	"image/color"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/lucasb-eyer/go-colorful"
)

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
