package tui

// composerViewKey is everything an empty composer's drawing depends on:
// its placeholder, focus and size (the styles are fixed for the run).
type composerViewKey struct {
	placeholder   string
	focused       bool
	width, height int
}

// composerView caches the drawing of the empty composer.
type composerView struct {
	key  composerViewKey
	view string
}

// composerBody is the textarea's drawing. An empty composer, the usual
// one while agents work, is drawn once per placeholder, focus and size
// rather than on every frame: through lipgloss and grapheme widths it
// was half of a spinner frame's cost. A composer with text is drawn each
// time, since its scroll offset is the textarea's own.
func (m *Model) composerBody() string {
	ta := &m.composer.ta
	if ta.Value() != "" {
		return ta.View()
	}
	k := composerViewKey{placeholder: ta.Placeholder, focused: ta.Focused(), width: ta.Width(), height: ta.Height()}
	if m.composerView.view == "" || m.composerView.key != k {
		m.composerView = composerView{key: k, view: ta.View()}
	}
	return m.composerView.view
}
