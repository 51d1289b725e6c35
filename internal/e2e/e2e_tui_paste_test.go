package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIPasteFoldsAndSends pastes 400 lines into the composer the way a
// terminal does (tmux paste-buffer -p: a bracketed paste, line breaks as
// CR) and sees them folded into one token with the draft's line count;
// enter sends them, the transcript shows the message folded, the run
// answers, and the journal holds the pasted text exactly.
func TestTUIPasteFoldsAndSends(t *testing.T) {
	e := newEnv(t)
	tt := e.startTUI(t)
	tt.waitFor("No threads yet")
	tt.keys("C-n")
	tt.waitFor("New thread")
	tt.text("pasted")
	tt.keys("Enter")
	tt.waitFor("auto: start a run")

	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("line %03d of the pasted file: the quick brown fox jumps over the dog", i))
	}
	text := strings.Join(lines, "\n")
	size := fmt.Sprintf("%d KB", (len(text)+512)/1024)
	file := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tt.tmux("load-buffer", "-b", "big", file)
	tt.tmux("paste-buffer", "-p", "-b", "big", "-t", "main")
	tt.waitForAll("[pasted 400 lines · "+size+"]", " 400 lines · "+size+" ─╮")

	tt.keys("Enter")
	tt.waitForAll("✓ done", "builtin · 1 run")
	// The answer quotes the message, which it pushed up: the transcript's
	// top shows the message folded, its first four lines and its size,
	// and the answer under it.
	tt.keys("BTab", "Home")
	marker := "… 400 lines · " + size + " in all · enter or click shows all"
	scr := tt.waitForAll("› line 000 of the pasted file", marker, `act on "line 000 of the pasted file`)
	rows := strings.Split(scr, "\n")
	for i, r := range rows {
		if strings.Contains(r, "› line 000 of the pasted file") {
			if i+4 >= len(rows) || !strings.Contains(rows[i+3], "  line 003 of the pasted file") || !strings.Contains(rows[i+4], marker) {
				t.Errorf("the message is not folded to its first four lines and its size:\n%s", scr)
			}
			break
		}
	}

	tt.quitIdle()
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(e.must("thread", "list", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("thread list after the TUI quit: %v, %d threads", err, len(list))
	}
	v := e.show(list[0].ID)
	if len(v.Runs) != 1 || v.Runs[0].Text != text {
		got := ""
		if len(v.Runs) > 0 {
			got = v.Runs[0].Text
		}
		t.Errorf("the journal holds %d runs, the first with %d bytes of text; want one with the %d pasted bytes exactly",
			len(v.Runs), len(got), len(text))
	}
}
