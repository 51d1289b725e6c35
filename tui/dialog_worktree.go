package tui

import (
	"context"
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// The worktree dialog (KeyMap.Worktree) acts on the selected thread's
// own worktree: its diff against the branch it came from, a commit of
// its changes (the message drafted from the thread's runs, edited in a
// dialog), a merge of its branch into that branch, and archiving the
// thread, which removes the worktree (asking again when it holds
// uncommitted work). The git work runs in Cmds through
// Options.Worktrees; the outcome is one line in the status line.

type (
	// actWorktreeDiff: close and show the worktree's diff.
	actWorktreeDiff struct{ thread string }
	// actCommitEdit: open the commit message dialog.
	actCommitEdit struct{ thread string }
	// actCommit: commit the worktree with message, then close.
	actCommit struct{ thread, message string }
	// actMergeAsk and actArchiveAsk: ask before merging or archiving.
	actMergeAsk   struct{ thread string }
	actArchiveAsk struct{ thread string }
	// actMerge: merge the worktree's branch, then close.
	actMerge struct{ thread string }
	// actArchive: archive the thread and remove its worktree (force:
	// with its uncommitted work), then close.
	actArchive struct {
		thread string
		force  bool
	}
)

func (actWorktreeDiff) isAction() {}
func (actCommitEdit) isAction()   {}
func (actCommit) isAction()       {}
func (actMergeAsk) isAction()     {}
func (actArchiveAsk) isAction()   {}
func (actMerge) isAction()        {}
func (actArchive) isAction()      {}

// worktreeDialog lists what can be done with a thread's worktree; up and
// down and enter, or the item's first letter.
type worktreeDialog struct {
	pickDialog
	letters []string
}

func newWorktreeDialog(th *core.Thread) *worktreeDialog {
	branch := "detached HEAD"
	if th.Branch != "" {
		branch = "branch " + th.Branch
	}
	d := &worktreeDialog{pickDialog: pickDialog{title: "Worktree of " + threadTitle(th),
		intro: th.Worktree + " · " + branch + " · made from " + th.Repo,
		hints: "enter or d/c/m/a · up/down pick · esc close"}}
	id := th.ID
	items := []struct {
		letter, label, note string
		act                 action
	}{
		{"d", "diff", "what it holds against the branch it came from, committed or not", actWorktreeDiff{id}},
		{"c", "commit", "commit all its changes (you edit the message first)", actCommitEdit{id}},
		{"m", "merge", "merge its branch into the branch checked out in " + th.Repo, actMergeAsk{id}},
		{"a", "archive", "archive the thread, remove the worktree, keep the branch", actArchiveAsk{id}},
	}
	acts := make([]action, len(items))
	for i, it := range items {
		d.items = append(d.items, pickItem{label: it.label, note: it.note})
		d.letters = append(d.letters, it.letter)
		acts[i] = it.act
	}
	d.pick = func(i int) action { return acts[i] }
	return d
}

func (d *worktreeDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && printable(k) {
		for i, l := range d.letters {
			if strings.EqualFold(k.Text, l) {
				return d.pick(i), nil
			}
		}
		return actNone{}, nil
	}
	return d.pickDialog.update(msg, keys)
}

// openWorktree opens the worktree dialog for the selected thread.
func (m *Model) openWorktree() tea.Cmd {
	th := m.selectedThread()
	switch {
	case th == nil:
		return m.setFlash("no thread selected", true)
	case m.opts.Worktrees == nil:
		return m.setFlash("this UI cannot act on worktrees (`nexus thread archive` can remove one)", true)
	case th.Worktree == "":
		return m.setFlash("this thread works in "+th.Workspace+", not in a worktree of its own; "+
			m.keys.NewThread.Help().Key+" or "+m.keys.Fork.Help().Key+" can give a new thread one", true)
	}
	m.pushDialog(newWorktreeDialog(th))
	return nil
}

// commitDialog edits the commit message of a worktree's changes: enter
// commits, the newline keys add lines, esc cancels.
type commitDialog struct {
	thread string
	title  string
	ta     textarea.Model
}

func newCommitDialog(st themes.Styles, keys KeyMap, th *core.Thread, message string) *commitDialog {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.CharLimit = core.MaxTextBytes
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(keys.Newline.Keys()...))
	ta.KeyMap.SelectAll = key.NewBinding(key.WithDisabled())
	s := textarea.DefaultStyles(st.Theme.Name != themes.Light)
	for _, ss := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		ss.Base, ss.Text, ss.CursorLine = st.InputText, st.InputText, st.InputText
		ss.EndOfBuffer, ss.Prompt = st.Muted, st.Muted
	}
	s.Cursor.Color = st.CursorColor
	s.Cursor.Blink = false
	ta.SetStyles(s)
	ta.SetValue(message)
	ta.MoveToBegin()
	ta.Focus()
	return &commitDialog{thread: th.ID, title: "Commit " + threadTitle(th), ta: ta}
}

func (d *commitDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, keys.CancelDialog):
			return actClose{}, nil
		case key.Matches(k, keys.Confirm):
			if strings.TrimSpace(d.ta.Value()) == "" {
				return actNone{}, nil
			}
			return actCommit{thread: d.thread, message: d.ta.Value()}, nil
		}
	}
	var cmd tea.Cmd
	d.ta, cmd = d.ta.Update(msg)
	return actNone{}, cmd
}

func (d *commitDialog) view(st *themes.Styles, maxW, maxH int) []string {
	w := clamp(maxW-4, 20, 76)
	h := clamp(d.ta.LineCount(), 3, max(3, min(12, maxH-7)))
	d.ta.SetWidth(w)
	d.ta.SetHeight(h)
	body := append([]string{st.Muted.Render(trunc("Commits every change in the worktree with this message:", w)), ""},
		strings.Split(d.ta.View(), "\n")...)
	return dialogFrame(st, d.title, body, "enter commit · alt+enter/ctrl+j new line · esc cancel", maxW, maxH)
}

// askDialog asks a yes/no question; yes carries out its action.
type askDialog struct {
	title, text, hints string
	yes                action
}

func (d *askDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.Allow, keys.Confirm):
		return d.yes, nil
	case key.Matches(k, keys.Deny, keys.CancelDialog):
		return actClose{}, nil
	}
	return actNone{}, nil
}

func (d *askDialog) view(st *themes.Styles, maxW, maxH int) []string {
	return dialogFrame(st, d.title, wrapBody(d.text, maxW), d.hints, maxW, maxH)
}

// defaultTitle is the title the kernel gives a thread created without one.
var defaultTitle = regexp.MustCompile(`^thread \d+$`)

// commitMessage drafts the message of a worktree's commit from its
// thread: the title as the subject (the first run's text for a thread
// without one), the text of each run that counts (not rolled back or
// cancelled) as a list, and the thread's id as a trailer.
func commitMessage(st *core.State, th *core.Thread) string {
	firstLine := func(s string) string {
		l := oneLine(strings.SplitN(strings.TrimSpace(s), "\n", 2)[0])
		if r := []rune(l); len(r) > 72 {
			l = strings.TrimSpace(string(r[:71])) + "…"
		}
		return l
	}
	var runs []string
	for _, r := range st.RunsOf(th.ID) {
		switch r.Status {
		case core.RunRolledBack, core.RunCancelled, core.RunQueued:
			continue
		}
		runs = append(runs, "- "+firstLine(r.Text))
	}
	subject := firstLine(th.Title)
	if (subject == "" || defaultTitle.MatchString(subject)) && len(runs) > 0 {
		subject = strings.TrimPrefix(runs[0], "- ")
	}
	if subject == "" {
		subject = "Work of nexus thread " + th.ID
	}
	var b strings.Builder
	b.WriteString(subject + "\n")
	if len(runs) > 0 {
		b.WriteString("\n" + strings.Join(runs, "\n") + "\n")
	}
	b.WriteString("\nNexus-Thread: " + th.ID + "\n")
	return b.String()
}

// worktreeDoneMsg is the outcome of a worktree operation: a line to
// show, an error, or (archive) that the worktree holds uncommitted work.
type worktreeDoneMsg struct {
	op     string // "commit", "merge", "archive"
	thread string
	text   string
	err    error
	dirty  bool
}

// worktreeAction carries out the worktree dialogs' actions; false when
// act is none of them.
func (m *Model) worktreeAction(act action) (tea.Cmd, bool) {
	th := func(id string) *core.Thread {
		if m.state == nil {
			return nil
		}
		return m.state.Threads[id]
	}
	switch a := act.(type) {
	case actWorktreeDiff:
		m.popDialog()
		t := th(a.thread)
		if t == nil || m.opts.Worktrees.Diff == nil {
			return nil, true
		}
		diff, id := m.opts.Worktrees.Diff, t.ID
		return m.startDiff(t, "worktree", func(ctx context.Context) (string, error) { return diff(ctx, id) }), true
	case actCommitEdit:
		t := th(a.thread)
		if t == nil {
			return nil, true
		}
		if r := m.state.ActiveRun(t.ID); r != nil {
			return m.setFlash("run "+itoa(r.Ordinal)+" is still active: commit once it ends (ctrl+x interrupts it)", true), true
		}
		m.popDialog()
		m.pushDialog(newCommitDialog(m.st, m.keys, t, commitMessage(m.state, t)))
	case actCommit:
		m.popDialog()
		commit, ctx, id, msg := m.opts.Worktrees.Commit, m.ctx, a.thread, a.message
		return tea.Batch(m.setFlash("committing…", false), func() tea.Msg {
			text, err := commit(ctx, id, msg)
			return worktreeDoneMsg{op: "commit", thread: id, text: text, err: err}
		}), true
	case actMergeAsk:
		t := th(a.thread)
		if t == nil {
			return nil, true
		}
		m.popDialog()
		from := "its branch"
		if t.Branch != "" {
			from = t.Branch
		}
		m.pushDialog(&askDialog{title: "Merge " + threadTitle(t) + "?", yes: actMerge{t.ID},
			hints: "y/enter merge · n/esc not now",
			text: "Merges " + from + " into the branch checked out in " + t.Repo + ", as git merge would: " +
				"a fast-forward when it can, else a merge commit. Commit the worktree's changes first; a conflict aborts the merge."})
	case actMerge:
		m.popDialog()
		merge, ctx, id := m.opts.Worktrees.Merge, m.ctx, a.thread
		return tea.Batch(m.setFlash("merging…", false), func() tea.Msg {
			text, err := merge(ctx, id)
			return worktreeDoneMsg{op: "merge", thread: id, text: text, err: err}
		}), true
	case actArchiveAsk:
		t := th(a.thread)
		if t == nil {
			return nil, true
		}
		m.popDialog()
		m.pushDialog(&askDialog{title: "Archive " + threadTitle(t) + "?", yes: actArchive{thread: t.ID},
			hints: "y/enter archive · n/esc not now",
			text:  "The thread leaves the list and its worktree " + t.Worktree + " is removed; its branch stays in the repository."})
	case actArchive:
		m.popDialog()
		return tea.Batch(m.setFlash("archiving…", false), m.archive(a)), true
	default:
		return nil, false
	}
	return nil, true
}

// archive returns the Cmd that archives a worktree thread as `nexus
// thread archive` does: it asks first (dirtyMsg) when the worktree holds
// uncommitted work and force is not set, then submits thread.archive
// and removes the worktree.
func (m *Model) archive(a actArchive) tea.Cmd {
	ctx, b, ops := m.ctx, m.backend, m.opts.Worktrees
	return func() tea.Msg {
		done := worktreeDoneMsg{op: "archive", thread: a.thread}
		if !a.force {
			dirty, err := ops.Dirty(ctx, a.thread)
			if err != nil || dirty {
				done.err, done.dirty = err, dirty
				return done
			}
		}
		sctx, cancel := context.WithTimeout(ctx, submitTimeout)
		defer cancel()
		cmd := core.Command{ID: newCommandID(), Kind: core.CmdThreadArchive, Thread: a.thread}
		rec, err := b.Submit(sctx, cmd)
		if err != nil || rec.Reject != nil {
			return submitResultMsg{cmd: cmd, rec: rec, err: err}
		}
		if done.err = ops.Remove(ctx, a.thread, a.force); done.err == nil {
			done.text = "archived; its worktree is removed"
		}
		return done
	}
}

// worktreeDone shows an operation's outcome; an archive refused for
// uncommitted work asks whether to drop it.
func (m *Model) worktreeDone(msg worktreeDoneMsg) tea.Cmd {
	switch {
	case msg.dirty:
		title := msg.thread
		if th := m.state.Threads[msg.thread]; th != nil {
			title = threadTitle(th)
		}
		m.pushDialog(&askDialog{title: "Drop uncommitted work?", yes: actArchive{thread: msg.thread, force: true},
			hints: "y/enter archive and remove it · n/esc keep everything",
			text: "The worktree of " + title + " holds work no commit keeps. Archiving removes it for good; commit it first (" +
				m.keys.Worktree.Help().Key + ", c) to keep it on the branch."})
		return nil
	case msg.err != nil:
		return m.setFlash(msg.op+" failed: "+oneLine(msg.err.Error()), true)
	}
	return m.setFlash(msg.text, false)
}
