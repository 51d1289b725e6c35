package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// prefsFile is where the layout a person chose is kept, in the state dir.
const prefsFile = "tui.json"

// prefs are the pane proportions a person set with the resize keys. Zero
// fields mean the default layout.
type prefs struct {
	// LeftPercent is the left column's share of the screen width.
	LeftPercent int `json:"leftPercent,omitempty"`
	// TodoPercent is the todos pane's share of the body height.
	TodoPercent int `json:"todoPercent,omitempty"`
	// Drafts are the composer's unsent text per thread ("" for the
	// screen with no thread), kept across restarts of the UI, pastes
	// expanded.
	Drafts map[string]string `json:"drafts,omitempty"`
	// DraftPastes are the byte ranges of each draft that were folded
	// pastes, folded again when the draft comes back. Every kept draft
	// has an entry, empty when it holds no paste; a draft without one
	// was kept before pastes were folded (see draft).
	DraftPastes map[string][]span `json:"draftPastes,omitempty"`
	// ThreadOrder is the thread list's order (thread_order.go).
	ThreadOrder string `json:"threadOrder,omitempty"`
}

// draft is the kept draft of a thread. A large draft kept before pastes
// were folded comes back folded whole, so it is quick to edit.
func (p prefs) draft(id string) draft {
	text := p.Drafts[id]
	spans, ok := p.DraftPastes[id]
	if !ok && foldsAway(text) {
		spans = []span{{Off: 0, Len: len(text)}}
	}
	return draft{text: text, pastes: spans}
}

// keepDraft stores d as the draft of thread id and reports whether that
// changed anything. A draft over maxDraft is kept cut, its pastes too.
func (p *prefs) keepDraft(id string, d draft) bool {
	if len(d.text) > maxDraft {
		d.text = d.text[:maxDraft]
		d.pastes = validSpans(clipSpans(d.pastes, maxDraft), maxDraft)
	}
	if d.text == "" {
		_, ok := p.Drafts[id]
		delete(p.Drafts, id)
		delete(p.DraftPastes, id)
		return ok
	}
	spans := append([]span{}, d.pastes...) // never nil: see DraftPastes
	old, ok := p.DraftPastes[id]
	if p.Drafts[id] == d.text && ok && slices.Equal(old, spans) {
		return false
	}
	if p.Drafts == nil {
		p.Drafts = map[string]string{}
	}
	if p.DraftPastes == nil {
		p.DraftPastes = map[string][]span{}
	}
	p.Drafts[id], p.DraftPastes[id] = d.text, spans
	return true
}

// clipSpans cuts spans at n bytes.
func clipSpans(spans []span, n int) []span {
	var out []span
	for _, s := range spans {
		if s.Off < n {
			s.Len = min(s.Len, n-s.Off)
			out = append(out, s)
		}
	}
	return out
}

// maxDraft bounds one kept draft; a longer one is kept cut.
const maxDraft = 1 << 20

// Bounds of the proportions, and the step of one key press.
const (
	minLeftPercent = 10
	maxLeftPercent = 70
	minTodoPercent = 10
	maxTodoPercent = 80
	percentStep    = 3
)

// loadPrefs reads the layout file. A missing file is the default layout;
// a broken one is reported and ignored, so it never keeps the UI from
// starting. Run calls it before the program starts: it is I/O.
func loadPrefs(path string) (prefs, error) {
	var p prefs
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("cannot read the layout file %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return prefs{}, fmt.Errorf("layout file %s is not valid JSON (%v); using the default layout", path, err)
	}
	p.LeftPercent = clampPref(p.LeftPercent, minLeftPercent, maxLeftPercent)
	p.TodoPercent = clampPref(p.TodoPercent, minTodoPercent, maxTodoPercent)
	return p, nil
}

// clampPref bounds a stored proportion; 0 stays 0 (the default).
func clampPref(v, lo, hi int) int {
	if v == 0 {
		return 0
	}
	return clamp(v, lo, hi)
}

// prefsWriter saves the layout file from submit-style Cmds. Saves can
// finish out of order on Bubble Tea's goroutines; each carries a version
// and an older one never overwrites a newer one.
type prefsWriter struct {
	path    string
	mu      sync.Mutex
	version int // last version issued (owned by the event loop)
	written int // last version on disk (guarded by mu)
}

// prefsSavedMsg reports a failed save; nil err is not sent.
type prefsSavedMsg struct{ err error }

// save returns a Cmd that writes p atomically (temp file, rename).
func (w *prefsWriter) save(p prefs) tea.Cmd {
	if w == nil || w.path == "" {
		return nil
	}
	w.version++
	v := w.version
	p.Drafts = maps.Clone(p.Drafts) // the event loop goes on changing its own
	p.DraftPastes = maps.Clone(p.DraftPastes)
	return func() tea.Msg {
		w.mu.Lock()
		defer w.mu.Unlock()
		if v < w.written {
			return nil
		}
		if err := writePrefs(w.path, p); err != nil {
			return prefsSavedMsg{err: err}
		}
		w.written = v
		return nil
	}
}

// flush writes p now if a save is outstanding. Run calls it after the
// program ended, when no Cmd of its may still be running a save: Bubble
// Tea does not wait for Cmds when it quits.
func (w *prefsWriter) flush(p prefs) error {
	if w == nil || w.path == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written >= w.version {
		return nil
	}
	if err := writePrefs(w.path, p); err != nil {
		return err
	}
	w.written = w.version
	return nil
}

func writePrefs(path string, p prefs) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tui-*.json")
	if err != nil {
		return fmt.Errorf("cannot save the layout: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot save the layout: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot save the layout: %w", err)
	}
	return nil
}

// prefsChanged notes a change that is saved when the UI ends (drafts
// change with every key, too often for a file write each).
func (m *Model) prefsChanged() {
	if m.prefsOut != nil {
		m.prefsOut.version++
	}
}

// resizeLeft widens (d > 0) or narrows the left column and saves it.
func (m *Model) resizeLeft(d int) tea.Cmd {
	if m.gridShown() || m.lay.tooSmall {
		return nil
	}
	cur := m.prefs.LeftPercent
	if cur == 0 && m.width > 0 {
		cur = m.lay.threads.w * 100 / m.width
	}
	m.prefs.LeftPercent = clamp(cur+d*percentStep, minLeftPercent, maxLeftPercent)
	m.relayout()
	return m.prefsOut.save(m.prefs)
}

// resizeTodos grows (d > 0) or shrinks the todos pane and saves it.
func (m *Model) resizeTodos(d int) tea.Cmd {
	if m.gridShown() || m.lay.tooSmall {
		return nil
	}
	cur := m.prefs.TodoPercent
	if body := m.lay.threads.h + m.lay.todos.h; cur == 0 && body > 0 {
		cur = m.lay.todos.h * 100 / body
	}
	m.prefs.TodoPercent = clamp(cur+d*percentStep, minTodoPercent, maxTodoPercent)
	m.relayout()
	return m.prefsOut.save(m.prefs)
}
