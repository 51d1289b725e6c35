package cli

import (
	"slices"
	"testing"

	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/themes"
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
