package tui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
)

// $EDITOR: alt+e writes the draft in an editor, alt+o opens the diff
// (in the diff view) or the file a step at the transcript cursor names
// (what it wrote, or read). The editor is $VISUAL, else $EDITOR, else vi,
// split on spaces ("code --wait" works); it runs with the terminal
// handed over (tea.ExecProcess) and nexus redraws when it exits. A draft
// goes to a temporary file and what the file holds when the editor
// exits becomes the draft (one final newline, which editors add, is
// dropped; an editor that fails leaves the draft as it was). A diff goes
// to a temporary file too, removed afterwards; a file is opened where it
// is, and only when it lies inside the thread's workspace (an agent
// names the path). Every step that touches a file or looks the editor up
// runs in a Cmd; Update only starts them.

// editorFoldBytes: an edited draft longer than this shows folded, as
// one token, in the composer.
const editorFoldBytes = 64 << 10

// editorMsg is what the editor's Cmds report; Update hands them to
// editorDone.
type editorMsg interface{ editorStep() }

// editorJob is one use of the editor: what it edits and what to do after.
type editorJob struct {
	argv   []string // the editor (resolved path first) and its arguments
	path   string   // the file it edits
	temp   bool     // remove path afterwards
	draft  bool     // read path back as the draft of thread
	thread string
	what   string // what it edits, for messages: "the draft", "the diff of run 2", "main.go"
}

// editorReadyMsg: the file is written and the editor found; run it.
type editorReadyMsg struct{ job editorJob }

// editorExitedMsg: the editor exited (err is why it failed).
type editorExitedMsg struct {
	job editorJob
	err error
}

// editorResultMsg: the end of a job: the draft read back (draft jobs),
// or why it failed.
type editorResultMsg struct {
	job  editorJob
	text string
	err  error
}

func (editorReadyMsg) editorStep()  {}
func (editorExitedMsg) editorStep() {}
func (editorResultMsg) editorStep() {}

// editorCommand is the editor to run: $VISUAL, $EDITOR, else vi, split
// into words.
func editorCommand(getenv func(string) string) []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(getenv(v)); len(f) > 0 {
			return f
		}
	}
	return []string{"vi"}
}

// findEditor resolves the editor's program on $PATH, or says which
// variable named one that is missing and what to do.
func findEditor() ([]string, error) {
	argv := editorCommand(os.Getenv)
	p, err := exec.LookPath(argv[0])
	if err != nil {
		from := "vi (no $VISUAL or $EDITOR is set)"
		for _, v := range []string{"VISUAL", "EDITOR"} {
			if strings.TrimSpace(os.Getenv(v)) != "" {
				from = "$" + v + "=" + os.Getenv(v)
				break
			}
		}
		return nil, fmt.Errorf("no editor: %s is not an installed program; set $VISUAL or $EDITOR to one (nano, vim)", from)
	}
	return append([]string{p}, argv[1:]...), nil
}

// editDraft writes the composer's draft into a temporary file and opens
// it in the editor.
func (m *Model) editDraft() tea.Cmd {
	text := m.composer.draft().text
	job := editorJob{draft: true, temp: true, thread: m.selected, what: "the draft"}
	return func() tea.Msg {
		return prepareEditor(job, "nexus-draft-*.md", text)
	}
}

// openInEditor opens the diff of the diff view, else the file of the
// step at the transcript cursor.
func (m *Model) openInEditor() tea.Cmd {
	if m.diff.open {
		d := &m.diff
		if d.loading || d.err != "" || d.text == "" {
			return m.setFlash("no diff to open: it is loading, failed or empty", true)
		}
		job := editorJob{temp: true, what: "the diff of " + d.what}
		name := "nexus-" + strings.ReplaceAll(d.what, " ", "-") + "-*.diff"
		text := d.text
		return func() tea.Msg { return prepareEditor(job, name, text) }
	}
	th := m.selectedThread()
	var n *core.Node
	if th != nil && m.focus == focusMain {
		n = m.state.Node(m.conv.cursor)
	}
	file := nodeFile(n)
	switch {
	case file == "":
		return m.setFlash("alt+o opens the diff (ctrl+d) or the file of a step: tab to the transcript, up/down to a step that read or wrote one", true)
	case th.Workspace == "":
		return m.setFlash("this thread has no workspace to open "+file+" in", true)
	}
	ws := th.Workspace
	return func() tea.Msg {
		path, err := workspaceFile(ws, file)
		if err != nil {
			return editorResultMsg{err: err}
		}
		argv, err := findEditor()
		if err != nil {
			return editorResultMsg{err: err}
		}
		return editorReadyMsg{job: editorJob{argv: argv, path: path, what: file}}
	}
}

// nodeFile is the file a step names: the first it wrote, else the path
// of a file action (the built-in agent's "read_file notes.txt", Claude
// Code's "Read: /ws/notes.txt"), else "".
func nodeFile(n *core.Node) string {
	if n == nil {
		return ""
	}
	if len(n.Paths) > 0 {
		return n.Paths[0]
	}
	for _, a := range []string{"read_file ", "write_file ", "edit_file ", "Read: ", "Write: ", "Edit: ", "MultiEdit: "} {
		if rest, ok := strings.CutPrefix(nodeTitle(n), a); ok && strings.TrimSpace(rest) != "" {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// workspaceFile is the path of file (relative to ws, or absolute) if it
// exists and lies inside ws once symbolic links are followed.
func workspaceFile(ws, file string) (string, error) {
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("cannot open %s: it does not exist in the workspace (any more)", file)
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("cannot open %s: the workspace %s is gone", file, ws)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("not opening %s: it lies outside the thread's workspace", file)
	}
	return real, nil
}

// prepareEditor writes text into a new temporary file named like
// pattern and finds the editor. It runs in a Cmd.
func prepareEditor(job editorJob, pattern, text string) tea.Msg {
	argv, err := findEditor()
	if err != nil {
		return editorResultMsg{job: job, err: err}
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return editorResultMsg{job: job, err: fmt.Errorf("cannot write %s to a temporary file: %w", job.what, err)}
	}
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	job.argv, job.path = argv, f.Name()
	if werr != nil {
		_ = os.Remove(job.path)
		return editorResultMsg{job: job, err: fmt.Errorf("cannot write %s to %s: %w", job.what, job.path, werr)}
	}
	return editorReadyMsg{job: job}
}

// finishEditor reads a draft back and removes a temporary file. It runs
// in a Cmd.
func finishEditor(job editorJob, runErr error) tea.Msg {
	res := editorResultMsg{job: job, err: runErr}
	if runErr == nil && job.draft {
		b, err := os.ReadFile(job.path)
		if err != nil {
			res.err = fmt.Errorf("cannot read the draft back from %s: %w", job.path, err)
		}
		res.text = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	}
	if job.temp {
		_ = os.Remove(job.path)
	}
	return res
}

// editorDone carries out the editor's steps.
func (m *Model) editorDone(msg editorMsg) tea.Cmd {
	switch msg := msg.(type) {
	case editorReadyMsg:
		job := msg.job
		c := exec.Command(job.argv[0], append(job.argv[1:], job.path)...)
		return m.execProcess(c, func(err error) tea.Msg { return editorExitedMsg{job: job, err: err} })
	case editorExitedMsg:
		job, err := msg.job, msg.err
		return func() tea.Msg { return finishEditor(job, err) }
	case editorResultMsg:
		return m.editorResult(msg)
	}
	return nil
}

// editorResult puts an edited draft back in its thread's composer, or
// says what went wrong.
func (m *Model) editorResult(msg editorResultMsg) tea.Cmd {
	if msg.err != nil {
		var exit *exec.ExitError
		if errors.As(msg.err, &exit) {
			note := "the editor exited with status " + itoa(exit.ExitCode())
			if msg.job.draft {
				note += ": the draft is as it was"
			}
			return m.setFlash(note, true)
		}
		return m.setFlash(msg.err.Error(), true)
	}
	if !msg.job.draft {
		return nil
	}
	d := draft{text: msg.text}
	if len(d.text) > editorFoldBytes {
		// The textarea would hold it all: keep it folded as one block,
		// as a paste of that size is.
		d.pastes = []span{{Off: 0, Len: len(d.text)}}
	}
	if msg.job.thread != m.selected {
		// Another thread was selected meanwhile: the text is its draft.
		if m.prefs.keepDraft(msg.job.thread, d) {
			m.prefsChanged()
		}
		return m.setFlash("the edited draft is kept with the thread it was written for", false)
	}
	m.composer.setDraft(d)
	m.setFocus(focusComposer)
	m.relayout()
	return m.setFlash("draft from the editor · "+linesLabel(countLines(msg.text))+" · enter sends", false)
}
