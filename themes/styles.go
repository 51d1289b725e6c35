package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles is every style the TUI draws with, built from one Theme. The TUI
// never builds a style of its own.
type Styles struct {
	Theme Theme

	Text  lipgloss.Style // body text
	Muted lipgloss.Style // metadata, hints, empty-state text
	Error lipgloss.Style // an error line or flash message

	Border        lipgloss.Style // frame of an unfocused pane
	BorderFocused lipgloss.Style // frame of the focused pane
	Title         lipgloss.Style // title of an unfocused pane
	TitleFocused  lipgloss.Style // title of the focused pane

	Selected     lipgloss.Style // selected row of the focused list
	SelectedBlur lipgloss.Style // selected row when its list is not focused
	Unread       lipgloss.Style // the unread marker

	BadgeRunning lipgloss.Style
	BadgeWaiting lipgloss.Style
	BadgeFailed  lipgloss.Style
	BadgeDone    lipgloss.Style
	BadgeIdle    lipgloss.Style

	RunHeader   lipgloss.Style // the rule above each run
	User        lipgloss.Style // the person's message
	Steer       lipgloss.Style // a steering follow-up
	Assistant   lipgloss.Style // the agent's reply text
	NodeRunning lipgloss.Style
	NodeDone    lipgloss.Style
	NodeFailed  lipgloss.Style
	Request     lipgloss.Style // a pending approval or question, inline

	Banner    lipgloss.Style // the "waiting for you" banner
	BannerKey lipgloss.Style // the key named in the banner
	Status    lipgloss.Style // the status line
	StatusKey lipgloss.Style // keys named in the status line

	DialogBorder lipgloss.Style
	DialogTitle  lipgloss.Style
	Key          lipgloss.Style // a key in help and dialogs
	KeyDesc      lipgloss.Style // what the key does

	TodoDone    lipgloss.Style
	TodoActive  lipgloss.Style
	TodoPending lipgloss.Style

	DiffAdd    lipgloss.Style // an added line in tool output
	DiffRemove lipgloss.Style // a removed line in tool output
	DiffMeta   lipgloss.Style // a diff's file and hunk headers

	Mode        lipgloss.Style // the composer's send mode label
	InputText   lipgloss.Style
	Placeholder lipgloss.Style
	CursorColor color.Color
}

// NewStyles builds the styles of a theme.
func NewStyles(t Theme) Styles {
	s := lipgloss.NewStyle()
	fg := func(c color.Color) lipgloss.Style { return s.Foreground(c) }
	st := Styles{
		Theme: t,
		Text:  fg(t.Text), Muted: fg(t.Muted), Error: fg(t.Failed).Bold(true),

		Border: fg(t.Subtle), BorderFocused: fg(t.Accent),
		Title: fg(t.Muted), TitleFocused: fg(t.Accent).Bold(true),

		Selected:     s.Foreground(t.AccentFG).Background(t.Accent).Bold(true),
		SelectedBlur: fg(t.Text).Bold(true),
		Unread:       fg(t.Accent).Bold(true),

		BadgeRunning: fg(t.Running), BadgeWaiting: fg(t.Waiting).Bold(true),
		BadgeFailed: fg(t.Failed), BadgeDone: fg(t.Done), BadgeIdle: fg(t.Muted),

		RunHeader: fg(t.Muted), User: fg(t.User).Bold(true), Steer: fg(t.User),
		Assistant: fg(t.Text), NodeRunning: fg(t.Running), NodeDone: fg(t.Done), NodeFailed: fg(t.Failed),
		Request: fg(t.Waiting).Bold(true),

		Banner:    s.Foreground(t.BannerFG).Background(t.BannerBG).Bold(true),
		BannerKey: s.Foreground(t.BannerFG).Background(t.BannerBG).Bold(true).Underline(true),
		Status:    s.Foreground(t.StatusFG).Background(t.StatusBG),
		StatusKey: s.Foreground(t.Accent).Background(t.StatusBG).Bold(true),

		DialogBorder: fg(t.Accent), DialogTitle: fg(t.Accent).Bold(true),
		Key: fg(t.Accent).Bold(true), KeyDesc: fg(t.Text),

		TodoDone: fg(t.Done), TodoActive: fg(t.Running).Bold(true), TodoPending: fg(t.Muted),

		DiffAdd: fg(t.Added), DiffRemove: fg(t.Removed), DiffMeta: fg(t.Accent).Bold(true),

		Mode: fg(t.Accent).Bold(true), InputText: fg(t.Text), Placeholder: fg(t.Muted),
		CursorColor: t.Accent,
	}
	if t.NoColor {
		// Without colour, emphasis must come from attributes alone.
		st.Selected = s.Reverse(true).Bold(true)
		st.Banner = s.Reverse(true).Bold(true)
		st.BannerKey = s.Reverse(true).Bold(true).Underline(true)
		st.Status = s.Reverse(true)
		st.StatusKey = s.Reverse(true).Bold(true)
		st.Muted = s.Faint(true)
		st.Placeholder = s.Faint(true)
		st.TodoPending = s.Faint(true)
		st.Title = s
		st.Border = s
		st.BorderFocused = s.Bold(true)
		st.DiffRemove = s.Faint(true)
	}
	return st
}
