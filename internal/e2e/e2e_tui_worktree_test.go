package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIWorktreeThread is the UI's worktree flow on the real binary in
// tmux: in a git repository where a thread is live, ctrl+n offers the
// new thread its own worktree, on by default; the thread's run writes
// only inside that worktree; then commit (the message drafted from the
// run) and merge from the worktree dialog leave the expected history in
// the repository.
func TestTUIWorktreeThread(t *testing.T) {
	e := newEnv(t)
	e.initRepo(map[string]string{"README.md": "# demo\n"})
	e.must("thread", "new", "--title", "first") // live in the repository's own checkout
	tt := e.startTUI(t)
	tt.waitFor("Threads (1)")

	tt.keys("C-n")
	tt.waitForAll("New thread", "[x] own git worktree", "a thread works in this repository")
	tt.text("greeter")
	tt.waitFor("nexus/greeter")
	tt.keys("Enter")
	tt.waitForAll("Threads (2)", "⎇ nexus/greeter")

	tt.text("write hello to a.txt")
	tt.keys("Enter")
	tt.waitFor("ctrl+o to answer")
	tt.waitFor("press 1-3")
	tt.keys("1")
	tt.waitFor(`[sim] acted on: "write hello to a.txt"`)

	th := e.threadTitled("greeter")
	v := e.waitShow(th, func(v threadView) bool { return len(v.Runs) == 1 && v.Runs[0].Status == "completed" })
	if v.Worktree == "" || v.Branch != "nexus/greeter" || v.Repo != e.ws {
		t.Fatalf("thread %s: worktree %q on %q from %q; want its own worktree on nexus/greeter from %s",
			th, v.Worktree, v.Branch, v.Repo, e.ws)
	}
	if b, err := os.ReadFile(filepath.Join(v.Worktree, "a.txt")); err != nil || !strings.Contains(string(b), "hello") {
		t.Fatalf("a.txt in the worktree: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("the run wrote a.txt into the repository's own checkout (%v)", err)
	}

	tt.keys("C-l")
	tt.waitFor("Worktree of greeter")
	tt.text("c")
	tt.waitForAll("Commit greeter", "- write hello to a.txt")
	tt.keys("Enter")
	tt.waitFor("committed ")
	tt.keys("C-l")
	tt.waitFor("Worktree of greeter")
	tt.text("m")
	tt.waitFor("Merge greeter?")
	tt.text("y")
	tt.waitFor("merged nexus/greeter into ")

	if got := strings.TrimSpace(git(t, e.ws, "log", "--format=%s", "HEAD")); got != "greeter\ninit" {
		t.Fatalf("the repository's log is %q, want the thread's commit on top of init", got)
	}
	if got := strings.TrimSpace(git(t, e.ws, "log", "-1", "--format=%b")); !strings.Contains(got, "- write hello to a.txt") ||
		!strings.Contains(got, "Nexus-Thread: "+th) {
		t.Fatalf("the commit's body is %q, want the run and the thread", got)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "a.txt")); err != nil || !strings.Contains(string(b), "hello") {
		t.Fatalf("after the merge a.txt in the repository: %q, %v", b, err)
	}
	tt.quitIdle()
}

// threadView is what these tests read of `thread show --json`.
type threadView struct {
	Worktree, Repo, Branch string
	Runs                   []struct{ Status string }
}

// threadTitled is the id of the thread with that title.
func (e *env) threadTitled(title string) string {
	e.t.Helper()
	var rows []struct{ ID, Title string }
	if err := json.Unmarshal([]byte(e.must("thread", "list", "--json")), &rows); err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rows {
		if r.Title == title {
			return r.ID
		}
	}
	e.t.Fatalf("no thread titled %q in %+v", title, rows)
	return ""
}

// waitShow polls `thread show --json` until ok holds.
func (e *env) waitShow(thread string, ok func(threadView) bool) threadView {
	e.t.Helper()
	var v threadView
	eventually(e.t, "thread "+thread+" to reach the wanted state", func() bool {
		v = threadView{}
		return json.Unmarshal([]byte(e.must("thread", "show", thread, "--json")), &v) == nil && ok(v)
	})
	return v
}
