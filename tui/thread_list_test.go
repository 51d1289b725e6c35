package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/nexus-tui/nexus/core"
)

func TestPlainActivity(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"run_command `go test ./...`", "running go test ./..."},
		{"Bash: go test ./...", "running go test ./..."},
		{"Edit: main.go", "editing main.go"},
		{"write_file notes.txt", "editing notes.txt"},
		{"read_file README.md", "reading README.md"},
		{"WebFetch: https://example.com", "WebFetch: https://example.com"},
		{"Bash", "Bash"},
	} {
		if got := plainActivity(c.in); got != c.want {
			t.Errorf("plainActivity(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := elapsed(3*time.Minute + 7*time.Second); got != "3:07" {
		t.Errorf("elapsed = %q, want 3:07", got)
	}
}

// activityState has a running run whose newest running step is a
// command, a thread waiting on a request, and an idle one.
func activityState(t *testing.T) *core.State {
	j := newJournal(t)
	j.thread("t1", "build it", core.ThreadRunning, 1, 1*sec)
	r := j.run("t1", 1, core.RunRunning, "make it build", 2*sec, 0)
	j.node(r, 2, core.NodeWorkerStep, core.NodeCompleted, "read_file go.mod", "module x")
	j.node(r, 3, core.NodeWorkerStep, "", "run_command `go test ./...`", "")
	th := *j.st.Threads["t1"]
	th.TokensIn, th.TokensOut, th.CostUSD = 1200, 300, 0.0123
	j.add(core.Event{Type: core.EvThreadUpdated, Thread: "t1", Payload: core.Payload{Thread: &th}})
	j.thread("t2", "clean up", core.ThreadWaiting, 1, 3*sec)
	r2 := j.run("t2", 1, core.RunWaiting, "remove the build dir", 4*sec, 0)
	n := j.node(r2, 2, core.NodeApproval, "", "Bash", "")
	j.request(r2, n, "R1", core.RequestApproval, "Allow Bash rm -rf build?\nin /work/demo")
	j.thread("t3", "idle one", core.ThreadIdle, 0, 5*sec)
	return j.st
}

// The list shows what each thread does, how long its run has run, and
// its tokens and cost as the thread sums them.
func TestThreadListShowsActivity(t *testing.T) {
	hs := newHarness(t, activityState(t), 160, 40)
	hs.m.prefs.LeftPercent = 60
	hs.m.relayout()
	hs.expectScreen("a running command, its elapsed time and the thread's usage",
		"● running 9:58 · running go test ./...", "1.5k tok · $0.0123")
	hs.expectScreen("a waiting request's prompt", "◆ waiting 9:56 · Allow Bash rm -rf build?")
	for _, l := range strings.Split(hs.screen(), "\n") {
		if strings.Contains(l, "◆ waiting 9:56") && strings.Contains(l, "in /work/demo") {
			t.Errorf("the list shows more than a prompt's first line:\n%s", l)
		}
	}
}

// alt+s cycles the order: needs me puts the waiting thread first; the
// order is kept in the layout.
func TestThreadOrderCycles(t *testing.T) {
	hs := newHarness(t, activityState(t), 120, 40)
	ids := func() string {
		var s []string
		for _, r := range hs.m.rows {
			s = append(s, r.th.ID)
		}
		return strings.Join(s, ",")
	}
	if got := ids(); got != "t1,t2,t3" {
		t.Fatalf("created order = %s", got)
	}
	hs.press("alt+s")
	if got := ids(); got != "t2,t1,t3" || hs.m.prefs.ThreadOrder != orderNeedsMe {
		t.Fatalf("needs-me order = %s (%q), want the waiting thread, the running one, the idle one", got, hs.m.prefs.ThreadOrder)
	}
	hs.expectScreen("the order in the list's title", "Threads (3) · needs me")
	hs.press("alt+s", "alt+s")
	if got := ids(); got != "t3,t2,t1" {
		t.Fatalf("last-activity order = %s, want the most recently changed first", got)
	}
	hs.press("alt+s")
	if got := ids(); got != "t1,t2,t3" || hs.m.prefs.ThreadOrder != orderCreated {
		t.Fatalf("back to creation order: %s", got)
	}
}

// f2 renames the selected thread; alt+a archives it after asking, and
// a printable key in those dialogs never reaches the composer.
func TestRenameAndArchiveThread(t *testing.T) {
	hs := newHarness(t, activityState(t), 120, 40)
	hs.m.selectThread("t3")
	hs.press("f2", "ctrl+u")
	hs.typeText("tidy the repo")
	hs.press("enter")
	if c := hs.lastCmd(); c.Kind != core.CmdThreadRename || c.Thread != "t3" || c.Title != "tidy the repo" {
		t.Fatalf("rename submitted %+v", c)
	}
	if hs.m.composer.value() != "" {
		t.Fatalf("typing in the rename dialog reached the composer: %q", hs.m.composer.value())
	}
	hs.press("alt+a")
	hs.expectScreen("the archive question", "Archive idle one?")
	hs.press("n")
	if c := hs.lastCmd(); c.Kind == core.CmdThreadArchive {
		t.Fatal("n archived the thread")
	}
	hs.press("alt+a", "y")
	if c := hs.lastCmd(); c.Kind != core.CmdThreadArchive || c.Thread != "t3" {
		t.Fatalf("archive submitted %+v", c)
	}
}
