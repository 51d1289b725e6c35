package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// The rollback dialog: pick a run of the selected thread whose checkpoint
// is ready (or, under its run, a mark or a subagent that changed files),
// see what rolling back to it changes, confirm, and the root submits
// rollback.to_run (rollback.node for a subagent). m marks the workspace
// as it is now (checkpoint.capture); the mark shows up in the list once
// captured. Its outcome (core.Operation) comes back as journaled events:
// the status line says how it ended and the transcript shows it at the
// run it went back to.

// rollbackTarget is where a rollback goes: the end of a run (0: before
// run 1), or a mark's or a subagent's checkpoint (cp) within it.
type rollbackTarget struct {
	run int
	cp  *core.Checkpoint
	// undo: undo this operation, the thread's last rollback (or undo:
	// a redo), instead of going to a run.
	undo *core.Operation
}

// same reports whether two targets are the same place.
func (t rollbackTarget) same(o rollbackTarget) bool {
	if t.undo != nil || o.undo != nil {
		return t.undo != nil && o.undo != nil
	}
	if t.cp == nil || o.cp == nil {
		return t.cp == nil && o.cp == nil && t.run == o.run
	}
	return t.cp.ID == o.cp.ID
}

// name is "run 3", "before run 1", "mark/1" or "the subagent in run 2".
func (t rollbackTarget) name() string {
	switch {
	case t.undo != nil:
		return "before " + opName(t.undo.ID)
	case t.cp == nil:
		return target(t.run)
	case t.cp.Node != "":
		return "the subagent in run " + itoa(t.run)
	}
	return scopeName(t.cp.ID)
}

// scopeName is a checkpoint id without its thread: "mark/1".
func scopeName(id string) string {
	if _, scope, ok := strings.Cut(id, "/cp/"); ok {
		return scope
	}
	return id
}

// actRollback: roll a thread's workspace back to a target, then close.
type actRollback struct {
	thread string
	to     rollbackTarget
}

func (actRollback) isAction() {}

// actMark: mark the thread's workspace as it is now.
type actMark struct{ thread string }

func (actMark) isAction() {}

// command is the rollback command for a target.
func (a actRollback) command() core.Command {
	switch {
	case a.to.undo != nil:
		return core.Command{Kind: core.CmdRollbackUndo, Thread: a.thread}
	case a.to.cp == nil:
		return core.Command{Kind: core.CmdRollbackToRun, Thread: a.thread, Run: a.to.run}
	case a.to.cp.Node != "":
		return core.Command{Kind: core.CmdRollbackNode, Thread: a.thread, Node: a.to.cp.Node}
	}
	return core.Command{Kind: core.CmdRollbackToRun, Thread: a.thread, Checkpoint: a.to.cp.ID}
}

// rollbackPlan is what rolling a thread back to run `to` changes, derived
// from the checkpoints of the runs after it.
type rollbackPlan struct {
	to int
	// name is where it goes ("run 2", "mark/1"), and within says what a
	// target inside a run means for that run's own changes.
	name, within string
	// runs are the later runs that become rolled_back (queued ones are
	// cancelled), in order.
	runs []*core.Run
	// files are the files put back as they were at run `to`, by path.
	files []fileUndo
	// more counts files the later checkpoints changed but did not list.
	more int
	// unknown says which later runs' changes are not known.
	unknown []string
	// outside counts the changes the later runs' checkpoints saw in the
	// directory that were not theirs (a rollback leaves them).
	outside int
}

// fileUndo is one file a rollback puts back: removed if a later run added
// it, else restored; the line counts are the later runs' changes to it.
type fileUndo struct {
	path           string
	remove         bool
	added, deleted int
	binary         bool
}

// planRollback derives a rollbackPlan from the later runs' checkpoints.
// A path's first change after run `to` says whether the file existed then
// (anything but an add) and its last whether it exists now (anything but
// a delete): a file that existed is restored, one that did not is
// removed, and one added and deleted again is left out.
func planRollback(st *core.State, thread string, to int) rollbackPlan {
	p := rollbackPlan{to: to, name: target(to)}
	byPath := map[string]*fileUndo{}
	exists := map[string]bool{}
	for _, r := range st.RunsOf(thread) {
		if r.Ordinal <= to || r.Status == core.RunRolledBack {
			continue
		}
		p.runs = append(p.runs, r)
		c := checkpointOf(st, thread, r.Ordinal)
		switch {
		case r.Status == core.RunQueued:
			// It never ran, so it changed nothing.
		case c == nil || c.Status == core.CkStale:
			p.unknown = append(p.unknown, fmt.Sprintf("run %d has no checkpoint: its changes can't be listed or undone exactly", r.Ordinal))
		case c.Status != core.CkReady:
			p.unknown = append(p.unknown, fmt.Sprintf("run %d: checkpoint %s (%s); its changes can't be listed or undone exactly",
				r.Ordinal, c.Status, orDefault(c.Reason, "no reason given")))
		default:
			for _, f := range c.Files {
				u := byPath[f.Path]
				if u == nil {
					u = &fileUndo{path: f.Path, remove: f.Status == "A"}
					byPath[f.Path] = u
				}
				u.added += f.Added
				u.deleted += f.Deleted
				u.binary = u.binary || f.Binary
				exists[f.Path] = f.Status != "D"
			}
			p.more += c.MoreFiles
			if c.Own {
				p.outside += c.Outside
			}
		}
	}
	for path, u := range byPath {
		if !u.remove || exists[path] {
			p.files = append(p.files, *u)
		}
	}
	sort.Slice(p.files, func(i, j int) bool { return p.files[i].path < p.files[j].path })
	return p
}

// target names where a rollback goes: "run 3", or "before run 1".
func target(run int) string {
	if run == 0 {
		return "before run 1"
	}
	return "run " + itoa(run)
}

// lines draws the plan in at most room lines of w cells: the runs it
// marks (by number: the list above names them), what it cannot undo,
// then as many files as fit.
func (p rollbackPlan) lines(st *themes.Styles, w, room int) []string {
	var out []string
	if p.within != "" {
		out = append(out, wrapStyled(p.within, w, st.Text)...)
	}
	if len(p.runs) == 0 && p.within == "" {
		out = append(out, wrapStyled(fmt.Sprintf("Nothing ran after %s: nothing of this thread's to undo. Edits made since by hand or by another thread are not its own, and are left as they are.",
			p.name), w, st.Text)...)
	} else if len(p.runs) > 0 {
		var nums []string
		for _, r := range p.runs {
			n := itoa(r.Ordinal)
			if r.Status == core.RunQueued {
				n += " (queued: cancelled)"
			}
			nums = append(nums, n)
		}
		word := "run "
		if len(nums) > 1 {
			word = "runs "
		}
		out = append(out, wrapStyled(fmt.Sprintf("Rolling back to %s marks %s rolled back.", p.name,
			word+strings.Join(nums, ", ")), w, st.Text)...)
	}
	for _, u := range p.unknown {
		out = append(out, wrapIndent(u, "! ", w, st.Request)...)
	}
	if p.outside > 0 {
		out = append(out, wrapStyled(fmt.Sprintf("%s in the directory during those runs, by hand or by another thread, %s not this thread's: left as they are. "+
			"A file of this thread's that someone changed since is kept too (the command line's --force overwrites it).",
			plural(p.outside, "other change"), map[bool]string{true: "is", false: "are"}[p.outside == 1]), w, st.Muted)...)
	}
	if len(p.files) == 0 && p.more == 0 {
		if len(p.runs) > 0 && len(p.unknown) == 0 {
			out = append(out, st.Muted.Render("The later runs changed no files."))
		}
		return cut(out, room)
	}
	n := len(p.files) + p.more
	out = append(out, st.Text.Render(trunc(fmt.Sprintf("%s put back as at %s (the lines later runs changed):",
		plural(n, "file"), target(p.to)), w)))
	shown := clamp(room-len(out), 0, len(p.files))
	if shown < len(p.files) || p.more > 0 {
		shown = max(0, min(shown, room-len(out)-1)) // a line for "and N more"
	}
	rows := make([]fileRow, 0, shown)
	for _, u := range p.files[:shown] {
		r := fileRow{mark: "restore", markSt: st.DiffAdd, path: u.path, added: u.added, deleted: u.deleted, binary: u.binary}
		if u.remove {
			r.mark, r.markSt = "remove", st.DiffRemove
		}
		rows = append(rows, r)
	}
	out = append(out, fileRowLines(st, rows, "  ", w, false)...)
	if rest := n - shown; rest > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("  … and %d more", rest)))
	}
	return cut(out, room)
}

// cut keeps at most n lines.
func cut(lines []string, n int) []string {
	return lines[:clamp(n, 0, len(lines))]
}

// rollbackDialog lists the runs a thread can go back to (a pickDialog),
// previews the one under the cursor, and asks again before it acts:
// enter arms it, enter or y then rolls back, esc or n disarms, and a
// move disarms too, since the question was about another run.
type rollbackDialog struct {
	list  *pickDialog
	plans []rollbackPlan
	armed bool
	// warn says why the host will refuse now (a run is active), if so.
	warn              string
	thread, title, ws string
	targets           []rollbackTarget // the target of each item
}

// newRollbackDialog lists the places a thread can go back to, newest
// first: each run whose checkpoint is ready, with the marks taken after
// it above it and its subagents' checkpoints below it, then the baseline
// (before run 1) while any run can be undone.
func newRollbackDialog(st *core.State, th *core.Thread) *rollbackDialog {
	d := &rollbackDialog{thread: th.ID, title: threadTitle(th), ws: th.Workspace, list: &pickDialog{title: "Roll back " + threadTitle(th),
		intro: "Puts the files this thread changed after the run you pick back as they were then; what others changed stays. Later runs are marked rolled back and leave the agent's context. Every rollback can be undone."}}
	nodes, marks := scopeCheckpoints(st, th.ID)
	var targets []rollbackTarget
	var items []pickItem
	add := func(it pickItem, t rollbackTarget) { // newest first
		items = append([]pickItem{it}, items...)
		targets = append([]rollbackTarget{t}, targets...)
	}
	addMarks := func(run int) {
		for _, c := range marks[run] {
			add(pickItem{label: fmt.Sprintf("  ↳ %s, your mark after %s", scopeName(c.ID), target(run)), note: fileSummary(c)},
				rollbackTarget{run: run, cp: c})
		}
	}
	addMarks(0)
	live := false
	for _, r := range st.RunsOf(th.ID) {
		if r.Status == core.RunRolledBack {
			continue
		}
		live = true
		switch {
		case r.Status == core.RunRunning || r.Status == core.RunWaiting || r.Finishing != "":
			d.warn = fmt.Sprintf("Run %d is active: interrupt it first, or the host refuses.", r.Ordinal)
		case r.Recoverable && r.Status == core.RunInterrupted:
			d.warn = fmt.Sprintf("Run %d was interrupted by a host restart: resume or interrupt it first, or the host refuses.", r.Ordinal)
		}
		for _, c := range nodes[r.Ordinal] {
			title := "subagent"
			if n := st.Node(c.Node); n != nil && n.Title != "" {
				title = n.Title
			}
			add(pickItem{label: "  ↳ " + oneLine(title), note: fileSummary(c)}, rollbackTarget{run: r.Ordinal, cp: c})
		}
		if c := checkpointOf(st, th.ID, r.Ordinal); c != nil && c.Status == core.CkReady {
			add(pickItem{label: fmt.Sprintf("run %d: %s", r.Ordinal, oneLine(r.Text)), note: fileSummary(c)},
				rollbackTarget{run: r.Ordinal})
		}
		addMarks(r.Ordinal)
	}
	for _, op := range st.Operations {
		if op.Thread == th.ID && op.Status == core.OpRunning {
			d.warn = "A rollback of this thread is still in progress (`nexus resume` finishes it); the host refuses another."
		}
	}
	if c := st.Checkpoints[core.CheckpointID(th.ID, core.ScopeBase)]; live && c != nil && c.Status == core.CkReady {
		items = append(items, pickItem{label: "before run 1", note: "the workspace as the thread found it"})
		targets = append(targets, rollbackTarget{})
	}
	if op := undoable(st, th.ID); op != nil {
		label := "undo the last rollback"
		if op.Undoes != "" {
			label = "redo the rollback the last undo reversed"
		}
		items = append([]pickItem{{label: label, note: "files and runs as they were before it"}}, items...)
		targets = append([]rollbackTarget{{undo: op}}, targets...)
	}
	d.list.items = items
	for _, t := range targets {
		d.plans = append(d.plans, planTarget(st, th.ID, t))
	}
	id := th.ID
	d.targets = targets
	d.list.pick = func(i int) action { return actRollback{thread: id, to: targets[i]} }
	return d
}

// undoable is the thread's last operation if rollback.undo can undo it:
// completed, with its safety checkpoint, and no run started since.
func undoable(st *core.State, thread string) *core.Operation {
	var last *core.Operation
	for k := 1; ; k++ {
		op := st.Operations[thread+"/rollback"+itoa(k)]
		if op == nil {
			break
		}
		last = op
	}
	if last == nil || last.Status != core.OpCompleted || last.Safety == "" || len(st.RunsOf(thread)) > last.Runs {
		return nil
	}
	return last
}

// scopeCheckpoints are a thread's ready subagent and mark checkpoints by
// the run they belong to, in order. It looks only at the thread's own
// subagent nodes and marks (marks are numbered from 1 without gaps), so
// the dialog's refresh on every journal frame costs what the thread
// holds, not what the whole state does.
func scopeCheckpoints(st *core.State, thread string) (nodes, marks map[int][]*core.Checkpoint) {
	nodes, marks = map[int][]*core.Checkpoint{}, map[int][]*core.Checkpoint{}
	for _, r := range st.RunsOf(thread) {
		for _, a := range st.AttemptsOf(r.ID) {
			for _, n := range st.NodesOf(a.ID) {
				if n.Kind != core.NodeSubagent {
					continue
				}
				if c := st.Checkpoints[core.CheckpointID(thread, core.NodeScope(thread, n.ID))]; c != nil && c.Status == core.CkReady {
					nodes[c.Run] = append(nodes[c.Run], c)
				}
			}
		}
	}
	for k := 1; k <= st.MarkCount(thread); k++ {
		if c := st.Checkpoints[core.CheckpointID(thread, core.MarkScope(k))]; c != nil && c.Status == core.CkReady {
			marks[c.Run] = append(marks[c.Run], c)
		}
	}
	return nodes, marks
}

// planTarget is the plan of a rollback to a target: a run's, or for a
// mark or a subagent, its run's with a word on what that means.
func planTarget(st *core.State, thread string, t rollbackTarget) rollbackPlan {
	if t.undo != nil {
		what := "the rollback to " + opTarget(t.undo)
		if t.undo.Undoes != "" {
			what = "the last undo"
		}
		return rollbackPlan{name: t.name(), within: fmt.Sprintf("Puts the files %s (%s) changed back as they were just before it, "+
			"hand edits it overwrote included, and the runs it changed back to their statuses; a file someone changed since is kept. "+
			"Doing this is undone the same way.", what, opName(t.undo.ID))}
	}
	p := planRollback(st, thread, t.run)
	if t.cp == nil {
		return p
	}
	p.name = t.name()
	if t.cp.Node != "" {
		p.within = fmt.Sprintf("Goes back to the end of this subagent, inside run %d: what run %d did after it is undone too (not listed).",
			t.run, t.run)
	} else {
		p.within = fmt.Sprintf("Goes back to %s, taken after %s: edits made since are undone; what the mark holds beyond %s stays.",
			scopeName(t.cp.ID), target(t.run), target(t.run))
	}
	return p
}

// refresh rebuilds the dialog after the journal moved (a run ended, a
// checkpoint arrived, another client rolled back), keeping the cursor on
// the same run; the question stays only if that run is still there. It
// reports false when nothing is left to roll back to.
func (d *rollbackDialog) refresh(st *core.State) bool {
	th := st.Threads[d.thread]
	if th == nil {
		return false
	}
	n := newRollbackDialog(st, th)
	if len(n.targets) == 0 {
		return false
	}
	at := d.targets[d.list.cursor]
	if i := slices.IndexFunc(n.targets, at.same); i >= 0 {
		n.list.cursor, n.armed = i, d.armed
	}
	n.list.top = d.list.top
	*d = *n
	return true
}

func (d *rollbackDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	if d.armed {
		switch {
		case key.Matches(k, keys.RollbackConfirm):
			return d.list.pick(d.list.cursor), nil
		case key.Matches(k, keys.RollbackBack):
			d.armed = false
			return actNone{}, nil
		}
		d.armed = false
	}
	if key.Matches(k, keys.RollbackMark) {
		return actMark{thread: d.thread}, nil
	}
	act, cmd := d.list.update(msg, keys)
	if _, picked := act.(actRollback); picked {
		d.armed = true
		return actNone{}, cmd
	}
	return act, cmd
}

func (d *rollbackDialog) view(st *themes.Styles, maxW, maxH int) []string {
	inner := max(20, maxW-4)
	body := introLines(st, d.list.intro, maxW)
	if d.warn != "" {
		body = append(body[:max(0, len(body)-1)], wrapIndent(d.warn, "! ", inner, st.Request)...)
		body = append(body, "")
	}
	var confirm []string
	hints := "enter choose · up/down pick · m mark now · esc cancel"
	if d.armed {
		p := d.plans[d.list.cursor]
		confirm = append([]string{""}, wrapStyled(fmt.Sprintf("Roll back %s to %s now? This rewrites files in %s.",
			d.title, p.name, orDefault(d.ws, "its workspace")), inner, st.Request)...)
		hints = "enter/y roll back · esc/n back to the list"
	}
	avail := max(3, maxH-4-len(body)-len(confirm))
	room := clamp(len(d.list.items), 1, max(1, avail/4))
	body = append(body, d.list.listLines(st, inner, room)...)
	body = append(body, "")
	body = append(body, d.plans[d.list.cursor].lines(st, inner, avail-room-1)...)
	body = append(body, confirm...)
	return dialogFrame(st, d.list.title, body, hints, maxW, maxH)
}

// openRollback opens the rollback dialog for the selected thread, or
// says why there is nothing to roll back to.
func (m *Model) openRollback() tea.Cmd {
	th := m.selectedThread()
	switch {
	case th == nil:
		return m.setFlash("no thread selected to roll back", true)
	case th.Workspace == "":
		return m.setFlash("this thread has no workspace, so no checkpoints to roll back to", true)
	}
	d := newRollbackDialog(m.state, th)
	if len(d.list.items) == 0 {
		return m.setFlash("this thread has no run with a ready checkpoint to roll back to", true)
	}
	m.pushDialog(d)
	return nil
}

// rollbackLines are the rollbacks of a thread to run n (0: before run 1),
// one entry each in id order, for the transcript: how far each got.
func (m *Model) rollbackLines(thread string, n, w int) []string {
	var ops []*core.Operation
	for _, op := range m.state.Operations {
		if op.Thread == thread && op.ToRun == n && op.Kind == "rollback" {
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].ID < ops[j].ID })
	var out []string
	for _, op := range ops {
		to := opTarget(op)
		text, st := "rolled the workspace back to "+to+" · "+op.Detail, m.st.NodeDone
		switch op.Status {
		case core.OpRunning:
			text, st = "rolling the workspace back to "+to+" · step "+string(op.Step), m.st.NodeRunning
		case core.OpPartial, core.OpRefused:
			text, st = "rollback to "+to+" "+string(op.Status)+" · "+op.Detail, m.st.NodeFailed
		}
		out = append(out, wrapIndent(text, "↶ ", w, st)...)
	}
	return out
}

// settledOp is the operation an event ends (one that was running, or is
// new, and now is not), or nil. Call it before the event is applied.
func settledOp(st *core.State, ev *core.Event) *core.Operation {
	op := ev.Payload.Operation
	if op == nil || op.Status == core.OpRunning {
		return nil
	}
	if cur := st.Operations[op.ID]; cur != nil && cur.Status == op.Status {
		return nil
	}
	return op
}

// rollbackStarted says in the status line that a rollback was accepted,
// unless its outcome arrived first (the journal and the receipt travel
// apart), which then stays.
func (m *Model) rollbackStarted(c core.Command, rec *core.Receipt) tea.Cmd {
	if rec != nil && m.state != nil {
		if op := m.state.Operations[rec.Op]; op != nil && op.Status != core.OpRunning {
			return m.opOutcome(op)
		}
	}
	to := target(c.Run)
	switch {
	case c.Kind == core.CmdRollbackNode:
		to = "the subagent"
	case c.Checkpoint != "":
		to = scopeName(c.Checkpoint)
	}
	return m.setFlash("rolling back to "+to+"…", false)
}

// opTarget names where a rollback went: "run 2", or a mark or a
// subagent of run 2.
func opTarget(op *core.Operation) string {
	switch {
	case op.Undoes != "":
		return "before " + opName(op.Undoes)
	case op.Target == "":
		return target(op.ToRun)
	case strings.Contains(op.Target, "/cp/node/"):
		return "the subagent in run " + itoa(op.ToRun)
	}
	return scopeName(op.Target)
}

// opName is an operation id without its thread: "rollback2".
func opName(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }

// opOutcome puts how a rollback ended in the status line.
func (m *Model) opOutcome(op *core.Operation) tea.Cmd {
	where := op.Thread
	if th := m.state.Threads[op.Thread]; th != nil {
		where = threadTitle(th)
	}
	if op.Status == core.OpCompleted && len(op.Kept) > 0 {
		return m.setFlash(fmt.Sprintf("rolled back %s to %s but kept %s: changed since by hand or by another thread (ctrl+z undoes the rollback)",
			where, opTarget(op), strings.Join(op.Kept, ", ")), true)
	}
	return m.setFlash(fmt.Sprintf("rollback of %s to %s %s: %s", where, opTarget(op), op.Status, op.Detail),
		op.Status != core.OpCompleted)
}
