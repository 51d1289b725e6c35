package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme names.
const (
	Dark         = "dark"
	Light        = "light"
	HighContrast = "high-contrast"
	None         = "none"
)

// Theme is a palette of colour tokens. Every style in Styles is derived
// from these tokens and nothing else.
type Theme struct {
	Name string
	// NoColor marks the none theme: every token is lipgloss.NoColor and
	// styles lean on bold, faint and reverse instead.
	NoColor bool

	Text     color.Color // body text
	Muted    color.Color // secondary text: metadata, hints
	Subtle   color.Color // borders of unfocused panes
	Accent   color.Color // focus, selection, keys
	AccentFG color.Color // text drawn on Accent
	User     color.Color // the person's messages
	Running  color.Color // running badge and nodes
	Waiting  color.Color // "waiting for you": approvals and questions
	Failed   color.Color // failures and errors
	Done     color.Color // completed
	BannerBG color.Color // the approval banner's background
	BannerFG color.Color // the approval banner's text
	StatusBG color.Color // the status line's background
	StatusFG color.Color // the status line's text
	Added    color.Color // added lines of a diff
	Removed  color.Color // removed lines of a diff
}

var none = lipgloss.NoColor{}

var themes = map[string]Theme{
	Dark: {
		Name: Dark, Text: hex("#d7dae0"), Muted: hex("#8b919e"), Subtle: hex("#4b5160"),
		Accent: hex("#7aa2f7"), AccentFG: hex("#1a1b26"), User: hex("#9ece6a"),
		Running: hex("#7dcfff"), Waiting: hex("#e0af68"), Failed: hex("#f7768e"), Done: hex("#9ece6a"),
		BannerBG: hex("#e0af68"), BannerFG: hex("#1a1b26"), StatusBG: hex("#24283b"), StatusFG: hex("#a9b1d6"),
		Added: hex("#9ece6a"), Removed: hex("#f7768e"),
	},
	Light: {
		Name: Light, Text: hex("#24292f"), Muted: hex("#57606a"), Subtle: hex("#afb8c1"),
		Accent: hex("#0550ae"), AccentFG: hex("#ffffff"), User: hex("#116329"),
		Running: hex("#0969da"), Waiting: hex("#9a6700"), Failed: hex("#cf222e"), Done: hex("#1a7f37"),
		BannerBG: hex("#fff8c5"), BannerFG: hex("#24292f"), StatusBG: hex("#eaeef2"), StatusFG: hex("#24292f"),
		Added: hex("#116329"), Removed: hex("#82071e"),
	},
	HighContrast: {
		Name: HighContrast, Text: hex("#ffffff"), Muted: hex("#d0d0d0"), Subtle: hex("#ffffff"),
		Accent: hex("#ffff00"), AccentFG: hex("#000000"), User: hex("#00ff00"),
		Running: hex("#00ffff"), Waiting: hex("#ffff00"), Failed: hex("#ff5f5f"), Done: hex("#00ff00"),
		BannerBG: hex("#ffff00"), BannerFG: hex("#000000"), StatusBG: hex("#ffffff"), StatusFG: hex("#000000"),
		Added: hex("#00ff00"), Removed: hex("#ff5f5f"),
	},
	None: {
		Name: None, NoColor: true, Text: none, Muted: none, Subtle: none, Accent: none, AccentFG: none,
		User: none, Running: none, Waiting: none, Failed: none, Done: none,
		BannerBG: none, BannerFG: none, StatusBG: none, StatusFG: none, Added: none, Removed: none,
	},
}

func hex(s string) color.Color { return lipgloss.Color(s) }

// Names lists the theme names in the order the help shows them.
func Names() []string { return []string{Dark, Light, HighContrast, None} }

// Lookup returns the theme with this name; "" is the default (dark).
func Lookup(name string) (Theme, error) {
	if name == "" {
		name = Dark
	}
	t, ok := themes[name]
	if !ok {
		return Theme{}, fmt.Errorf("unknown theme %q: use %s", name, strings.Join(Names(), ", "))
	}
	return t, nil
}

// Resolve picks the theme to draw with: none when NO_COLOR is set to a
// non-empty value (getenv is os.Getenv in production), else the named one.
// An unknown name is an error even when NO_COLOR is set, so a typo in a
// script does not go unnoticed.
func Resolve(name string, getenv func(string) string) (Theme, error) {
	t, err := Lookup(name)
	if err != nil {
		return Theme{}, err
	}
	if getenv != nil && getenv("NO_COLOR") != "" {
		return themes[None], nil
	}
	return t, nil
}
