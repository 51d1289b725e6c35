package tui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// Fields of the fork dialog: the run list, then (when the UI can make
// worktrees) the worktree toggle and its branch.
const (
	forkFieldRuns = iota
	forkFieldWorktree
	forkFieldBranch
)

// forkDialog lists the completed runs of a thread, newest first, to fork
// it at one of them, and offers the fork a worktree of its own: without
// one it works in the source's directory.
type forkDialog struct {
	list   pickDialog
	runs   []int
	thread string
	id     string // the fork's id, chosen now: its branch may be named after it
	field  int
	fields int
	wt     wtOption
}

func newForkDialog(styles themes.Styles, st *core.State, th *core.Thread, worktrees bool) *forkDialog {
	id := core.NewID("t")
	d := &forkDialog{thread: th.ID, id: id, fields: 1, wt: newWTOption(styles, branchFor(threadTitle(th)+" fork", id)),
		list: pickDialog{title: "Fork " + threadTitle(th), hints: "enter fork here · up/down pick a run · esc cancel",
			intro: "A fork is a new thread whose context is this one's runs up to the run you pick. Only completed runs are stable points."}}
	if worktrees {
		d.fields = forkFieldBranch + 1
		d.list.hints = "enter fork · up/down run · tab worktree · space on/off · esc cancel"
	}
	for _, r := range st.RunsOf(th.ID) {
		if r.Status != core.RunCompleted {
			continue
		}
		note := ""
		if r.EndedAt > r.StartedAt && r.StartedAt > 0 {
			note = duration(time.Duration(r.EndedAt - r.StartedAt))
		}
		d.list.items = append([]pickItem{{label: fmt.Sprintf("run %d: %s", r.Ordinal, oneLine(r.Text)), note: note}}, d.list.items...)
		d.runs = append([]int{r.Ordinal}, d.runs...)
	}
	return d
}

// openFork opens the fork dialog for the selected thread and asks
// whether its workspace is in a git repository: then the fork gets a
// worktree by default, or it would share the source's directory.
func (m *Model) openFork() tea.Cmd {
	th := m.selectedThread()
	if th == nil {
		return m.setFlash("no thread selected to fork", true)
	}
	d := newForkDialog(m.st, m.state, th, m.worktreesOffered())
	if len(d.list.items) == 0 {
		return m.setFlash("this thread has no completed run to fork from yet", true)
	}
	m.pushDialog(d)
	if d.fields == 1 || th.Workspace == "" {
		d.wt.settle(false, "the thread has no workspace")
		return nil
	}
	return m.checkRepo(d, th.Workspace)
}

func (d *forkDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if _, paste := msg.(tea.PasteMsg); paste && d.field == forkFieldBranch {
			return d.edit(msg)
		}
		return actNone{}, nil
	}
	switch {
	case key.Matches(k, keys.CancelDialog):
		return actClose{}, nil
	case key.Matches(k, keys.Confirm):
		a := actFork{thread: d.thread, run: d.runs[d.list.cursor], id: d.id}
		if d.fields > 1 {
			a.worktree = d.wt.choice()
		}
		return a, nil
	// Up and down pick the run from any field, as the hint says (the
	// others are a toggle and one line); tab moves between fields.
	case key.Matches(k, keys.Up):
		d.list.cursor = max(0, d.list.cursor-1)
	case key.Matches(k, keys.Down):
		d.list.cursor = min(len(d.list.items)-1, d.list.cursor+1)
	case d.field == forkFieldWorktree && key.Matches(k, keys.ToggleOption):
		d.wt.toggle()
	case key.Matches(k, keys.NextField):
		d.setField((d.field + 1) % d.fields)
	case key.Matches(k, keys.PrevField):
		d.setField((d.field + d.fields - 1) % d.fields)
	case d.field == forkFieldBranch:
		return d.edit(msg)
	}
	return actNone{}, nil
}

// edit types into the branch field.
func (d *forkDialog) edit(msg tea.Msg) (action, tea.Cmd) {
	before := d.wt.branch.Value()
	var cmd tea.Cmd
	d.wt.branch, cmd = d.wt.branch.Update(msg)
	if d.wt.branch.Value() != before {
		d.wt.branchEdited = true
	}
	return actNone{}, cmd
}

func (d *forkDialog) setField(f int) {
	d.field = f
	d.wt.branch.Blur()
	if f == forkFieldBranch {
		d.wt.branch.Focus()
	}
}

// repoChecked sets the worktree default: on whenever the source works in
// a git repository, since the fork would otherwise share its directory.
func (d *forkDialog) repoChecked(_ *core.State, msg repoCheckedMsg) {
	switch {
	case msg.err != nil:
		d.wt.settle(false, "cannot tell: "+oneLine(msg.err.Error()))
	case msg.top == "":
		d.wt.settle(false, "not a git repository")
	default:
		d.wt.settle(true, "else it shares this thread's dir")
	}
}

func (d *forkDialog) view(st *themes.Styles, maxW, maxH int) []string {
	inner := max(20, maxW-4)
	body := introLines(st, d.list.intro, maxW)
	extra := 0
	if d.fields > 1 {
		extra = 3
	}
	body = append(body, d.list.listLines(st, inner, max(1, maxH-4-len(body)-2-extra))...)
	if d.fields > 1 {
		label := func(f int, name string) string {
			mark := "  "
			if d.field == f {
				mark = st.Key.Render("› ")
			}
			return mark + st.Text.Render(name)
		}
		body = append(body, "")
		body = append(body, d.wt.lines(st, label, forkFieldWorktree, forkFieldBranch, inner)...)
	}
	return dialogFrame(st, d.list.title, body, d.list.hints, maxW, maxH)
}

// fork returns the Cmd of a fork: with a worktree, it makes the
// worktree from the run's checkpoint first (as `thread fork --worktree`
// does), then submits thread.fork with it.
func (m *Model) fork(a actFork) tea.Cmd {
	cmd := core.Command{ID: newCommandID(), Kind: core.CmdThreadFork, Thread: a.thread, NewThread: a.id, Run: a.run, Source: "run"}
	if cmd.NewThread == "" {
		cmd.NewThread = core.NewID("t")
	}
	if a.worktree == nil || m.opts.Worktrees == nil || m.opts.Worktrees.Add == nil {
		return m.submit(cmd, "")
	}
	ctx, b, add, wt := m.ctx, m.backend, m.opts.Worktrees.Add, *a.worktree
	return tea.Batch(m.setFlash("making the fork's worktree…", false), func() tea.Msg {
		made, err := add(ctx, WorktreeSpec{Thread: cmd.NewThread, From: a.thread, Run: a.run, Branch: wt.branch, AutoBranch: wt.auto})
		if err != nil {
			return submitResultMsg{cmd: cmd, err: err}
		}
		cmd.Worktree, cmd.Repo, cmd.Branch = made.Path, made.Repo, made.Branch
		sctx, cancel := context.WithTimeout(ctx, submitTimeout)
		defer cancel()
		rec, err := b.Submit(sctx, cmd)
		return submitResultMsg{cmd: cmd, rec: rec, err: err}
	})
}
