package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// scrolledRE is the pane's note while it is scrolled back.
var scrolledRE = regexp.MustCompile(`scrolled: (\d+) lines? up`)

// scrolledUp is how far back the pane says it is, 0 at the bottom.
func scrolledUp(scr string) int {
	if m := scrolledRE.FindStringSubmatch(scr); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// paneRows counts the rows inside the main pane's frame: from the row of
// its title to its bottom edge, in the title's column.
func paneRows(t *testing.T, scr, title string) int {
	t.Helper()
	lines := strings.Split(scr, "\n")
	for i, l := range lines {
		c := strings.Index(l, "╭─ "+title)
		if c < 0 {
			continue
		}
		col := len([]rune(l[:c]))
		for j := i + 1; j < len(lines); j++ {
			if r := []rune(lines[j]); col < len(r) && r[col] == '╰' {
				return j - i - 1
			}
		}
	}
	t.Fatalf("no pane titled %q on screen:\n%s", title, scr)
	return 0
}

// TestTUIShellScrollback runs `seq 1 20000` in a shell thread's pane on a
// real bash, with a config file that keeps 25,000 lines, and scrolls back
// with shift+pgup, a page a press, until line 1 shows: no more presses
// than the pages of output. shift+pgup never reaches bash, and a key
// typed into the pane brings the view back to the bottom, where bash's
// prompt holds only that key.
func TestTUIShellScrollback(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	writeConfig(t, cfg, "[ui]\nscrollback = 25000\n")
	e := newEnv(t)
	e.must("thread", "new", "--provider", "shell", "--title", "sh")
	// NEXUS_TERM_NICE=0: at its default niceness the pane's reader could
	// fall far behind on a machine busy with the rest of the suite.
	tt := e.startTUIEnv(t, "NEXUS_SHELL_COMMAND=bash --norc --noprofile", "PS1=bash$ ", "HISTFILE=/dev/null",
		"NEXUS_TERM_NICE=0", "NEXUS_CONFIG="+cfg)
	tt.waitFor("Threads (1)")
	tt.text("echo started")
	tt.keys("Enter")
	tt.waitForAll("sh · shell terminal", "started")
	tt.keys("BTab")
	tt.waitFor("keys go to the terminal")

	tt.text("seq 1 20000")
	tt.keys("Enter")
	end := regexp.MustCompile(`│20000 +│\n.*│bash\$ +│`)
	eventually(t, "the end of seq's output and the prompt", func() bool { return end.MatchString(tt.screen()) })
	rows := paneRows(t, tt.screen(), "sh · shell terminal")
	page := rows - 1
	// Above the prompt: the lines of "echo started", the command line and
	// 20,000 numbers, so no more pages than these lines fill.
	limit := (20000+10)/page + 1
	lineOne := regexp.MustCompile(`│1 +│`)
	const batch = 10
	presses := 0
	for scr := tt.screen(); presses < limit && !lineOne.MatchString(scr); scr = tt.screen() {
		n := min(batch, limit-presses)
		tt.tmux("send-keys", "-t", "main", "-N", strconv.Itoa(n), "S-PPage")
		presses += n
		// Each press moves the view a page until line 1 is in view.
		before := scrolledUp(scr)
		eventually(t, "the view to scroll back", func() bool {
			s := tt.screen()
			return scrolledUp(s) > before || lineOne.MatchString(s)
		})
	}
	// The UI may still be taking in the last presses.
	eventually(t, "line 1 after "+strconv.Itoa(presses)+" presses of shift+pgup", func() bool {
		return lineOne.MatchString(tt.screen())
	})
	// Above the pane's last rows are at least the command line and the
	// 20,000 numbers.
	scr := tt.screen()
	if presses < (20001-rows)/page {
		t.Errorf("line 1 after %d presses, want one a page of %d lines:\n%s", presses, page, scr)
	}
	if !strings.Contains(scr, "shift+pgdown") || scrolledUp(scr) < 20001-rows {
		t.Errorf("at line 1 the pane does not say it is scrolled back %d lines or more:\n%s", 20001-rows, scr)
	}

	tt.text("x")
	prompt := regexp.MustCompile(`│20000 +│\n.*│bash\$ x +│`)
	eventually(t, "the view back at the bottom with x typed", func() bool {
		s := tt.screen()
		return prompt.MatchString(s) && !scrolledRE.MatchString(s)
	})
	tt.keys("BSpace")
	tt.keys("C-]")
	tt.quitIdle()
}
