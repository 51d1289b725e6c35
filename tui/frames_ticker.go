package tui

import (
	"reflect"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quietTicker stops the frame ticker of p. Bubble Tea v2.1.1 starts a
// time.Ticker at the program's frame rate (at least once a second) in
// Program.Run and again after every handover of the terminal, even
// with its renderer off, and offers no way to turn it off; with the
// renderer off it only flushes an output buffer that rawFilter keeps
// empty. Stopping it is what makes an idle UI wake up no more than the
// Go runtime does. It must run on the event loop (Init, Update), after
// Run started the ticker. If a later Bubble Tea has no such field it
// does nothing, and the ticker wakes the program once a second
// (tickerFPS); TestBubbleTeaTickerField fails first.
func quietTicker(p *tea.Program) bool {
	v := reflect.ValueOf(p).Elem().FieldByName("ticker")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*time.Ticker]() || v.IsNil() {
		return false
	}
	(*time.Ticker)(v.UnsafePointer()).Stop()
	return true
}
