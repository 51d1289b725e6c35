package tui

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
)

// A frame marks only the lines that changed for the renderer to compare
// (drawChangedLines). Whatever a session does (a spinner, a list row, a
// pane that scrolls beside a still one, a full-width scroll the terminal
// does with a scroll region, a new screen), what the terminal shows must
// be the frame: the screen's bytes are played into a terminal emulator
// and every cell compared after every frame.
func TestPartialFramesMatchTheScreen(t *testing.T) {
	const w, h = 60, 20
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		emu := vt.NewEmulator(w, h)
		if pw, ok := emu.InputPipe().(*io.PipeWriter); ok {
			_ = pw.CloseWithError(io.EOF) // its answers to queries go nowhere
		}
		scr := newScreen(emu, []string{"TERM=xterm-256color"}, w, h)
		scr.setProfile(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
		half := w / 2
		left, right := make([]string, h), make([]string, h)
		for y := range h {
			left[y], right[y] = randomLine(rng, half), randomLine(rng, w-half)
		}
		for frame := range 400 {
			mutate(rng, left, right, half, w-half)
			lines := make([]string, h)
			for y := range h {
				lines[y] = left[y] + right[y]
			}
			content := strings.Join(lines, "\n")
			if err := scr.draw(tea.View{Content: content, AltScreen: true}); err != nil {
				t.Fatal(err)
			}
			want := uv.NewScreenBuffer(w, h)
			uv.NewStyledString(content).Draw(want, want.Bounds())
			for y := range h {
				for x := range w {
					got, exp := emu.CellAt(x, y), want.CellAt(x, y)
					if !sameCell(got, exp) {
						t.Fatalf("seed %d, frame %d: cell %d,%d on the terminal is %q %#v, the frame has %q %#v\nframe:\n%s\nterminal:\n%s",
							seed, frame, x, y, cellText(got), got, cellText(exp), exp, content, emu.String())
					}
				}
			}
		}
	}
}

// mutate changes the screen the way nexus's screens change: each row is
// a left and a right pane's line.
func mutate(rng *rand.Rand, left, right []string, lw, rw int) {
	h := len(left)
	switch k := rng.IntN(10); {
	case k < 4: // a spinner, a clock, a list row: one to three lines
		for range 1 + rng.IntN(3) {
			y := rng.IntN(h)
			left[y], right[y] = randomLine(rng, lw), randomLine(rng, rw)
		}
	case k < 6: // full-width rows scroll up within a region
		top := rng.IntN(h - 2)
		bot := top + 2 + rng.IntN(h-top-2)
		n := 1 + rng.IntN(3)
		for y := top; y < bot; y++ {
			if y+n < bot {
				left[y], right[y] = left[y+n], right[y+n]
			} else {
				left[y], right[y] = randomLine(rng, lw), randomLine(rng, rw)
			}
		}
	case k < 8: // the right pane scrolls beside a still one
		copy(right, right[1:])
		right[h-1] = randomLine(rng, rw)
	case k < 9: // nothing changed
	default: // a new screen
		for y := range h {
			left[y], right[y] = randomLine(rng, lw), randomLine(rng, rw)
		}
	}
}

// randomLine is exactly n cells of words in random styles, each run of
// styled text closed, as nexus's pane lines are.
func randomLine(rng *rand.Rand, n int) string {
	var b strings.Builder
	cells := 0
	styles := []string{"", "\x1b[1m", "\x1b[7m", "\x1b[31m", "\x1b[38;5;45m", "\x1b[4;32m"}
	for cells < n {
		word := "abcdefghij"[:1+rng.IntN(min(10, n-cells))]
		st := styles[rng.IntN(len(styles))]
		b.WriteString(st + word)
		if st != "" {
			b.WriteString("\x1b[m")
		}
		cells += len(word)
	}
	return b.String()
}

func sameCell(a, b *uv.Cell) bool {
	at, bt := cellText(a), cellText(b)
	if at != bt {
		return false
	}
	if a == nil || b == nil {
		return true
	}
	return a.Style.Equal(&b.Style)
}

func cellText(c *uv.Cell) string {
	if c == nil || c.Content == "" {
		return " "
	}
	return c.Content
}
