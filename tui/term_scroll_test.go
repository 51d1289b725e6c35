package tui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
)

// seqOutput is what a shell shows for `seq 1 n`: the command line, the
// numbers, and the next prompt.
func seqOutput(n int) string {
	var b strings.Builder
	b.WriteString("seq 1 " + itoa(n) + "\r\n")
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\r\n")
	}
	b.WriteString("user@box:~$ ")
	return b.String()
}

// newScrollHarness is a shell thread's pane that keeps scrollback lines
// (0: the default), settled.
func newScrollHarness(t *testing.T, scrollback int) (*harness, *fakeTerms) {
	t.Helper()
	hs, ft := newTermHarness(t, nil, 100, 30)
	if scrollback != 0 {
		hs.m.terms.scrollback = scrollback
	}
	hs.send(snapshotMsg{state: shellState(t)})
	hs.settle(ft)
	return hs, ft
}

// feedAll feeds data in pieces of 8 KB, each taken in before the next:
// emulating 100 KB of scrolling output takes seconds under the race
// detector, and no single wait should.
func (hs *harness) feedAll(ft *fakeTerms, thread, data string) {
	hs.t.Helper()
	for len(data) > 0 {
		n := min(len(data), 8<<10)
		hs.feed(ft, thread, data[:n])
		data = data[n:]
	}
}

// paneTop is the first line the selected thread's pane shows, without
// drawing the rest of the screen.
func (hs *harness) paneTop() string {
	p := hs.m.terms.panes[hs.m.selected]
	r := hs.m.lay.main
	return strings.TrimRight(hs.m.termLines(p, r.w-2, r.h-2, p.scroll).lines[0], " ")
}

// paneRows is the main area's terminal as drawn: its inner rows, right
// spaces trimmed.
func (hs *harness) paneRows() []string {
	r := hs.m.lay.main
	lines := strings.Split(hs.screen(), "\n")
	var out []string
	for y := r.y + 1; y < r.y+r.h-1; y++ {
		out = append(out, strings.TrimRight(ansi.Cut(lines[y], r.x+1, r.x+r.w-1), " "))
	}
	return out
}

// paneFooter is the bottom edge of the main area.
func (hs *harness) paneFooter() string {
	r := hs.m.lay.main
	return ansi.Cut(strings.Split(hs.screen(), "\n")[r.y+r.h-1], r.x, r.x+r.w)
}

// A pane fed `seq 1 20000` scrolls back with shift+pgup, a page at a
// time, to line 1; the keys never reach the program; a key typed into it
// goes to the program and takes the view back to the bottom.
func TestTermScrollsBackToTheFirstLine(t *testing.T) {
	hs, ft := newScrollHarness(t, 30000)
	hs.press("shift+tab")
	if !hs.m.termFocused() {
		t.Fatal("shift+tab did not focus the terminal")
	}
	hs.feedAll(ft, "s1", seqOutput(20000))
	rows := hs.paneRows()
	if rows[len(rows)-2] != "20000" || rows[len(rows)-1] != "user@box:~$" {
		t.Fatalf("the bottom of the pane is not the end of the output:\n%s", hs.screen())
	}
	page := len(rows) - 1
	limit := 20003/page + 2
	presses := 0
	for hs.paneTop() != "user@box:~$ seq 1 20000" {
		if presses == limit {
			t.Fatalf("%d presses of shift+pgup did not reach the first line:\n%s", presses, hs.screen())
		}
		hs.press("shift+pgup")
		presses++
	}
	if got := hs.paneRows()[1]; got != "1" {
		t.Errorf("under the command line the pane shows %q, want line 1", got)
	}
	if presses < 20000/page {
		t.Errorf("line 1 after %d pages of %d lines: not a page at a time", presses, page)
	}
	// 20,002 lines (the command line, the numbers, the prompt), the last
	// page+1 on the screen.
	if note := hs.paneFooter(); !strings.Contains(note, "scrolled: "+itoa(20002-(page+1))+" lines up · shift+pgdown") {
		t.Errorf("the footer does not say how far back the pane is: %q", note)
	}
	if hs.m.View().Cursor != nil {
		t.Errorf("the program's cursor shows while the pane is scrolled back")
	}
	hs.press("shift+pgdown")
	if got := hs.paneRows()[0]; got != itoa(page) {
		t.Errorf("shift+pgdown from the top shows %q first, want %d", got, page)
	}
	hs.press("x")
	ft.await(t, "x typed", func() bool { return ft.typed("s1") == "x" })
	if rows := hs.paneRows(); rows[len(rows)-2] != "20000" || strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("typing did not take the view back to the bottom:\n%s", hs.screen())
	}
	if hs.m.View().Cursor == nil {
		t.Errorf("back at the bottom the program's cursor does not show")
	}
}

// shift+home and shift+end are the scrollback's while scrolled back and
// the program's at the bottom; a paste returns to the bottom too.
func TestTermScrollTopAndBottom(t *testing.T) {
	hs, ft := newScrollHarness(t, 30000)
	hs.press("shift+tab")
	hs.feedAll(ft, "s1", seqOutput(20000))
	hs.press("shift+pgup", "shift+home")
	if got := hs.paneRows()[1]; got != "1" {
		t.Fatalf("shift+home shows %q under the first line, want 1:\n%s", got, hs.screen())
	}
	hs.press("shift+end")
	if strings.Contains(hs.paneFooter(), "scrolled") || hs.paneRows()[len(hs.paneRows())-2] != "20000" {
		t.Fatalf("shift+end did not go back to the bottom:\n%s", hs.screen())
	}
	if got := ft.typed("s1"); got != "" {
		t.Fatalf("scroll keys reached the program: %q", got)
	}
	hs.press("shift+home") // at the bottom: the program's key
	ft.await(t, "shift+home typed", func() bool { return ft.typed("s1") == "\x1b[1;2H" })
	hs.press("shift+pgup")
	hs.send(tea.PasteMsg{Content: "ls"})
	ft.await(t, "the paste", func() bool { return strings.HasSuffix(ft.typed("s1"), "ls") })
	if strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("a paste did not take the view back to the bottom:\n%s", hs.screen())
	}
}

// The wheel over the pane scrolls it three lines a notch, focused or
// not, and in the zoom.
func TestTermWheelScrolls(t *testing.T) {
	hs, ft := newScrollHarness(t, 0)
	hs.feed(ft, "s1", seqOutput(500))
	if hs.m.termFocused() {
		t.Fatal("the pane has the keys; this test wheels over it without")
	}
	r := hs.m.lay.main
	wheel := func(b tea.MouseButton) {
		hs.send(tea.MouseWheelMsg{X: r.x + 5, Y: r.y + 5, Button: b})
	}
	bottom := hs.paneRows()[0]
	wheel(tea.MouseWheelUp)
	wheel(tea.MouseWheelUp)
	if !strings.Contains(hs.paneFooter(), "scrolled: 6 lines up") {
		t.Fatalf("two notches up: footer %q, want 6 lines up", hs.paneFooter())
	}
	n, _ := strconv.Atoi(bottom)
	if got := hs.paneRows()[0]; got != itoa(n-6) {
		t.Errorf("two notches up the first row is %q, want %d", got, n-6)
	}
	wheel(tea.MouseWheelDown)
	wheel(tea.MouseWheelDown)
	if hs.paneRows()[0] != bottom || strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("two notches down did not come back to the bottom:\n%s", hs.screen())
	}
	hs.press("ctrl+f")
	hs.settle(ft)
	hs.send(tea.MouseWheelMsg{X: 3, Y: 3, Button: tea.MouseWheelUp})
	if !strings.Contains(hs.screen(), "scrolled: 3 lines up · shift+pgdown · shift+end bottom · ctrl+] detach") {
		t.Errorf("the zoom does not say it is scrolled back:\n%s", hs.screen())
	}
	if got := ft.typed("s1"); got != "" {
		t.Errorf("the wheel typed %q into the program", got)
	}
}

// Output that arrives while the view is scrolled back leaves the view on
// the same lines, as tmux's copy mode does.
func TestTermScrolledViewStaysWhileOutputArrives(t *testing.T) {
	hs, ft := newScrollHarness(t, 0)
	hs.feed(ft, "s1", seqOutput(500))
	hs.press("shift+pgup")
	before := hs.paneRows()
	hs.feed(ft, "s1", "\r\nmore 1\r\nmore 2\r\nmore 3\r\nuser@box:~$ ")
	if got := hs.paneRows(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("new output moved the scrolled-back view:\nbefore %q\nafter  %q", before, got)
	}
	page := len(before) - 1
	if !strings.Contains(hs.paneFooter(), "scrolled: "+itoa(page+4)+" lines up") {
		t.Errorf("footer %q, want %d lines up after 4 more lines", hs.paneFooter(), page+4)
	}
	// The composer had the keys all along (shift+pgup scrolls the pane
	// from there too); a message it sends is typed into the program, so
	// the pane goes back to the bottom.
	if hs.m.focus != focusComposer {
		t.Fatalf("focus %d, want the composer", hs.m.focus)
	}
	hs.typeText("ls")
	hs.press("enter")
	if strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("a message sent to the shell thread left its pane scrolled back:\n%s", hs.screen())
	}
}

// The scrollback keeps at most its configured number of lines (the
// default 10,000): the oldest go first.
func TestTermScrollbackIsCapped(t *testing.T) {
	hs, ft := newScrollHarness(t, 0)
	hs.feedAll(ft, "s1", seqOutput(20000))
	p := hs.m.terms.panes["s1"]
	if n := p.snap.Load().hist.n; n != DefaultScrollback {
		t.Fatalf("the scrollback holds %d lines, want %d", n, DefaultScrollback)
	}
	rows := p.snap.Load().h // the emulator's screen: the pane's inside
	hs.press("shift+pgup", "shift+home")
	// 20,002 lines, the last rows on screen, 10,000 above them: the
	// oldest kept is line 20002-rows-10000 of the output (line 0 being
	// the command line).
	if got, want := hs.paneRows()[0], itoa(20002-rows-DefaultScrollback); got != want {
		t.Errorf("the oldest line kept is %q, want %s", got, want)
	}
}

// A pane that keeps no scrollback, or whose program uses the alternate
// screen, says so and still sends nothing to the program.
func TestTermNoScrollback(t *testing.T) {
	hs, ft := newScrollHarness(t, -1)
	hs.press("shift+tab")
	hs.feed(ft, "s1", seqOutput(100))
	hs.press("shift+pgup")
	if !strings.Contains(hs.m.flash.text, "[ui] scrollback = 0") || strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("no scrollback: flash %q, footer %q", hs.m.flash.text, hs.paneFooter())
	}
	hs2, ft2 := newScrollHarness(t, 0)
	hs2.press("shift+tab")
	hs2.feed(ft2, "s1", seqOutput(100)+"\x1b[?1049h\x1b[Hfull screen")
	hs2.press("shift+pgup")
	if !strings.Contains(hs2.m.flash.text, "uses the whole screen") || strings.Contains(hs2.paneFooter(), "scrolled") {
		t.Errorf("alternate screen: flash %q, footer %q", hs2.m.flash.text, hs2.paneFooter())
	}
	if ft.typed("s1")+ft2.typed("s1") != "" {
		t.Errorf("shift+pgup reached a program: %q %q", ft.typed("s1"), ft2.typed("s1"))
	}
}

// A Reset (a new attach, a resize) rebuilds the scrollback from the
// replayed output; the program erasing its scrollback (ED 3, as `clear`
// does) empties it.
func TestTermScrollbackRebuiltAndErased(t *testing.T) {
	hs, ft := newScrollHarness(t, 0)
	hs.feed(ft, "s1", seqOutput(300))
	p := hs.m.terms.panes["s1"]
	epoch := p.snap.Load().hist.epoch
	ft.write(t, "s1", core.TermChunk{Reset: true, Cols: 70, Rows: 20, Data: []byte(seqOutput(400))})
	hs.pump("the replay", func() bool {
		s := p.snap.Load()
		return s.hist.epoch != epoch && strings.Contains(strings.Join(s.lines, "\n"), "400")
	})
	hs.settle(ft)
	hs.press("shift+pgup", "shift+home")
	if got := hs.paneRows(); got[0] != "seq 1 400" || got[1] != "1" {
		t.Errorf("after a Reset the scrollback does not start at the replay's first line:\n%s", hs.screen())
	}
	// Scrolled back, a rebuild of the same output at the same size keeps
	// the view on the same lines.
	hs.press("shift+end", "shift+pgup")
	before, s := hs.paneRows(), p.snap.Load()
	ft.write(t, "s1", core.TermChunk{Reset: true, Cols: s.w, Rows: s.h, Data: []byte(seqOutput(400))})
	hs.pump("the second replay", func() bool { return p.snap.Load().hist.epoch == s.hist.epoch+1 && !p.dirty.Load() })
	if got := hs.paneRows(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("a rebuild moved the scrolled-back view:\nbefore %q\nafter  %q", before, got)
	}
	hs.press("shift+end")
	hs.feed(ft, "s1", "clear\r\n\x1b[H\x1b[2J\x1b[3Juser@box:~$ ")
	if n := p.snap.Load().hist.n; n != 0 {
		t.Errorf("after ED 3 the scrollback holds %d lines", n)
	}
	hs.press("shift+pgup")
	if strings.Contains(hs.paneFooter(), "scrolled") {
		t.Errorf("an erased scrollback still scrolls:\n%s", hs.screen())
	}
}

// A view of the history reads the same lines while the reader appends
// and drops whole blocks behind it; the history never holds more than
// its cap.
func TestHistoryViewsStayValid(t *testing.T) {
	h := history{max: 600}
	var views []*histView
	var firsts []int64
	for i := range 5000 {
		h.push(itoa(i))
		if i%97 == 0 {
			views = append(views, h.view())
			firsts = append(firsts, h.total-int64(h.n))
		}
		if h.n > h.max || len(h.blocks) > h.max/histBlockLines+2 {
			t.Fatalf("after %d lines: %d kept in %d blocks, cap %d", i+1, h.n, len(h.blocks), h.max)
		}
	}
	for k, v := range views {
		for i := 0; i < v.n; i++ {
			if got, want := v.line(i), itoa(int(firsts[k])+i); got != want {
				t.Fatalf("view %d line %d is %q, want %s", k, i, got, want)
			}
		}
	}
	h.drop(h.n)
	if h.n != 0 || h.total != 5000 {
		t.Errorf("after dropping all: n %d total %d", h.n, h.total)
	}
	h.reset()
	if h.n != 0 || h.total != 0 || h.epoch != 1 || h.max != 600 {
		t.Errorf("after a reset: %+v", h.histView)
	}
}
