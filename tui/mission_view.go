package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// missionsDialog is the missions view (Missions key): every mission,
// newest first, with its task graph, one row per task: its number and
// dependencies, agent, status, attempt, last verification and cost. It
// follows the journal while open. Enter on a task opens its thread; a
// approves the mission's plan (or answers its question with one more
// attempt), r is the same on a mission waiting on a failed task, v votes
// for the task in a race, x stops the task's thread or the whole
// mission, after asking. It has no composer, so it owns its keys.
type missionsDialog struct {
	state  func() *core.State
	cursor int // over rows
	top    int
}

// missionRow is one selectable line: a mission, or one of its tasks.
type missionRow struct {
	m    *core.Mission
	task *core.Task // nil on the mission's own row
}

func (m *Model) openMissions() tea.Cmd {
	if m.state == nil {
		return m.setFlash("not connected to the host yet", true)
	}
	if len(m.state.Missions) == 0 {
		return m.setFlash("no missions: start one with `nexus mission new GOAL --verify CMD`", false)
	}
	m.pushDialog(&missionsDialog{state: func() *core.State { return m.state }})
	return nil
}

type (
	// actOpenThread: close the dialog and select a thread.
	actOpenThread struct{ thread string }
	// actMission: submit a mission command (approve, vote, stop), then
	// keep the dialog (or close the confirmation on top of it).
	actMission struct {
		cmd   core.Command
		flash string
		pop   bool
	}
)

func (actOpenThread) isAction() {}
func (actMission) isAction()    {}

func (d *missionsDialog) rows() []missionRow {
	s := d.state()
	if s == nil {
		return nil
	}
	var out []missionRow
	for _, m := range s.MissionList() {
		out = append(out, missionRow{m: m})
		for i := range m.Tasks {
			out = append(out, missionRow{m: m, task: &m.Tasks[i]})
		}
	}
	return out
}

func (d *missionsDialog) update(msg tea.Msg, keys KeyMap) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return actNone{}, nil
	}
	rows := d.rows()
	d.cursor = clamp(d.cursor, 0, max(0, len(rows)-1))
	switch {
	case key.Matches(k, keys.CancelDialog, keys.QuitIdle, keys.Missions):
		return actClose{}, nil
	case key.Matches(k, keys.ViewDown, keys.Down):
		d.cursor = min(d.cursor+1, max(0, len(rows)-1))
		return actNone{}, nil
	case key.Matches(k, keys.ViewUp, keys.Up):
		d.cursor = max(0, d.cursor-1)
		return actNone{}, nil
	}
	if len(rows) == 0 {
		return actNone{}, nil
	}
	r := rows[d.cursor]
	switch k.String() {
	case "enter":
		if th := d.threadOf(r); th != "" {
			return actOpenThread{thread: th}, nil
		}
	case "a", "r":
		if r.m.Status == core.MissionAwaitPlan || r.m.Question != "" {
			return actMission{cmd: core.Command{Kind: core.CmdMissionApprove, Mission: r.m.ID}, flash: "mission " + r.m.ID + ": approved"}, nil
		}
	case "v":
		if r.task != nil && r.m.Strategy == core.StrategyRace && !r.m.Done() {
			return actMission{cmd: core.Command{Kind: core.CmdMissionVote, Mission: r.m.ID, Task: r.task.ID},
				flash: "voted for task " + r.task.ID}, nil
		}
	case "x":
		if r.m.Done() {
			return actNone{}, nil
		}
		if r.task != nil && r.task.Thread != "" {
			return actAsk{title: "Stop task " + r.task.ID + "?", text: "Its thread's run is interrupted and its queue held; the mission goes on without it once its attempts are spent.",
				yes: actMission{cmd: core.Command{Kind: core.CmdThreadStop, Thread: r.task.Thread}, flash: "task " + r.task.ID + " stopped", pop: true}}, nil
		}
		return actAsk{title: "Stop mission " + r.m.ID + "?", text: "Every task's thread is stopped (queues held); finished work stays in the task worktrees.",
			yes: actMission{cmd: core.Command{Kind: core.CmdMissionStop, Mission: r.m.ID}, flash: "mission " + r.m.ID + " stopped", pop: true}}, nil
	}
	return actNone{}, nil
}

// threadOf is the thread enter opens: the task's, or the mission's
// planner's.
func (d *missionsDialog) threadOf(r missionRow) string {
	if r.task != nil {
		return r.task.Thread
	}
	return r.m.PlanThread
}

func (d *missionsDialog) view(st *themes.Styles, maxW, maxH int) []string {
	s := d.state()
	rows := d.rows()
	d.cursor = clamp(d.cursor, 0, max(0, len(rows)-1))
	w := max(30, maxW-4)
	var lines []string
	at := 0
	for i, r := range rows {
		if i == d.cursor {
			at = len(lines)
		}
		line := d.rowLine(s, r, w)
		switch {
		case i == d.cursor:
			line = st.Selected.Render(fit(line, w))
		case r.task == nil:
			line = st.DialogTitle.Render(line)
		}
		lines = append(lines, line)
		if r.task == nil {
			for _, extra := range d.missionNotes(r.m, w) {
				lines = append(lines, st.Muted.Render(extra))
			}
		}
	}
	// Keep the cursor on the page.
	room := max(1, maxH-4)
	if at < d.top {
		d.top = at
	} else if at >= d.top+room {
		d.top = at - room + 1
	}
	body, _ := scrollPage(lines, &d.top, maxH)
	return dialogFrame(st, "Missions", body, "enter open · a approve · r retry · v vote · x stop · esc close", maxW, maxH)
}

// rowLine renders a mission's or a task's row.
func (d *missionsDialog) rowLine(s *core.State, r missionRow, w int) string {
	m := r.m
	if r.task == nil {
		return trunc(fmt.Sprintf("%s %s · %s · %s", m.ID, m.Status, m.Strategy, oneLine(m.Goal)), w)
	}
	tk := r.task
	deps := ""
	if len(tk.Deps) > 0 {
		deps = " (after " + strings.Join(tk.Deps, ",") + ")"
	}
	check := "—"
	if n := len(tk.Checks); n > 0 {
		c := tk.Checks[n-1]
		check = fmt.Sprintf("✗ exit %d", c.Exit)
		if c.Review {
			check = "✗ review"
		}
		if c.Passed {
			check = "✓ passed"
		}
	}
	cost := ""
	if th := s.Threads[tk.Thread]; th != nil {
		cost = core.ThreadTotal(s, th).Cost()
	}
	win := ""
	if m.Winner == tk.ID {
		win = " ★"
	}
	line := fmt.Sprintf("  t%-3s %-10s %-9s att %d  %-10s %s%s  %s%s", tk.ID, trunc(oneLine(tk.Agent), 10), tk.Status, tk.Attempts, check, cost, win, oneLine(tk.Text), deps)
	return trunc(line, w)
}

// missionNotes are the lines under a mission's row: what it waits on
// the person for, how it ended, the votes of a race.
func (d *missionsDialog) missionNotes(m *core.Mission, w int) []string {
	var out []string
	if m.Status == core.MissionAwaitPlan {
		out = append(out, "  the plan waits for you: a runs it, x drops it")
	}
	if m.Question != "" {
		out = append(out, "  asks: "+oneLine(m.Question))
	}
	if n := len(m.Checks); n > 0 {
		c := m.Checks[n-1]
		if c.Review {
			out = append(out, fmt.Sprintf("  merged result: %s review by %s: %s", passed(c.Passed), oneLine(c.Command), oneLine(c.Output)))
		} else {
			out = append(out, fmt.Sprintf("  merged result: %s exit %d", passed(c.Passed), c.Exit))
		}
	}
	for _, v := range m.Votes {
		out = append(out, "  vote: "+oneLine(v.Voter)+" → t"+v.Task+" "+oneLine(v.Reason))
	}
	if m.Result != "" {
		out = append(out, "  "+oneLine(m.Result))
	}
	for i := range out {
		out[i] = trunc(out[i], w)
	}
	return out
}

func passed(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

// actAsk: open a confirmation over the dialog; its yes action follows.
type actAsk struct {
	title, text string
	yes         action
}

func (actAsk) isAction() {}

// missionAction carries out the missions dialog's actions; false when
// act is none of them.
func (m *Model) missionAction(act action) (tea.Cmd, bool) {
	switch a := act.(type) {
	case actOpenThread:
		m.popDialog()
		if m.state != nil && m.state.Threads[a.thread] != nil {
			m.selectThread(a.thread)
		}
		return nil, true
	case actAsk:
		m.pushDialog(&askDialog{title: a.title, text: a.text, yes: a.yes, hints: "y/enter yes · n/esc no"})
		return nil, true
	case actMission:
		if a.pop {
			m.popDialog()
		}
		return tea.Batch(m.submit(a.cmd, ""), m.setFlash(a.flash, false)), true
	}
	return nil, false
}

// missionsAsking counts the missions that wait on the person: a plan to
// approve or a question to answer.
func (m *Model) missionsAsking() int {
	if m.state == nil {
		return 0
	}
	n := 0
	for _, ms := range m.state.Missions {
		if !ms.Done() && (ms.Status == core.MissionAwaitPlan || ms.Question != "") {
			n++
		}
	}
	return n
}
