// Package themes turns colour tokens into the one set of lipgloss styles the
// TUI draws with.
//
// A Theme is a small palette of named tokens (text, muted, accent, the
// status colours, the banner, added and removed diff lines); NewStyles builds every style the TUI uses
// from those tokens, so no other package picks a colour. Four themes ship:
//
//   - dark (the default): for dark terminal backgrounds
//   - light: for light backgrounds
//   - high-contrast: pure black/white with saturated status colours, for
//     low-vision users and washed-out projectors
//   - none: no colour at all; emphasis comes only from bold, faint and
//     reverse video. It is chosen by --theme none and whenever NO_COLOR is
//     set to a non-empty value (https://no-color.org), whatever --theme says.
//
// Decisions:
//   - NO_COLOR wins over an explicit --theme: a user who sets it has said
//     they never want colour, and scripts that record the screen rely on it.
//   - Colours are 24-bit hex; Bubble Tea downsamples them to what the
//     terminal supports (256, 16 colours or none), so the themes need no
//     per-profile variants.
//   - Diff lines in tool output: added and removed lines have their own
//     tokens; file and hunk headers use the accent. Without colour, removed
//     lines are faint and the +/- prefix carries the rest.
//   - Selection and focus never rely on colour alone: the selected row is
//     also reversed or bold, the focused pane's title is bold, so the none
//     theme loses no information.
//
// This package imports only lipgloss; the TUI (tui/) imports it, nothing
// else does.
package themes
