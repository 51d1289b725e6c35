package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// The files a run changed come from its checkpoint (core.Checkpoint.Files:
// the changes against the checkpoint before it). The run's rule counts
// them ("2 files +12 -3"); its body lists them, maxRunFiles until the run
// is opened. The rollback dialog draws its files with the same rows.

// maxRunFiles is how many of its files a run lists until it is opened.
const maxRunFiles = 6

// checkpointOf is the checkpoint of run n of a thread, or nil.
func checkpointOf(st *core.State, thread string, n int) *core.Checkpoint {
	return st.Checkpoints[core.CheckpointID(thread, core.RunScope(n))]
}

// lineStats is "+12 -3", "+12", "-3" or "" (no lines counted).
func lineStats(added, deleted int) string {
	var parts []string
	if added > 0 {
		parts = append(parts, "+"+itoa(added))
	}
	if deleted > 0 {
		parts = append(parts, "-"+itoa(deleted))
	}
	return strings.Join(parts, " ")
}

// plural is "1 file", "3 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

// fileSummary is a checkpoint's changes in a few cells: "2 files +12 -3".
// Line counts are left out when the checkpoint did not list every file,
// since they would undercount. "" when the run has no checkpoint.
func fileSummary(c *core.Checkpoint) string {
	if c == nil {
		return ""
	}
	switch c.Status {
	case core.CkMissing, core.CkError:
		return "checkpoint " + string(c.Status)
	}
	added, deleted := 0, 0
	for _, f := range c.Files {
		added += f.Added
		deleted += f.Deleted
	}
	s := plural(len(c.Files)+c.MoreFiles, "file")
	if ls := lineStats(added, deleted); ls != "" && c.MoreFiles == 0 {
		s += " " + ls
	}
	return s
}

// fileRow is one line of a file list: a mark (a status letter, or what a
// rollback does to the file), the path and its line counts.
type fileRow struct {
	mark           string
	markSt         lipgloss.Style
	path           string
	added, deleted int
	binary         bool
}

// fileRowLines draws rows under an indent, at most w cells each, with the
// paths in one column (cut on the left, so the file name stays) and the
// counts in the diff styles. faded draws everything muted (the changes of
// a rolled-back run, which no longer apply).
func fileRowLines(st *themes.Styles, rows []fileRow, indent string, w int, faded bool) []string {
	markW, pathW, statW := 0, 0, 0
	for _, r := range rows {
		markW = max(markW, ansi.StringWidth(r.mark))
		pathW = max(pathW, ansi.StringWidth(oneLine(r.path)))
		statW = max(statW, ansi.StringWidth(r.stats()))
	}
	pathW = clamp(pathW, 1, max(1, w-ansi.StringWidth(indent)-markW-statW-3))
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		path := oneLine(r.path)
		if pw := ansi.StringWidth(path); pw > pathW {
			path = ansi.TruncateLeft(path, pw-pathW+1, "…")
		}
		mark := r.mark + strings.Repeat(" ", markW-ansi.StringWidth(r.mark))
		path += strings.Repeat(" ", pathW-ansi.StringWidth(path))
		line := indent + r.markSt.Render(mark) + " " + st.Text.Render(path) + "  " + r.styledStats(st)
		if faded {
			line = st.Muted.Render(indent + mark + " " + path + "  " + r.stats())
		}
		out = append(out, fit(line, w))
	}
	return out
}

func (r fileRow) stats() string {
	if r.binary {
		return "binary"
	}
	return lineStats(r.added, r.deleted)
}

func (r fileRow) styledStats(st *themes.Styles) string {
	if r.binary {
		return st.Muted.Render("binary")
	}
	var parts []string
	if r.added > 0 {
		parts = append(parts, st.DiffAdd.Render("+"+itoa(r.added)))
	}
	if r.deleted > 0 {
		parts = append(parts, st.DiffRemove.Render("-"+itoa(r.deleted)))
	}
	return strings.Join(parts, " ")
}

// statusStyle is the style of a file status letter: added, deleted,
// or changed (modified, type changed).
func statusStyle(st *themes.Styles, status string) lipgloss.Style {
	switch status {
	case "A":
		return st.DiffAdd
	case "D":
		return st.DiffRemove
	}
	return st.DiffMeta
}

// runFiles adds the files of a run's checkpoint to its body: all of them
// when the person opened the run, else the first maxRunFiles with a hint.
// A checkpoint that could not be taken says why.
func (m *Model) runFiles(d *runDoc, r *core.Run, w int) {
	c := checkpointOf(m.state, r.Thread, r.Ordinal)
	if c == nil {
		return
	}
	if c.Status == core.CkMissing || c.Status == core.CkError {
		d.add("", wrapIndent(fmt.Sprintf("checkpoint %s: %s", c.Status, orDefault(c.Reason, "no reason given")),
			"  ", w, m.st.Muted)...)
		return
	}
	files := c.Files
	open := m.folds[runItem(r.ID)] == foldOpen
	if !open && len(files) > maxRunFiles {
		files = files[:maxRunFiles]
	}
	rows := make([]fileRow, 0, len(files))
	for _, f := range files {
		rows = append(rows, fileRow{mark: f.Status, markSt: statusStyle(&m.st, f.Status), path: f.Path,
			added: f.Added, deleted: f.Deleted, binary: f.Binary})
	}
	d.add("", fileRowLines(&m.st, rows, "  ", w, r.Status == core.RunRolledBack)...)
	var more []string
	if hidden := len(c.Files) - len(files); hidden > 0 {
		more = append(more, fmt.Sprintf("… %d more files · enter on the run shows all", hidden))
	}
	if c.MoreFiles > 0 {
		more = append(more, fmt.Sprintf("… %s not recorded · `nexus diff %s --run %d --stat` lists them",
			plural(c.MoreFiles, "more file"), r.Thread, r.Ordinal))
	}
	if c.Own && c.Outside > 0 {
		more = append(more, fmt.Sprintf("+ %s in the directory meanwhile, by hand or by another thread: not this run's",
			plural(c.Outside, "other change")))
	}
	for _, l := range more {
		d.add("", m.st.Muted.Render(trunc("  "+l, w)))
	}
}

// filesCut reports whether a run lists fewer files than its checkpoint
// has until it is opened.
func (m *Model) filesCut(r *core.Run) bool {
	c := checkpointOf(m.state, r.Thread, r.Ordinal)
	return c != nil && c.Status != core.CkMissing && c.Status != core.CkError && len(c.Files) > maxRunFiles
}
