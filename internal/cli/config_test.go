package cli

import (
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/themes"
	"github.com/nexus-tui/nexus/tui"
)

// TestConfigThemeReachesTUI: --theme wins over the file's theme, which
// wins over the default; the file accepts exactly the themes that exist.
func TestConfigThemeReachesTUI(t *testing.T) {
	file := &config.Config{Theme: "light"}
	for _, tc := range []struct {
		flag string
		cfg  *config.Config
		want string
	}{
		{"", nil, ""},
		{"", &config.Config{}, ""},
		{"", file, "light"},
		{"high-contrast", file, "high-contrast"},
		{"none", &config.Config{}, "none"},
	} {
		if got := tuiTheme(tc.flag, tc.cfg); got != tc.want {
			t.Errorf("tuiTheme(%q, %+v) = %q, want %q", tc.flag, tc.cfg, got, tc.want)
		}
	}
	// NO_COLOR still wins, as package themes decides.
	th, err := themes.Resolve(tuiTheme("", file), func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] })
	if err != nil || th.Name != themes.None {
		t.Errorf("NO_COLOR with the file's light theme: %v %v", th.Name, err)
	}
	if !slices.Equal(config.Themes, themes.Names()) {
		t.Errorf("config accepts themes %q, themes has %q", config.Themes, themes.Names())
	}
}

// TestConfigScrollbackReachesTUI: the file's [ui] scrollback becomes the
// UI's, 0 there meaning none; without it the UI keeps its default.
func TestConfigScrollbackReachesTUI(t *testing.T) {
	lines := func(n int) *config.Config { return &config.Config{UIScrollback: &n} }
	for _, tc := range []struct {
		cfg  *config.Config
		want int
	}{
		{nil, 0},
		{&config.Config{}, 0},
		{lines(0), -1},
		{lines(25000), 25000},
	} {
		if got := tuiScrollback(tc.cfg); got != tc.want {
			t.Errorf("tuiScrollback(%+v) = %d, want %d", tc.cfg, got, tc.want)
		}
	}
	if tui.DefaultScrollback < 10000 || tui.DefaultScrollback > config.MaxScrollback {
		t.Errorf("the UI's default scrollback %d is not within what the file accepts", tui.DefaultScrollback)
	}
}
