package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// fakeWorktrees records the worktree operations the UI asks for and
// answers them as a repository at top would.
type fakeWorktrees struct {
	mu       sync.Mutex
	top      string // Repo's answer for any directory under it
	repoErr  error
	dirty    bool
	repos    []string
	adds     []WorktreeSpec
	commits  []string // thread + "\n" + message
	merges   []string
	removes  []string // thread, "!" when forced
	diffs    []string
	calls    int
	addedDir string // where Add puts worktrees
}

func (f *fakeWorktrees) ops() *Worktrees {
	count := func() { f.mu.Lock(); f.calls++; f.mu.Unlock() }
	return &Worktrees{
		Repo: func(_ context.Context, dir string) (string, error) {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.repos = append(f.repos, dir)
			if f.repoErr != nil || !inDir(dir, f.top) {
				return "", f.repoErr
			}
			return f.top, nil
		},
		Add: func(_ context.Context, s WorktreeSpec) (WorktreeMade, error) {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.adds = append(f.adds, s)
			repo := s.Dir
			if s.From != "" {
				repo = "/repo-of-" + s.From
			}
			return WorktreeMade{Path: filepath.Join(f.addedDir, s.Thread), Repo: repo, Branch: s.Branch}, nil
		},
		Diff: func(_ context.Context, thread string) (string, error) {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.diffs = append(f.diffs, thread)
			return "nexus/x against main (since abc), uncommitted work included\n A a.txt | +1 -0\n 1 file(s) changed, 1 insertion(s), 0 deletion(s)\n\ndiff --git a/a.txt b/a.txt\n@@ -0,0 +1 @@\n+hello\n", nil
		},
		Commit: func(_ context.Context, thread, message string) (string, error) {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.commits = append(f.commits, thread+"\n"+message)
			return "committed 1234567 on branch nexus/x (1 file(s))", nil
		},
		Merge: func(_ context.Context, thread string) (string, error) {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			f.merges = append(f.merges, thread)
			return "merged nexus/x into main (fast-forward to 1234567)", nil
		},
		Dirty: func(context.Context, string) (bool, error) { count(); return f.dirty, nil },
		Remove: func(_ context.Context, thread string, force bool) error {
			count()
			f.mu.Lock()
			defer f.mu.Unlock()
			if force {
				thread += "!"
			}
			f.removes = append(f.removes, thread)
			return nil
		},
	}
}

// putThread adds a thread working in workspace (and in its own worktree
// when worktree is set) to the journal.
func (j *journal) putThread(th core.Thread) {
	j.t.Helper()
	if th.Provider == "" {
		th.Provider = "builtin"
	}
	if th.Status == "" {
		th.Status = core.ThreadIdle
	}
	th.CreatedAt, th.UpdatedAt = sec*int64(len(j.st.Threads)+1), sec*int64(len(j.st.Threads)+1)
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: th.ID, Payload: core.Payload{Thread: &th}})
}

// worktreeHarness is a harness over st whose UI can make worktrees, with
// the default workspace ws inside the repository top.
func worktreeHarness(t *testing.T, st *core.State, top string) (*harness, *fakeWorktrees) {
	t.Helper()
	hs := newHarness(t, st, 120, 40)
	f := &fakeWorktrees{top: top, addedDir: "/state/worktrees"}
	hs.m.opts.Worktrees = f.ops()
	return hs, f
}

// TestNewThreadWorktreeDefault: ctrl+n offers the thread a worktree of
// its own, on by default exactly when its workspace is in a git
// repository where a live (not archived) thread works; enter makes the
// worktree and creates the thread in it, as `thread new --worktree`.
func TestNewThreadWorktreeDefault(t *testing.T) {
	for _, tc := range []struct {
		name    string
		threads []core.Thread
		inRepo  bool
		wantOn  bool
		note    string
	}{
		{"a live thread in the repository", []core.Thread{{ID: "t1", Workspace: "REPO"}}, true, true, "a thread works in this repository"},
		{"a live thread in a subdirectory", []core.Thread{{ID: "t1", Workspace: "REPO/sub"}}, true, true, "a thread works"},
		{"two live threads", []core.Thread{{ID: "t1", Workspace: "REPO"}, {ID: "t2", Workspace: "REPO", Status: core.ThreadRunning}}, true, true, "2 threads work"},
		{"only an archived thread", []core.Thread{{ID: "t1", Workspace: "REPO", Archived: true, Status: core.ThreadArchived}}, true, false, "no thread works here"},
		{"a thread in its own worktree", []core.Thread{{ID: "t1", Workspace: "/state/worktrees/t1", Worktree: "/state/worktrees/t1", Repo: "REPO"}}, true, false, "no thread works here"},
		{"a thread elsewhere", []core.Thread{{ID: "t1", Workspace: "/elsewhere"}}, true, false, "no thread works here"},
		{"no repository", []core.Thread{{ID: "t1", Workspace: "REPO"}}, false, false, "not a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			j := newJournal(t)
			for _, th := range tc.threads {
				th.Workspace = strings.Replace(th.Workspace, "REPO", repo, 1)
				th.Repo = strings.Replace(th.Repo, "REPO", repo, 1)
				j.putThread(th)
			}
			top := repo
			if !tc.inRepo {
				top = "/no/repo"
			}
			hs, f := worktreeHarness(t, j.st, top)
			hs.m.opts.Workspace = repo
			before := len(hs.b.submitted())
			hs.press("ctrl+n")
			d, ok := hs.m.dialogs[len(hs.m.dialogs)-1].(*newThreadDialog)
			if !ok {
				t.Fatalf("ctrl+n opened %T", hs.m.dialogs[0])
			}
			if d.wt.on != tc.wantOn || !strings.Contains(d.wt.note, tc.note) {
				t.Fatalf("worktree on=%v (%q), want %v (%q)", d.wt.on, d.wt.note, tc.wantOn, tc.note)
			}
			box := "[ ] own git worktree"
			if tc.wantOn {
				box = "[x] own git worktree"
			}
			hs.expectScreen("the new thread dialog", box)
			hs.typeText("Fix the login bug!")
			hs.press("enter")
			cmds := hs.b.submitted()[before:]
			if len(cmds) != 1 || cmds[0].Kind != core.CmdThreadCreate {
				t.Fatalf("submitted %+v, want one thread.create", cmds)
			}
			c := cmds[0]
			if !tc.wantOn {
				if len(f.adds) != 0 || c.Worktree != "" || c.Workspace != repo {
					t.Fatalf("a thread without a worktree: adds %+v, command %+v", f.adds, c)
				}
				return
			}
			want := WorktreeSpec{Thread: c.NewThread, Dir: repo, Branch: "nexus/fix-the-login-bug", AutoBranch: true}
			if len(f.adds) != 1 || f.adds[0] != want {
				t.Fatalf("Add %+v, want %+v", f.adds, want)
			}
			path := "/state/worktrees/" + c.NewThread
			if c.Workspace != path || c.Worktree != path || c.Repo != repo || c.Branch != "nexus/fix-the-login-bug" {
				t.Fatalf("thread.create %+v, want it in the worktree %s on nexus/fix-the-login-bug", c, path)
			}
		})
	}
}

// TestNewThreadWorktreeToggleAndBranch: space on the Worktree field
// switches it, and the person's choice outlives the repository check;
// a typed branch is used as it is.
func TestNewThreadWorktreeToggleAndBranch(t *testing.T) {
	j := newJournal(t)
	hs, f := worktreeHarness(t, j.st, "/")
	hs.m.opts.Workspace = t.TempDir()
	hs.press("ctrl+n", "tab", "tab") // title -> workspace -> worktree
	d := hs.m.dialogs[0].(*newThreadDialog)
	if d.wt.on || d.field != fieldWorktree {
		t.Fatalf("no live thread: the worktree is on=%v, field %d", d.wt.on, d.field)
	}
	hs.press("space")
	if !d.wt.on {
		t.Fatal("space did not switch the worktree on")
	}
	hs.send(repoCheckedMsg{to: d, dir: d.checked, top: ""}) // a late answer does not undo the choice
	if !d.wt.on {
		t.Fatal("a repository check undid the person's choice")
	}
	hs.press("tab")
	for range len(d.wt.branch.Value()) {
		hs.press("backspace")
	}
	hs.typeText("try/x")
	hs.press("enter")
	if len(f.adds) != 1 || f.adds[0].Branch != "try/x" || f.adds[0].AutoBranch {
		t.Fatalf("Add %+v, want the typed branch try/x", f.adds)
	}
	if c := hs.lastCmd(); c.Branch != "try/x" || c.Worktree == "" {
		t.Fatalf("thread.create %+v", c)
	}
}

// TestNewThreadWorkspaceRechecked: leaving a changed workspace field
// asks again; a workspace that is no directory makes no worktree and
// creates nothing.
func TestNewThreadWorkspaceRechecked(t *testing.T) {
	repo := t.TempDir()
	j := newJournal(t)
	j.putThread(core.Thread{ID: "t1", Workspace: repo})
	hs, f := worktreeHarness(t, j.st, repo)
	hs.m.opts.Workspace = "/"
	hs.press("ctrl+n")
	d := hs.m.dialogs[0].(*newThreadDialog)
	if d.wt.on {
		t.Fatal("/ is not in the repository, yet the worktree is on")
	}
	hs.press("tab")
	for range len(d.workspace.Value()) {
		hs.press("backspace")
	}
	hs.typeText(repo)
	hs.press("tab")
	if len(f.repos) != 2 || !d.wt.on {
		t.Fatalf("asked about %v, worktree on=%v; want the new workspace asked about and the worktree on", f.repos, d.wt.on)
	}
	hs.press("shift+tab") // back to the workspace
	for range len(d.workspace.Value()) {
		hs.press("backspace")
	}
	hs.typeText("/does/not/exist")
	hs.press("enter")
	if len(f.adds) != 0 || len(hs.b.submitted()) != 0 {
		t.Fatalf("a missing workspace made %+v and submitted %+v", f.adds, hs.b.submitted())
	}
	hs.expectScreen("after a bad workspace", "is not a directory")
}

// TestForkWorktreeDefault: ctrl+t offers the fork a worktree, on when
// the source works in a git repository (else the fork would share its
// directory); enter makes it from the chosen run and forks into it.
func TestForkWorktreeDefault(t *testing.T) {
	for _, inRepo := range []bool{true, false} {
		repo := t.TempDir()
		j := newJournal(t)
		j.putThread(core.Thread{ID: "t1", Title: "explore", Workspace: repo, Runs: 2})
		j.run("t1", 1, core.RunCompleted, "first idea", 2*sec, 3*sec)
		j.run("t1", 2, core.RunCompleted, "second idea", 4*sec, 5*sec)
		top := repo
		if !inRepo {
			top = "/no/repo"
		}
		hs, f := worktreeHarness(t, j.st, top)
		hs.press("ctrl+t")
		d := hs.m.dialogs[0].(*forkDialog)
		if d.wt.on != inRepo {
			t.Fatalf("in a repository %v: worktree on=%v (%s)", inRepo, d.wt.on, d.wt.note)
		}
		if inRepo {
			hs.expectScreen("the fork dialog", "[x] own git worktree", "else it shares this thread's dir", "nexus/explore-fork")
		}
		hs.press("down", "enter") // run 1
		c := hs.lastCmd()
		if c.Kind != core.CmdThreadFork || c.Thread != "t1" || c.Run != 1 || c.NewThread != d.id {
			t.Fatalf("submitted %+v", c)
		}
		if !inRepo {
			if len(f.adds) != 0 || c.Worktree != "" {
				t.Fatalf("a fork outside a repository made %+v: %+v", f.adds, c)
			}
			continue
		}
		want := WorktreeSpec{Thread: d.id, From: "t1", Run: 1, Branch: "nexus/explore-fork", AutoBranch: true}
		if len(f.adds) != 1 || f.adds[0] != want {
			t.Fatalf("Add %+v, want %+v", f.adds, want)
		}
		if c.Worktree != "/state/worktrees/"+d.id || c.Repo != "/repo-of-t1" || c.Branch != "nexus/explore-fork" {
			t.Fatalf("thread.fork %+v, want it in its worktree", c)
		}
	}
}

// TestSharedDirMarks: the list names a worktree thread's branch, and
// marks threads whose directory another live thread shares (the same,
// or one inside the other); an archived thread shares nothing.
func TestSharedDirMarks(t *testing.T) {
	j := newJournal(t)
	j.putThread(core.Thread{ID: "a", Title: "alpha", Workspace: "/r"})
	j.putThread(core.Thread{ID: "b", Title: "beta", Workspace: "/r/sub"})
	j.putThread(core.Thread{ID: "c", Title: "gamma", Workspace: "/other"})
	j.putThread(core.Thread{ID: "d", Title: "delta", Workspace: "/wt/d", Worktree: "/wt/d", Repo: "/r", Branch: "nexus/delta"})
	j.putThread(core.Thread{ID: "e", Title: "eps", Workspace: "/wt/e", Worktree: "/wt/e", Repo: "/r"})
	j.putThread(core.Thread{ID: "f", Title: "old", Workspace: "/other", Archived: true, Status: core.ThreadArchived})
	j.putThread(core.Thread{ID: "g", Title: "fork of eps", Workspace: "/wt/e"}) // a fork made without a worktree
	hs := newHarness(t, j.st, 160, 40)
	got := map[string]bool{}
	for _, r := range hs.m.rows {
		got[r.th.ID] = r.shared
	}
	want := map[string]bool{"a": true, "b": true, "c": false, "d": false, "e": true, "g": true}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("thread %s shared=%v, want %v", id, got[id], w)
		}
	}
	hs.m.lay.threads.w = 60
	for _, r := range hs.m.rows {
		line := strings.Join(hs.m.threadLines(r, 60, false), "\n")
		switch r.th.ID {
		case "a", "b":
			if !strings.Contains(line, "⇄ shared dir") {
				t.Errorf("%s: %q lacks the shared mark", r.th.ID, line)
			}
		case "d":
			if !strings.Contains(line, "⎇ nexus/delta") {
				t.Errorf("d: %q lacks its branch", line)
			}
		case "e":
			if !strings.Contains(line, "⇄ shared dir · ⎇ worktree") {
				t.Errorf("e: %q lacks the shared and worktree marks", line)
			}
		case "c":
			if strings.Contains(line, "⇄") || strings.Contains(line, "⎇") {
				t.Errorf("c: %q is marked", line)
			}
		}
	}
}

// worktreeThread is a journal with one idle worktree thread that ran
// twice (the second run rolled back) and another thread.
func worktreeThread(t *testing.T) *journal {
	j := newJournal(t)
	j.putThread(core.Thread{ID: "w1", Title: "Say hello", Workspace: "/wt/w1", Worktree: "/wt/w1", Repo: "/r", Branch: "nexus/say-hello", Runs: 2})
	j.run("w1", 1, core.RunCompleted, "write hello to a.txt\nand more", 2*sec, 3*sec)
	j.run("w1", 2, core.RunRolledBack, "delete everything", 4*sec, 5*sec)
	j.putThread(core.Thread{ID: "p", Title: "plain", Workspace: "/r"})
	return j
}

// TestWorktreeDialogCommitMerge: the worktree dialog's commit opens the
// message drafted from the thread's runs, and enter commits it as
// edited; merge asks, then merges; each outcome is the status line.
func TestWorktreeDialogCommitMerge(t *testing.T) {
	hs, f := worktreeHarness(t, worktreeThread(t).st, "/r")
	hs.m.selectThread("w1")
	hs.press("ctrl+l")
	hs.expectScreen("the worktree dialog", "Worktree of Say hello", "/wt/w1 · branch nexus/say-hello · made from /r",
		"diff", "commit", "merge", "archive")
	hs.press("c")
	cd, ok := hs.m.dialogs[0].(*commitDialog)
	if !ok {
		t.Fatalf("c opened %T", hs.m.dialogs[0])
	}
	want := "Say hello\n\n- write hello to a.txt\n\nNexus-Thread: w1\n"
	if cd.ta.Value() != want {
		t.Fatalf("drafted message %q, want %q", cd.ta.Value(), want)
	}
	hs.typeText("Greet: ")
	hs.press("enter")
	if len(f.commits) != 1 || f.commits[0] != "w1\nGreet: "+want {
		t.Fatalf("commits %q", f.commits)
	}
	hs.expectScreen("after the commit", "committed 1234567 on branch nexus/x")

	hs.press("alt+w", "m")
	hs.expectScreen("the merge question", "Merge Say hello?", "nexus/say-hello into the branch checked out in /r")
	if len(f.merges) != 0 {
		t.Fatal("merged before the answer")
	}
	hs.press("y")
	if len(f.merges) != 1 || f.merges[0] != "w1" {
		t.Fatalf("merges %q", f.merges)
	}
	hs.expectScreen("after the merge", "merged nexus/x into main")
	if len(hs.b.submitted()) != 0 {
		t.Errorf("commit and merge submitted commands: %+v", hs.b.submitted())
	}
}

// TestWorktreeDialogDiffAndArchive: d shows the worktree's diff in the
// diff view; archiving a worktree with uncommitted work asks again and
// then archives and removes it by force; a thread without a worktree
// gets no dialog.
func TestWorktreeDialogDiffAndArchive(t *testing.T) {
	hs, f := worktreeHarness(t, worktreeThread(t).st, "/r")
	hs.m.selectThread("w1")
	hs.press("ctrl+l", "d")
	hs.expectScreen("the worktree diff", "Diff · worktree · Say hello", "nexus/x against main", "+hello")
	hs.press("esc")

	f.dirty = true
	hs.press("ctrl+l", "a")
	hs.expectScreen("the archive question", "Archive Say hello?", "/wt/w1 is removed")
	hs.press("enter")
	hs.expectScreen("the dirty question", "Drop uncommitted work?")
	if len(hs.b.submitted()) != 0 || len(f.removes) != 0 {
		t.Fatalf("archived before the answer: %+v %v", hs.b.submitted(), f.removes)
	}
	hs.press("y")
	if c := hs.lastCmd(); c.Kind != core.CmdThreadArchive || c.Thread != "w1" {
		t.Fatalf("submitted %+v, want thread.archive of w1", c)
	}
	if len(f.removes) != 1 || f.removes[0] != "w1!" {
		t.Fatalf("removes %q, want w1 by force", f.removes)
	}
	hs.expectScreen("after the archive", "archived; its worktree is removed")

	hs.m.selectThread("p")
	hs.press("ctrl+l")
	if len(hs.m.dialogs) != 0 {
		t.Fatal("a thread without a worktree got the worktree dialog")
	}
	hs.expectScreen("ctrl+l on a plain thread", "not in a worktree of its own")
}

// TestWorktreeKeysNeverBlock: every worktree operation runs in a Cmd;
// the keys that start them return without calling any.
func TestWorktreeKeysNeverBlock(t *testing.T) {
	hs, f := worktreeHarness(t, worktreeThread(t).st, "/r")
	hs.m.selectThread("w1")
	press := func(k string) {
		_, _ = hs.m.Update(keyMsg(k)) // the Cmd is dropped: only Update runs
	}
	for _, keys := range [][]string{{"ctrl+n"}, {"esc", "ctrl+t"}, {"esc", "ctrl+l", "d"}, {"esc", "ctrl+l", "m", "y"},
		{"ctrl+l", "c", "enter"}, {"ctrl+l", "a", "y"}} {
		for _, k := range keys {
			press(k)
		}
	}
	if f.calls != 0 {
		t.Fatalf("%d worktree operations ran in Update", f.calls)
	}
}

// TestWorktreeErrorsShow: a failed operation is one line in the status
// line.
func TestWorktreeErrorsShow(t *testing.T) {
	hs, _ := worktreeHarness(t, worktreeThread(t).st, "/r")
	hs.send(worktreeDoneMsg{op: "merge", thread: "w1", err: errors.New("checkpoint: merging x into main conflicts in a.txt\nmore")})
	hs.expectScreen("a failed merge", "merge failed: checkpoint: merging x into main conflicts in a.txt")
}

func TestBranchFor(t *testing.T) {
	for title, want := range map[string]string{
		"Fix the login bug!":    "nexus/fix-the-login-bug",
		"  ":                    "nexus/t1",
		"Ünïcode only ✓":        "nexus/n-code-only",
		"a/b..c":                "nexus/a-b-c",
		strings.Repeat("x", 60): "nexus/" + strings.Repeat("x", 40),
	} {
		if got := branchFor(title, "t1"); got != want {
			t.Errorf("branchFor(%q) = %q, want %q", title, got, want)
		}
	}
}
