package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTUIVimSurvivesEveryRedraw edits a file with vim in a shell thread's
// pane and, between keystrokes, does everything that rebuilds the pane's
// screen from the output ring: zoom and unzoom, a window resize, a switch
// to another thread and back, the grid opened and closed. vim asks its
// terminal questions at start (device attributes, cursor position,
// colours); a pane that answered them again on every rebuild typed the
// answers into vim's buffer. The saved file must hold exactly what was
// typed.
func TestTUIVimSurvivesEveryRedraw(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("vim"); err != nil {
		t.Fatal("vim is not installed: install vim (apt-get install vim) to run this test; the README's test command does")
	}
	e := newEnv(t)
	e.must("thread", "new", "--title", "other")
	e.must("thread", "new", "--provider", "shell", "--title", "sh")
	bash := []string{"NEXUS_SHELL_COMMAND=bash --norc --noprofile", "PS1=bash$ ", "HISTFILE=/dev/null", "NEXUS_TERM_NICE=0"}
	tt := e.startTUIEnv(t, bash...)
	tt.waitFor("Threads (2)")
	tt.text("echo started")
	tt.keys("Enter")
	tt.waitForAll("sh · shell terminal", "started")
	focus := func() {
		t.Helper()
		tt.keys("BTab")
		tt.waitFor("keys go to the terminal")
	}
	focus()
	tt.text("vim -u NONE -i NONE -N -c 'set showmode' notes.txt")
	tt.keys("Enter")
	tt.waitFor("notes.txt")
	tt.keys("i")
	tt.waitFor("-- INSERT --")
	disturb := []func(){
		func() { // zoom, unzoom
			tt.keys("C-]", "C-f")
			tt.waitFor("ctrl+] detach")
			tt.keys("C-]")
			tt.waitFor("Threads (2)")
		},
		func() { // resize the window and back
			tt.resize(100, 30)
			tt.waitFor("Threads (2)")
			tt.resize(120, 40)
			tt.waitFor("Threads (2)")
			tt.keys("C-]")
		},
		func() { // another thread and back
			tt.keys("C-]", "M-Up")
			tt.waitFor("other")
			tt.keys("M-Down")
			tt.waitFor("sh · shell terminal")
		},
		func() { // the grid, open and closed
			tt.keys("C-]", "C-g")
			tt.waitFor("grid 2 ·")
			tt.keys("Escape")
			tt.waitFor("Threads (2)")
		},
	}
	typed := "line one"
	for i, r := range typed {
		tt.text(string(r))
		disturb[i%len(disturb)]()
		focus()
	}
	tt.keys("Escape")
	tt.text("o")
	for i, r := range "line two" {
		tt.text(string(r))
		disturb[(i+1)%len(disturb)]()
		focus()
	}
	tt.keys("Escape")
	tt.text(":wq")
	tt.keys("Enter")
	path := filepath.Join(e.ws, "notes.txt")
	var got []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			got = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vim did not save notes.txt; the screen is:\n%s", tt.screen())
		}
	}
	if string(got) != "line one\nline two\n" {
		t.Fatalf("notes.txt holds %q, want exactly what was typed, %q", got, "line one\nline two\n")
	}
	tt.keys("C-]")
	tt.quitIdle()
}

// queryPrompt is a prompt loop that asks its terminal for the cursor
// position before every prompt, as fish does, and appends each line it
// reads to typed.txt.
const queryPrompt = `while :; do
  stty -icanon -echo; printf '\033[6n'; IFS= read -r -d R pos; stty icanon echo
  printf 'ask> '; IFS= read -r line || exit 0
  printf '%s\n' "$line" >> typed.txt
done`

// TestTUIPromptThatQueriesTheCursor runs a prompt that queries the
// cursor position at every prompt in a shell thread's pane, and types
// lines into it while the pane is zoomed, resized, left and entered again
// and the grid opens and closes between keystrokes. A pane that answered
// the queries again on every rebuild left the answers in the program's
// input: the lines it read must be exactly the ones typed.
func TestTUIPromptThatQueriesTheCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("thread", "new", "--title", "other")
	e.must("thread", "new", "--provider", "shell", "--title", "sh")
	if err := os.WriteFile(filepath.Join(e.ws, "prompt.sh"), []byte(queryPrompt), 0o644); err != nil {
		t.Fatal(err)
	}
	bash := []string{"NEXUS_SHELL_COMMAND=bash --norc --noprofile", "PS1=bash$ ", "HISTFILE=/dev/null", "NEXUS_TERM_NICE=0"}
	tt := e.startTUIEnv(t, bash...)
	tt.waitFor("Threads (2)")
	tt.text("bash prompt.sh")
	tt.keys("Enter")
	tt.waitForAll("sh · shell terminal", "ask> ")
	focus := func() {
		t.Helper()
		tt.keys("BTab")
		tt.waitFor("keys go to the terminal")
	}
	disturb := []func(){
		func() {
			tt.keys("C-]", "C-f")
			tt.waitFor("ctrl+] detach")
			tt.keys("C-]")
			tt.waitFor("Threads (2)")
		},
		func() {
			tt.resize(100, 30)
			tt.waitFor("Threads (2)")
			tt.resize(120, 40)
			tt.waitFor("Threads (2)")
			tt.keys("C-]")
		},
		func() {
			tt.keys("C-]", "M-Up")
			tt.waitFor("other")
			tt.keys("M-Down")
			tt.waitFor("sh · shell terminal")
		},
		func() {
			tt.keys("C-]", "C-g")
			tt.waitFor("grid 2 ·")
			tt.keys("Escape")
			tt.waitFor("Threads (2)")
		},
	}
	focus()
	lines := []string{"first", "second", "third"}
	step := 0
	for i, l := range lines {
		// Type at the prompt, not before it: keys typed ahead of the
		// query would be read as part of its reply (so with fish too).
		prompts := i + 1
		eventually(t, "prompt "+strconv.Itoa(prompts), func() bool { return strings.Count(tt.screen(), "ask> ") >= prompts })
		for _, r := range l {
			tt.text(string(r))
			disturb[step%len(disturb)]()
			step++
			focus()
		}
		tt.keys("Enter")
	}
	want := strings.Join(lines, "\n") + "\n"
	path := filepath.Join(e.ws, "typed.txt")
	var got []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.Count(string(b), "\n") >= len(lines) {
			got = b
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			t.Fatalf("the prompt read %q, not the %d lines typed; the screen is:\n%s", b, len(lines), tt.screen())
		}
	}
	if string(got) != want {
		t.Fatalf("the prompt read %q, want exactly what was typed, %q", got, want)
	}
	tt.keys("C-d", "C-]")
	tt.quitIdle()
}
