package tui

import (
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/nexus-tui/nexus/themes"
)

// The painter redraws only the lines that changed, each on its own
// (drawChangedLines). That is right only if no line of nexus's screens
// leans on a style a line above it left open: every line drawn alone
// must give the same cells as the whole screen drawn at once, in every
// theme, on the screens that have the most styles.
func TestLinesDrawnAloneMatchTheScreen(t *testing.T) {
	screens := []struct {
		name string
		keys []string
	}{
		{"threads and transcript", nil},
		{"grid", []string{"ctrl+g"}},
		{"help", []string{"f1"}},
		{"new thread dialog", []string{"ctrl+n"}},
		{"approval", []string{"ctrl+o"}},
	}
	for _, theme := range []string{themes.Dark, themes.Light, themes.HighContrast} {
		for _, sc := range screens {
			hs := newHarness(t, demoState(t), 120, 40)
			hs.press(sc.keys...)
			content := hs.viewIn(theme)
			whole := uv.NewScreenBuffer(120, 40)
			uv.NewStyledString(content).Draw(whole, whole.Bounds())
			alone := uv.NewScreenBuffer(120, 40)
			for y, line := range strings.Split(content, "\n") {
				uv.NewStyledString(line).Draw(alone, uv.Rect(0, y, 120, 1))
			}
			for y := range 40 {
				for x := range 120 {
					a, b := whole.CellAt(x, y), alone.CellAt(x, y)
					if (a == nil) != (b == nil) || a != nil && !a.Equal(b) {
						t.Fatalf("%s, %s theme: cell %d,%d is %+v drawn with the screen, %+v drawn alone", sc.name, theme, x, y, a, b)
					}
				}
			}
		}
	}
}
