package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Team mode's one view: the team dialog (f4/alt+h) lists every project on
// the hub under the host that holds it, each with its threads, and opens
// the one picked. A UI shows one project at a time (one journal, one seq);
// picking a thread of another project ends Run with a *SwitchProject,
// and the caller opens the UI again on that project, that thread
// selected. Picking a thread of the project on screen just selects it.

// TeamProject is one project on the hub, as the team dialog lists it.
type TeamProject struct {
	Project string
	// Host names the host holding the project's lease; Up is false when
	// none does (its commands wait on the hub).
	Host string
	Up   bool
	// Threads are its threads that are not archived.
	Threads []TeamThread
	// Err says why the project could not be read ("" when it was).
	Err string
}

// TeamThread is one thread of a TeamProject.
type TeamThread struct {
	ID, Title, Status string
	Pending           int
}

// SwitchProject is the error Run returns when the person opened a thread
// of another project in the team dialog.
type SwitchProject struct{ Project, Thread string }

func (s *SwitchProject) Error() string { return "open project " + s.Project + " of the hub" }

// teamDialogW is how wide the team dialog grows on a wide screen: a
// host's name holds a machine, a state dir and a pid.
const teamDialogW = 132

// teamTimeout bounds reading the hub for the team dialog.
const teamTimeout = 10 * time.Second

// teamMsg is the hub's projects, read off the event loop.
type teamMsg struct {
	projects []TeamProject
	err      error
}

// actTeam: open thread of project (the project on screen or another).
type actTeam struct{ project, thread string }

func (actTeam) isAction() {}

// openTeam reads the hub's projects in a tea.Cmd; the dialog opens when
// they come (teamLoaded).
func (m *Model) openTeam() tea.Cmd {
	if m.opts.Team == nil {
		return m.setFlash("no hub: team mode needs a [team] table in the config (nexus hub prints one)", true)
	}
	list, ctx := m.opts.Team, m.ctx
	return tea.Batch(m.setFlash("reading the hub…", false), func() tea.Msg {
		cctx, cancel := context.WithTimeout(ctx, teamTimeout)
		defer cancel()
		ps, err := list(cctx)
		return teamMsg{projects: ps, err: err}
	})
}

// teamLoaded opens the team dialog on what the hub said.
func (m *Model) teamLoaded(msg teamMsg) tea.Cmd {
	m.flash = flash{} // "reading the hub…"
	if msg.err != nil {
		return m.setFlash("the hub: "+msg.err.Error(), true)
	}
	if len(msg.projects) == 0 {
		return m.setFlash("no project on the hub yet", false)
	}
	var items []pickItem
	var acts []actTeam
	for _, p := range msg.projects {
		host := p.Host
		if !p.Up {
			host = "no owner: commands wait"
		}
		label := "project " + p.Project
		if p.Project == m.opts.Project {
			label += " (on screen)"
		}
		note := host
		if p.Err != "" {
			note = "cannot read it: " + p.Err
		}
		items = append(items, pickItem{label: label, note: note})
		acts = append(acts, actTeam{project: p.Project})
		for _, th := range p.Threads {
			n := th.Status
			if th.Pending > 0 {
				n += fmt.Sprintf(" · %d waiting for you", th.Pending)
			}
			items = append(items, pickItem{label: "    " + th.Title, note: n})
			acts = append(acts, actTeam{project: p.Project, thread: th.ID})
		}
	}
	m.pushDialog(&pickDialog{title: "Team: every host's projects and threads",
		intro: "A project is one host's; its commands go through the hub.",
		items: items, hints: "enter open · up/down pick · esc close", wide: teamDialogW,
		pick: func(i int) action { return acts[i] }})
	return nil
}

// teamAction carries out actTeam.
func (m *Model) teamAction(act action) (tea.Cmd, bool) {
	a, ok := act.(actTeam)
	if !ok {
		return nil, false
	}
	m.popDialog()
	if a.project == m.opts.Project {
		if a.thread != "" && m.state != nil && m.state.Threads[a.thread] != nil {
			m.selectThread(a.thread)
		}
		return nil, true
	}
	m.switchTo = &SwitchProject{Project: a.project, Thread: a.thread}
	return tea.Quit, true
}
