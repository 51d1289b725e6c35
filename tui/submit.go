package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// submitTimeout bounds one submit, so a wedged host shows up as an error
// message instead of a command that never answers.
const submitTimeout = 30 * time.Second

// submitResultMsg is the outcome of a submit Cmd.
type submitResultMsg struct {
	cmd core.Command
	rec *core.Receipt
	err error
	// text is the composer text to give back if the send failed, and
	// pastes the parts of it that were folded pastes.
	text   string
	pastes []span
}

// newCommandID is the client command id: the idempotency receipt, so a
// retried submit is answered from the journal and never runs twice.
func newCommandID() string {
	return core.NewID("c") + fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
}

// submit returns a Cmd that submits cmd off the event loop. Everything it
// needs is captured by value now; the model is never touched from it.
func (m *Model) submit(cmd core.Command, restoreText string) tea.Cmd {
	if cmd.ID == "" {
		cmd.ID = newCommandID()
	}
	ctx, b := m.ctx, m.backend
	return func() tea.Msg {
		sctx, cancel := context.WithTimeout(ctx, submitTimeout)
		defer cancel()
		rec, err := b.Submit(sctx, cmd)
		return submitResultMsg{cmd: cmd, rec: rec, err: err, text: restoreText}
	}
}

// submitDraft is submit for a message from the composer: a failed send
// gives the draft back with its pastes folded as they were.
func (m *Model) submitDraft(cmd core.Command, d draft) tea.Cmd {
	send := m.submit(cmd, d.text)
	return func() tea.Msg {
		r := send().(submitResultMsg)
		r.pastes = d.pastes
		return r
	}
}

// createThread returns a Cmd that resolves the workspace (file system
// I/O, so not in Update), makes the thread's worktree when wt asks for
// one, and submits thread.create. id "" takes a new one.
func (m *Model) createThread(id string, p Profile, title, workspace string, wt *wtChoice) tea.Cmd {
	if id == "" {
		id = core.NewID("t")
	}
	cmd := core.Command{ID: newCommandID(), Kind: core.CmdThreadCreate, NewThread: id,
		Provider: p.Name, Caps: p.Caps, Title: title, Allow: p.Allow, BudgetUSD: p.BudgetUSD, MaxTokens: p.MaxTokens, Agent: p.Agent}
	ctx, b := m.ctx, m.backend
	var add func(context.Context, WorktreeSpec) (WorktreeMade, error)
	if wt != nil && m.opts.Worktrees != nil {
		add = m.opts.Worktrees.Add
	}
	resolve := resolveWorkspace
	if m.opts.Remote {
		resolve = remoteWorkspace
	}
	return func() tea.Msg {
		ws, err := resolve(workspace)
		if err != nil {
			return submitResultMsg{cmd: cmd, err: err}
		}
		cmd.Workspace = ws
		if add != nil {
			// As `thread new --worktree` does: the worktree first, then
			// the thread that works in it.
			made, err := add(ctx, WorktreeSpec{Thread: id, Dir: ws, Branch: wt.branch, AutoBranch: wt.auto})
			if err != nil {
				return submitResultMsg{cmd: cmd, err: err}
			}
			cmd.Workspace, cmd.Worktree, cmd.Repo, cmd.Branch = made.Path, made.Path, made.Repo, made.Branch
		}
		sctx, cancel := context.WithTimeout(ctx, submitTimeout)
		defer cancel()
		rec, err := b.Submit(sctx, cmd)
		return submitResultMsg{cmd: cmd, rec: rec, err: err}
	}
}

// createdAndSentMsg is the outcome of createAndSend: the thread's
// creation, then the message's send (zero when the creation failed).
type createdAndSentMsg struct{ create, send submitResultMsg }

// createAndSend returns a Cmd that creates a thread and sends text to it,
// for enter on a screen with no thread.
func (m *Model) createAndSend(p Profile, title, workspace string, d draft, mode core.SendMode) tea.Cmd {
	create := m.createThread("", p, title, workspace, nil)
	ctx, b := m.ctx, m.backend
	return func() tea.Msg {
		c, _ := create().(submitResultMsg)
		if c.err != nil || c.rec == nil || c.rec.Reject != nil || c.rec.Thread == "" {
			c.text, c.pastes = d.text, d.pastes
			return createdAndSentMsg{create: c}
		}
		cmd := core.Command{ID: newCommandID(), Kind: core.CmdMessageSend, Thread: c.rec.Thread, Text: d.text, Mode: mode}
		sctx, cancel := context.WithTimeout(ctx, submitTimeout)
		defer cancel()
		rec, err := b.Submit(sctx, cmd)
		return createdAndSentMsg{create: c, send: submitResultMsg{cmd: cmd, rec: rec, err: err, text: d.text, pastes: d.pastes}}
	}
}

// titleFromMessage is a new thread's title from its first message: the first
// line, cut at 40 characters.
func titleFromMessage(text string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	if r := []rune(line); len(r) > 40 {
		line = strings.TrimSpace(string(r[:40])) + "…"
	}
	return line
}

// remoteWorkspace is a new thread's workspace on a project whose host is
// on another machine (Options.Remote): a path there, which this machine
// cannot check, so it is taken as written but must be whole.
func remoteWorkspace(dir string) (string, error) {
	switch {
	case dir == "":
		return "", errors.New("a new thread here needs a workspace on the project's host's machine: ctrl+n and write its whole path")
	case !filepath.IsAbs(dir):
		return "", fmt.Errorf("workspace %s: write the whole path of a directory on the project's host's machine", dir)
	}
	return filepath.Clean(dir), nil
}

// resolveWorkspace makes a workspace absolute and real, and checks that it
// is a directory, as the command line's thread new does.
func resolveWorkspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot find the current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// submitted reacts to a submit's outcome: errors and rejections become a
// status-line message (and a failed message goes back into the composer);
// a new thread is selected and the composer focused.
func (m *Model) submitted(r submitResultMsg) tea.Cmd {
	what := describe(r.cmd)
	if errors.Is(r.err, core.ErrQueued) {
		// Kept for a host that is down: the draft went with it, and
		// sending it again would queue it twice.
		return m.setFlash(what+" queued: "+r.err.Error(), false)
	}
	if r.err != nil {
		if r.text != "" {
			m.composer.restore(draft{text: r.text, pastes: r.pastes})
			m.relayout()
		}
		var ie *core.InputError
		if errors.As(r.err, &ie) {
			return m.setFlash(what+" refused: "+ie.Msg, true)
		}
		return m.setFlash(what+" failed: "+r.err.Error(), true)
	}
	if r.rec != nil && r.rec.Reject != nil {
		if r.text != "" {
			m.composer.restore(draft{text: r.text, pastes: r.pastes})
			m.relayout()
		}
		return m.setFlash(fmt.Sprintf("%s refused (%s): %s", what, r.rec.Reject.Reason, r.rec.Reject.Detail), true)
	}
	switch r.cmd.Kind {
	case core.CmdThreadCreate, core.CmdThreadFork:
		if r.rec != nil && r.rec.Thread != "" {
			m.pendingSelect = r.rec.Thread
			if m.state != nil && m.state.Threads[r.rec.Thread] != nil {
				m.selectThread(r.rec.Thread)
				m.pendingSelect = ""
			}
		}
		m.setFocus(focusComposer)
		where := ""
		if r.cmd.Worktree != "" {
			where = " in its own worktree " + r.cmd.Worktree
			if r.cmd.Branch != "" {
				where += " on " + r.cmd.Branch
			}
		}
		if r.cmd.Kind == core.CmdThreadFork && r.rec != nil {
			return m.setFlash(fmt.Sprintf("forked at run %d%s", r.rec.Ordinal, where), false)
		}
		return m.setFlash("thread created"+where, false)
	case core.CmdProviderSwitch:
		return m.setFlash("provider switched to "+r.cmd.Provider, false)
	case core.CmdRollbackToRun, core.CmdRollbackNode:
		return m.rollbackStarted(r.cmd, r.rec)
	case core.CmdCheckpoint:
		if r.rec != nil {
			return m.setFlash("marking the workspace as "+scopeName(r.rec.Checkpoint)+"…", false)
		}
	case core.CmdMessageSend:
		if r.rec != nil && r.rec.Mode == core.ModeQueue {
			return m.setFlash(fmt.Sprintf("queued as run %d", r.rec.Ordinal), false)
		}
	case core.CmdRequestRespond:
		return m.setFlash(r.cmd.Request+" answered", false)
	case core.CmdRunInterrupt:
		return m.setFlash("interrupt requested", false)
	case core.CmdRunResume:
		if r.rec != nil && r.rec.Ordinal > 0 {
			return m.setFlash(fmt.Sprintf("resuming run %d", r.rec.Ordinal), false)
		}
		return m.setFlash("nothing was left to resume", false)
	}
	return nil
}

// describe names a command for messages.
func describe(c core.Command) string {
	switch c.Kind {
	case core.CmdThreadCreate:
		return "creating the thread"
	case core.CmdMessageSend:
		return "sending"
	case core.CmdRequestRespond:
		return "answering " + c.Request
	case core.CmdRunInterrupt:
		return "interrupting"
	case core.CmdRunResume:
		return "resuming"
	case core.CmdThreadFork:
		return "forking"
	case core.CmdProviderSwitch:
		return "switching provider"
	case core.CmdRollbackToRun, core.CmdRollbackNode:
		return "rolling back"
	case core.CmdCheckpoint:
		return "marking the workspace"
	case core.CmdThreadArchive:
		return "archiving"
	}
	return string(c.Kind)
}
