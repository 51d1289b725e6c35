package tui

import (
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// Threads do not share a directory by accident. A thread is live while
// it is not archived: whatever its state, its next message may make its
// agent write in its workspace. The new thread and fork dialogs offer a
// worktree of its own (wtOption), on by default when the new thread
// would otherwise work in a repository where a live thread works; the
// thread list marks threads in a worktree with its branch and threads
// that share a directory with another live thread (sharedDirs).

// wtOption is the "own worktree" part of the new thread and fork
// dialogs: a toggle, its default and why, and the branch to make.
type wtOption struct {
	on      bool
	touched bool   // the person toggled it: defaults no longer apply
	checked bool   // the repository check answered
	note    string // why it is on or off, shown after the toggle
	branch  textinput.Model
	// branchEdited: the person typed the branch; it no longer follows
	// the title.
	branchEdited bool
}

func newWTOption(st themes.Styles, branch string) wtOption {
	o := wtOption{branch: newInput(st, "branch (empty: detached HEAD)"), note: "checking the workspace…"}
	o.branch.SetValue(branch)
	o.branch.CharLimit = 200
	return o
}

// toggle switches the worktree on or off, for good.
func (o *wtOption) toggle() { o.on, o.touched = !o.on, true }

// settle applies a default, unless the person already chose.
func (o *wtOption) settle(on bool, note string) {
	o.checked, o.note = true, note
	if !o.touched {
		o.on = on
	}
}

// follow sets the suggested branch, unless the person typed one.
func (o *wtOption) follow(branch string) {
	if !o.branchEdited {
		o.branch.SetValue(branch)
	}
}

// lines draws the toggle and the branch, each after its label.
func (o *wtOption) lines(st *themes.Styles, label func(f int, name string) string, toggleField, branchField, inner int) []string {
	box := "[ ] "
	if o.on {
		box = "[x] "
	}
	note := ""
	if o.note != "" {
		note = " · " + o.note
	}
	toggle := label(toggleField, "Worktree   ") + st.Text.Render(box+"own git worktree") + st.Muted.Render(trunc(note, max(1, inner-33)))
	o.branch.SetWidth(max(10, inner-14))
	branch := label(branchField, "Branch     ") + o.branch.View()
	if !o.on {
		branch = label(branchField, "Branch     ") + st.Muted.Render(trunc(o.branch.Value()+" (no worktree)", max(1, inner-13)))
	}
	return []string{toggle, branch}
}

// wtChoice is what a dialog's worktree option asks for when it is
// submitted: nil for none.
type wtChoice struct {
	branch string
	auto   bool // the branch is the suggestion, not typed
}

func (o *wtOption) choice() *wtChoice {
	if !o.on {
		return nil
	}
	return &wtChoice{branch: strings.TrimSpace(o.branch.Value()), auto: !o.branchEdited}
}

// branchFor suggests a branch for a new thread: nexus/ and the title's
// words in lower case joined by dashes, or the thread id without a title.
func branchFor(title, id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = id
	}
	return "nexus/" + slug
}

// inDir reports whether dir is root or below it.
func inDir(dir, root string) bool {
	if dir == "" || root == "" {
		return false
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// liveIn counts the live threads whose workspace is in the work tree
// top: a new thread working there would share it with them.
func liveIn(st *core.State, top string) int {
	n := 0
	if st == nil {
		return 0
	}
	for _, th := range st.Threads {
		if !th.Archived && th.Status != core.ThreadArchived && inDir(th.Workspace, top) {
			n++
		}
	}
	return n
}

// sharedDirs reports, for each thread of rows, whether its workspace is
// another's, or lies inside or around another's: the two agents write in
// the same files. It costs a map lookup per directory level.
func sharedDirs(rows []threadRow) map[string]bool {
	exact := map[string]int{} // workspace -> threads working right there
	below := map[string]int{} // directory -> threads working under it
	for _, r := range rows {
		ws := r.th.Workspace
		if ws == "" {
			continue
		}
		ws = filepath.Clean(ws)
		exact[ws]++
		for d := filepath.Dir(ws); d != ws; ws, d = d, filepath.Dir(d) {
			below[d]++
		}
	}
	out := map[string]bool{}
	for _, r := range rows {
		ws := r.th.Workspace
		if ws == "" {
			continue
		}
		ws = filepath.Clean(ws)
		shared := exact[ws] > 1 || below[ws] > 0
		for d := filepath.Dir(ws); !shared && d != ws; ws, d = d, filepath.Dir(d) {
			shared = exact[d] > 0
		}
		if shared {
			out[r.th.ID] = true
		}
	}
	return out
}

// repoCheckedMsg answers checkRepo: the top of the repository holding
// dir ("" for none) for the dialog that asked.
type repoCheckedMsg struct {
	to   dialog
	dir  string
	top  string
	err  error
	real string // dir resolved, as a thread would record it
}

// repoChecker is a dialog that wants to know whether a directory is in
// a repository (to set its worktree default).
type repoChecker interface {
	repoChecked(st *core.State, msg repoCheckedMsg)
}

// checkRepo asks, in a Cmd, which repository holds dir, for dialog d.
func (m *Model) checkRepo(d dialog, dir string) tea.Cmd {
	wt := m.opts.Worktrees
	if wt == nil || wt.Repo == nil {
		return nil
	}
	ctx, repo := m.ctx, wt.Repo
	return func() tea.Msg {
		real, err := resolveWorkspace(dir)
		if err != nil {
			return repoCheckedMsg{to: d, dir: dir, err: err}
		}
		top, err := repo(ctx, real)
		return repoCheckedMsg{to: d, dir: dir, top: top, err: err, real: real}
	}
}

// repoChecked hands the answer to its dialog, if it is still open.
func (m *Model) repoChecked(msg repoCheckedMsg) {
	for _, d := range m.dialogs {
		if rc, ok := d.(repoChecker); ok && d == msg.to {
			rc.repoChecked(m.state, msg)
		}
	}
}

// worktreesOffered reports whether the UI can make worktrees at all.
func (m *Model) worktreesOffered() bool {
	return m.opts.Worktrees != nil && m.opts.Worktrees.Add != nil
}
