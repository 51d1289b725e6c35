package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func TestEditorCommand(t *testing.T) {
	for _, c := range []struct {
		visual, editor string
		want           []string
	}{
		{"nano", "vim", []string{"nano"}},
		{"  ", "code --wait", []string{"code", "--wait"}},
		{"", "", []string{"vi"}},
	} {
		env := map[string]string{"VISUAL": c.visual, "EDITOR": c.editor}
		if got := editorCommand(func(k string) string { return env[k] }); !reflect.DeepEqual(got, c.want) {
			t.Errorf("VISUAL=%q EDITOR=%q: editor %q, want %q", c.visual, c.editor, got, c.want)
		}
	}
}

// pressEditor presses a key that starts the editor and returns the job
// it would run (the harness cannot hand a terminal over): the step that
// writes the file and finds the editor has run.
func (hs *harness) pressEditor(name string) editorJob {
	hs.t.Helper()
	_, cmd := hs.m.Update(keyMsg(name))
	if cmd == nil {
		hs.t.Fatalf("%s started nothing; screen:\n%s", name, hs.screen())
	}
	msg := cmd()
	ready, ok := msg.(editorReadyMsg)
	if !ok {
		hs.send(msg)
		hs.t.Fatalf("%s did not get to the editor (%T); screen:\n%s", name, msg, hs.screen())
	}
	if _, cmd := hs.m.Update(ready); cmd == nil {
		hs.t.Fatal("the editor was found but not started")
	}
	return ready.job
}

// alt+e: the draft goes into a file, the editor's result comes back as
// the draft, and the temporary file is removed.
func TestEditDraftRoundTrip(t *testing.T) {
	t.Setenv("VISUAL", "true") // found on $PATH; the test plays the editor
	hs := newHarness(t, demoState(t), 100, 30)
	hs.press("alt+m") // t1's approval aside: enter sends the draft
	hs.typeText("fix the parser")
	job := hs.pressEditor("alt+e")
	b, err := os.ReadFile(job.path)
	if err != nil || string(b) != "fix the parser" {
		t.Fatalf("the editor's file holds %q (%v), want the draft", b, err)
	}
	if filepath.Base(job.argv[0]) != "true" {
		t.Errorf("the editor is %q, want $VISUAL", job.argv)
	}
	long := "fix the parser\n\nsteps:\n1. read parse.go\n2. write a test\n"
	if err := os.WriteFile(job.path, []byte(long), 0o600); err != nil {
		t.Fatal(err)
	}
	hs.send(editorExitedMsg{job: job})
	if got := hs.m.composer.value(); got != strings.TrimSuffix(long, "\n") {
		t.Fatalf("after the editor the draft is %q, want the file's text", got)
	}
	hs.expectScreen("after editing", "draft from the editor · 5 lines")
	if _, err := os.Stat(job.path); !os.IsNotExist(err) {
		t.Errorf("the temporary draft file is left behind: %v", err)
	}
	hs.press("enter")
	if c := hs.lastCmd(); c.Kind != core.CmdMessageSend || c.Text != strings.TrimSuffix(long, "\n") {
		t.Errorf("enter sent %+v, want the edited draft", c)
	}
}

// An editor that fails leaves the draft as it was; a missing one is one
// line saying what to set.
func TestEditDraftFailures(t *testing.T) {
	t.Setenv("VISUAL", "true")
	hs := newHarness(t, demoState(t), 100, 30)
	hs.typeText("keep me")
	job := hs.pressEditor("alt+e")
	if err := os.WriteFile(job.path, []byte("lost"), 0o600); err != nil {
		t.Fatal(err)
	}
	exitErr := exec.Command("sh", "-c", "exit 3").Run()
	hs.send(editorExitedMsg{job: job, err: exitErr})
	if got := hs.m.composer.value(); got != "keep me" {
		t.Errorf("a failed editor changed the draft to %q", got)
	}
	hs.expectScreen("after a failed editor", "the editor exited with status 3: the draft is as it was")

	t.Setenv("VISUAL", "/nonexistent/editor --flag")
	hs.press("alt+e")
	hs.expectScreen("with a missing editor",
		"no editor: $VISUAL=/nonexistent/editor --flag is not an installed program; set $VISUAL or $EDITOR")
	if got := hs.m.composer.value(); got != "keep me" {
		t.Errorf("a missing editor changed the draft to %q", got)
	}
}

// alt+o opens the file a step names, only inside the workspace, and the
// diff of the diff view as a temporary file.
func TestOpenInEditor(t *testing.T) {
	t.Setenv("VISUAL", "true")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := newJournal(t)
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "t1", Payload: core.Payload{Thread: &core.Thread{
		ID: "t1", Title: "files", Provider: "builtin", Workspace: ws, Status: core.ThreadIdle, Runs: 1, CreatedAt: sec}}})
	r := j.run("t1", 1, core.RunCompleted, "write hi to notes.txt", 2*sec, 3*sec)
	n := j.node(r, 2, core.NodeWorkerStep, core.NodeCompleted, "write_file notes.txt", "")
	n.Paths = []string{"notes.txt"}
	j.node(r, 3, core.NodeWorkerStep, core.NodeCompleted, "read_file ../outside.txt", "")
	hs := newHarness(t, j.st, 100, 30)
	hs.press("alt+o")
	hs.expectScreen("alt+o with no step at the cursor", "alt+o opens the diff (ctrl+d) or the file of a step")

	hs.press("shift+tab", "up") // the last step: read_file ../outside.txt
	hs.press("alt+o")
	hs.expectScreen("a file outside the workspace", "cannot open ../outside.txt")
	hs.press("up")
	job := hs.pressEditor("alt+o")
	if want, _ := filepath.EvalSymlinks(filepath.Join(ws, "notes.txt")); job.path != want || job.temp || job.draft {
		t.Errorf("alt+o on the write step opens %+v, want %s in place", job, want)
	}

	hs.m.opts.Diff = nil
	hs.m.diff = diffView{open: true, what: "run 1", text: "diff --git a/x b/x\n"}
	job = hs.pressEditor("alt+o")
	if b, _ := os.ReadFile(job.path); string(b) != "diff --git a/x b/x\n" || !job.temp {
		t.Errorf("alt+o in the diff view opens %q (temp %v), want the diff in a temporary file", b, job.temp)
	}
	hs.send(editorExitedMsg{job: job})
	if _, err := os.Stat(job.path); !os.IsNotExist(err) {
		t.Errorf("the diff's temporary file is left behind")
	}
}

func TestWorkspaceFileStaysInside(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(ws, "in.txt"), filepath.Join(out, "secret")} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "secret"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := workspaceFile(ws, "in.txt"); err != nil {
		t.Errorf("in.txt: %v", err)
	}
	for _, f := range []string{"link", "../" + filepath.Base(out) + "/secret", filepath.Join(out, "secret"), "gone.txt"} {
		if _, err := workspaceFile(ws, f); err == nil {
			t.Errorf("%s: opened, want refused", f)
		}
	}
}
