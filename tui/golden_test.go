package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

var update = flag.Bool("update", false, "rewrite tui/testdata/*.golden from the current screens")

// TestGoldenScreens renders every pane, dialog and view from fixed states
// with the none theme at 80x24 and 120x40, and compares the plain text
// with tui/testdata/*.golden. Run
// `go test ./tui -run Golden -update` after an intended change and
// review the diff.
func TestGoldenScreens(t *testing.T) {
	type screen struct {
		name  string
		state func(*testing.T) *core.State
		keys  []string
		// worktrees: the UI can make worktrees; the workspace "/" is in
		// a repository (fakeWorktrees).
		worktrees bool
	}
	wtState := func(t *testing.T) *core.State { return worktreeThread(t).st }
	demo := demoState
	screens := []screen{
		{"main", demo, nil, false},
		{"threads_focus", demo, []string{"esc", "down"}, false},
		{"transcript_focus", demo, []string{"shift+tab", "up", "up"}, false},
		{"composer_typing", demo, []string{"h", "i", "ctrl+j", "t", "w", "o"}, false},
		{"approval", demo, []string{"ctrl+o"}, false},
		{"question", questionState, []string{"ctrl+o", "1", "b", "l", "u", "e"}, false},
		{"newthread", demo, []string{"ctrl+n"}, false},
		{"help", demo, []string{"f1"}, false},
		{"palette", demo, []string{"ctrl+k"}, false},
		{"quit", demo, []string{"ctrl+c"}, false},
		{"fork", demo, []string{"ctrl+t"}, false},
		{"switch", demo, []string{"alt+down", "ctrl+p"}, false},
		{"grid", func(t *testing.T) *core.State { st, _ := fourThreads(t); return st }, []string{"ctrl+g"}, false},
		{"graph", graphState, []string{"shift+tab", "up", "up", "enter"}, false},
		{"files", rolledBackState, nil, false},
		{"proposed", proposedState, nil, false},
		{"rollback", rollbackState, []string{"ctrl+z", "down", "down", "down"}, false},
		{"rollback_confirm", rollbackState, []string{"ctrl+z", "down", "down", "down", "enter"}, false},
		{"empty", func(*testing.T) *core.State { return core.NewState() }, nil, false},
		{"newthread_worktree", demo, []string{"ctrl+n", "F", "i", "x"}, true},
		{"worktree", wtState, []string{"alt+up", "ctrl+l"}, true},
		{"commit", wtState, []string{"alt+up", "ctrl+l", "c"}, true},
	}
	type golden struct {
		name      string
		w, h      int
		state     func(*testing.T) *core.State
		keys      []string
		worktrees bool
	}
	var cases []golden
	for _, sc := range screens {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			cases = append(cases, golden{fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), sz[0], sz[1], sc.state, sc.keys, sc.worktrees})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, tc.state(t), tc.w, tc.h)
			hs.m.opts.Workspace = "/work/demo" // not the temp dir: screens must not vary
			if tc.worktrees {
				hs.m.opts.Workspace = "/" // a directory that exists, in the fake repository
				hs.m.opts.Worktrees = (&fakeWorktrees{top: "/", addedDir: "/state/worktrees"}).ops()
			}
			hs.press(tc.keys...)
			hs.checkScreen(tc.w, tc.h)
			checkGolden(t, tc.name, hs.screen())
		})
	}
}

// checkGolden compares a screen with testdata/name.golden, or rewrites
// the file with -update.
func checkGolden(t *testing.T, name, screen string) {
	t.Helper()
	got := screen + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("screen %s differs from %s (run with -update if intended)\n got:\n%s\nwant:\n%s",
			name, path, got, want)
	}
}

// questionState is one thread waiting on a question.
func questionState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "colours", core.ThreadWaiting, 1, sec)
	r := j.run("t1", 1, core.RunWaiting, "pick #ask=Which colour?", 2*sec, 0)
	n := j.node(r, 2, core.NodeUserInput, "", "Which colour?", "")
	j.request(r, n, "R1", core.RequestUserInput, "Which colour do you want the button in?")
	return j.st
}

func TestGoldenFilesHaveNoTrailingJunk(t *testing.T) {
	// Every golden screen is exactly its size; a hand edit that breaks a
	// line shows up here rather than as a puzzling diff.
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if len(files) == 0 {
		t.Skip("no golden files yet")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if strings.Contains(f, "80x24") && len(lines) != 24 {
			t.Errorf("%s has %d lines, want 24", f, len(lines))
		}
		if strings.Contains(f, "120x40") && len(lines) != 40 {
			t.Errorf("%s has %d lines, want 40", f, len(lines))
		}
	}
}
