package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// startShell opens a 120x40 tmux window running a plain interactive
// shell with a known prompt, for tests that start nexus themselves and
// look at the terminal after it exits.
func (e *env) startShell(t *testing.T) *tmuxTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: install tmux (apt-get install tmux) to run the TUI end-to-end tests")
	}
	tt := &tmuxTUI{t: t, sock: fmt.Sprintf("nexus-test-%d-%d", os.Getpid(), time.Now().UnixNano()),
		exitTo: filepath.Join(t.TempDir(), "exit")}
	tt.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "-c", e.ws,
		"env PS1='shell> ' ENV= /bin/sh")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tt.sock, "kill-server").Run() })
	tt.waitFor("shell>")
	return tt
}

// nexusLine is the shell command line that starts the TUI on e's state
// dir and records its exit code where waitExit looks.
func (e *env) nexusLine(tt *tmuxTUI) string {
	return fmt.Sprintf("%q --state-dir %q; echo $? > %q", nexusBin, e.dir, tt.exitTo)
}

// resize sets the tmux window's size, as a person dragging the terminal.
func (tt *tmuxTUI) resize(w, h int) {
	tt.t.Helper()
	tt.tmux("resize-window", "-t", "main", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
}

// format reads a tmux format variable of the pane, e.g. alternate_on.
func (tt *tmuxTUI) format(name string) string {
	tt.t.Helper()
	return strings.TrimSpace(tt.tmux("display-message", "-p", "-t", "main", "#{"+name+"}"))
}

// waitForAll waits until the screen contains every string at once.
func (tt *tmuxTUI) waitForAll(want ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := tt.screen()
		missing := ""
		for _, w := range want {
			if !strings.Contains(scr, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return scr
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("timed out waiting for %q on screen; the screen is:\n%s", missing, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLayout waits until the screen is laid out for w x h (nexus redraws
// a moment after the resize) and then checks it: see layoutProblem.
func (tt *tmuxTUI) waitLayout(w, h int) string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := tt.screen()
		p := layoutProblem(scr, w, h)
		if p == "" {
			return scr
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("at %dx%d: %s; the screen is:\n%s", w, h, p, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// layoutProblem says what is wrong with a captured screen of the main
// view at w x h, or "": it must have h lines of at most w cells; the two
// boxes of the body (threads and todos on the left, the transcript on the
// right) must have their vertical borders in the same columns on every
// row, from their top edge down to the composer; and the composer must
// span the full width above the status line.
func layoutProblem(scr string, w, h int) string {
	lines := strings.Split(strings.TrimSuffix(scr, "\n"), "\n")
	if len(lines) != h {
		return fmt.Sprintf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if sw := ansi.StringWidth(l); sw > w {
			return fmt.Sprintf("line %d is %d cells wide", i, sw)
		}
	}
	top := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "╭") {
			top = i
			break
		}
	}
	if top < 0 || top > 1 {
		return "no pane border at the top"
	}
	var cols []int
	for c := 0; c < w; c++ {
		if r := cellAt(lines[top], c); r == '╭' || r == '╮' {
			cols = append(cols, c)
		}
	}
	if len(cols) != 4 || cols[0] != 0 || cols[3] != w-1 || cols[2] != cols[1]+1 {
		return fmt.Sprintf("top edge corners at columns %v, want 0, L-1, L, %d", cols, w-1)
	}
	bottom := -1
	for i := top + 1; i < h && bottom < 0; i++ {
		for _, c := range cols {
			r := cellAt(lines[i], c)
			if !strings.ContainsRune("│╭╮╰╯", r) {
				return fmt.Sprintf("row %d column %d is %q, not a border: panes overlap or are misaligned", i, c, r)
			}
		}
		if cellAt(lines[i], cols[2]) == '╰' {
			bottom = i
		}
	}
	if bottom < 0 || bottom+3 > h-1 {
		return "the transcript box has no bottom edge above the composer"
	}
	if cellAt(lines[bottom+1], 0) != '╭' || cellAt(lines[bottom+1], w-1) != '╮' {
		return fmt.Sprintf("the composer box does not start under the body at row %d", bottom+1)
	}
	if cellAt(lines[h-2], 0) != '╰' || cellAt(lines[h-2], w-1) != '╯' {
		return "the composer box does not end above the status line"
	}
	// The composer area (a request's box and the message box) has its
	// edges on every row.
	for i := bottom + 1; i < h-1; i++ {
		if !strings.ContainsRune("│╭╰", cellAt(lines[i], 0)) || !strings.ContainsRune("│╮╯", cellAt(lines[i], w-1)) {
			return fmt.Sprintf("row %d of the composer area has no box edges", i)
		}
	}
	return ""
}

// waitLayoutGrid waits until the screen shows a 2x2 grid of boxes whose
// borders line up on every row, above the status line.
func (tt *tmuxTUI) waitLayoutGrid(w, h int) string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := tt.screen()
		p := gridLayoutProblem(scr, w, h)
		if p == "" {
			return scr
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("grid at %dx%d: %s; the screen is:\n%s", w, h, p, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gridLayoutProblem checks a 2x2 grid: the same four border columns on
// every row from the first box edge to the last, two box tops in the
// first row of cells and two in the second.
func gridLayoutProblem(scr string, w, h int) string {
	lines := strings.Split(strings.TrimSuffix(scr, "\n"), "\n")
	if len(lines) != h {
		return fmt.Sprintf("%d lines, want %d", len(lines), h)
	}
	top := 0
	if !strings.HasPrefix(lines[0], "╭") {
		top = 1
	}
	var cols []int
	for c := 0; c < w; c++ {
		if r := cellAt(lines[top], c); r == '╭' || r == '╮' {
			cols = append(cols, c)
		}
	}
	if len(cols) != 4 || cols[0] != 0 || cols[3] != w-1 {
		return fmt.Sprintf("top edge corners at columns %v", cols)
	}
	tops := 0
	for i := top; i < h-1; i++ {
		if ansi.StringWidth(lines[i]) > w {
			return fmt.Sprintf("line %d is too wide", i)
		}
		for _, c := range cols {
			if r := cellAt(lines[i], c); !strings.ContainsRune("│╭╮╰╯", r) {
				return fmt.Sprintf("row %d column %d is %q, not a border", i, c, r)
			}
		}
		if cellAt(lines[i], 0) == '╭' && cellAt(lines[i], cols[2]) == '╭' {
			tops++
		}
	}
	if tops != 2 {
		return fmt.Sprintf("%d rows of cells, want 2", tops)
	}
	return ""
}

// cellAt is the character in cell column c of a plain line (0 past its
// end).
func cellAt(line string, c int) rune {
	x := 0
	for _, r := range line {
		if x == c {
			return r
		}
		x += max(1, ansi.StringWidth(string(r)))
		if x > c {
			return 0
		}
	}
	return 0
}

// hostPID reads the pid of the process that holds e's state dir.
func (e *env) hostPID() int {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, "host.pid"))
	if err != nil {
		e.t.Fatalf("no host.pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		e.t.Fatalf("host.pid holds %q", b)
	}
	return pid
}

// alive reports whether a process exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// TestLayoutProblemCatchesOverlap checks the checker itself on a golden
// screen of the tui package: it passes as drawn, and fails when a row is
// too wide, a border moves or a pane paints over another.
func TestLayoutProblemCatchesOverlap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("tui", "testdata", "main_80x24.golden"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(b)
	if p := layoutProblem(good, 80, 24); p != "" {
		t.Fatalf("a golden screen fails the layout check: %s", p)
	}
	lines := strings.Split(strings.TrimSuffix(good, "\n"), "\n")
	bad := map[string]func([]string){
		"too wide":       func(l []string) { l[5] += "x" },
		"border shifted": func(l []string) { l[6] = " " + l[6][:len(l[6])-1] },
		"overdrawn":      func(l []string) { l[9] = strings.Repeat("#", 80) },
		"short":          func(l []string) { l[20] = "" },
	}
	for name, breakIt := range bad {
		l := append([]string(nil), lines...)
		breakIt(l)
		if p := layoutProblem(strings.Join(l, "\n"), 80, 24); p == "" {
			t.Errorf("%s: the layout check did not notice", name)
		} else {
			t.Logf("%s: %s", name, p)
		}
	}
}

// quitIdle waits until no run is active (the status line counts them;
// a reply can be on screen a moment before its run completes), then
// quits with ctrl+c (confirming the end of live terminals) and expects
// exit code 0.
func (tt *tmuxTUI) quitIdle() {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		lines := strings.Split(strings.TrimRight(tt.screen(), "\n"), "\n")
		if !strings.Contains(lines[len(lines)-1], " active") {
			break
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("runs still active after 30s:\n%s", tt.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	tt.keys("C-c")
	// ctrl+c clears a draft first; then it quits. A UI host with a live
	// terminal asks first: the shell ends with it.
	cleared, confirmed := false, false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(tt.exitTo); err == nil {
			break
		}
		scr := tt.screen()
		switch {
		case !cleared && strings.Contains(scr, "draft cleared"):
			cleared = true
			tt.keys("C-c")
		case !confirmed && strings.Contains(scr, "live terminal(s). This UI is the host"):
			confirmed = true
			tt.keys("y")
		}
	}
	if code := tt.waitExit(); code != "0" {
		tt.t.Fatalf("nexus exited with %s after quitting, want 0", code)
	}
}
