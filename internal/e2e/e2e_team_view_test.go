package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// teamBox is one machine of a team: a state dir whose host keeps its
// project's journal on the hub.
func teamBox(t *testing.T, hub *hubProc, project string) *env {
	t.Helper()
	return teamBoxAs(t, hub, project, hub.host)
}

// teamBoxAs is teamBox with the credentials file creds.
func teamBoxAs(t *testing.T, hub *hubProc, project, creds string) *env {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[team]\nurl = %q\ncredentials = %q\nproject = %q\nlease = \"3s\"\n",
		hub.url, creds, project)), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.extra = append(e.extra, "NEXUS_CONFIG="+cfg)
	return e
}

// stateDirID is a host's state dir id as the lease holds it: for the
// hub, not for people.
var stateDirID = regexp.MustCompile(` #[0-9a-f]{32}`)

// serveBox starts a box's host and stops it when the test ends.
func serveBox(t *testing.T, e *env) *bgProc {
	t.Helper()
	p := e.bg("serve")
	eventually(t, "the host of "+e.dir+" serving", func() bool { return strings.Contains(p.so.String(), "serving") })
	t.Cleanup(func() {
		p.c.Process.Signal(syscall.SIGTERM)
		p.wait(t)
	})
	return p
}

type teamRow struct {
	Project string `json:"project"`
	Host    string `json:"host"`
	Up      bool   `json:"up"`
	Threads []struct {
		ID, Title, Status string
		Pending           int `json:"pendingRequests"`
	} `json:"threads"`
}

// teamView is `nexus team --json` run on e's side.
func teamView(t *testing.T, e *env) map[string]teamRow {
	t.Helper()
	var rows []teamRow
	if err := json.Unmarshal([]byte(e.must("team", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]teamRow{}
	for _, r := range rows {
		out[r.Project] = r
	}
	return out
}

// Two boxes on one hub, each the host of its own project. From box A's
// side, one view lists both hosts' threads grouped by host; a message
// goes to a thread of each; an approval of a run on box B is answered
// by a command line on box A, through the hub's command queue, and the
// run completes on B. With B's host down, a command to B waits on the
// hub ("no owner") and runs when B's host is back.
func TestTeamOneViewCommandsFromAnywhere(t *testing.T) {
	hub := startHubProc(t, t.TempDir())
	a, b := teamBox(t, hub, "box-a"), teamBox(t, hub, "box-b")
	serveA := serveBox(t, a)
	serveB := serveBox(t, b)
	thA := a.must("thread", "new", "--title", "work on A")
	thB := b.must("thread", "new", "--title", "work on B")

	view := teamView(t, a)
	if ra, rb := view["box-a"], view["box-b"]; !ra.Up || !rb.Up || !strings.Contains(ra.Host, a.dir) || !strings.Contains(rb.Host, b.dir) ||
		len(ra.Threads) != 1 || ra.Threads[0].ID != thA || len(rb.Threads) != 1 || rb.Threads[0].ID != thB {
		t.Fatalf("nexus team on A's side: %+v; want box-a held by %s with %s and box-b held by %s with %s", view, a.dir, thA, b.dir, thB)
	}
	text := a.must("team")
	if iA, iB := strings.Index(text, "work on A"), strings.Index(text, "work on B"); iA < 0 || iB < 0 ||
		!strings.Contains(text, a.dir) || !strings.Contains(text, b.dir) {
		t.Fatalf("nexus team prints:\n%s\nwant both hosts with their threads", text)
	}

	// A message to a thread on each box, from A's side.
	a.must("send", thA, "hello from A")
	if r := a.run("--project", "box-b", "send", thB, "hello to B"); r.code != 0 {
		t.Fatalf("send to box B's thread from box A: exit %d, %s", r.code, r.err)
	}
	if v := b.show(thB); len(v.Runs) != 1 || v.Runs[0].Status != "completed" {
		t.Fatalf("box B's thread after a send from A: %+v", v.Runs)
	}

	// An approval on B, answered from A.
	r := a.run("--project", "box-b", "send", thB, "run `echo from-a > approved.txt`")
	id := requestIDRE.FindString(r.out)
	if r.code != 3 || id == "" {
		t.Fatalf("a run on B that needs approval, sent from A: exit %d, out %q, err %q; want exit 3 with its request", r.code, r.out, r.err)
	}
	if n := teamView(t, a)["box-b"].Threads[0].Pending; n != 1 {
		t.Fatalf("nexus team shows %d pending requests on box B's thread, want 1", n)
	}
	// As people read it: each host by machine, state dir and pid, and
	// the id to answer with.
	if out := a.must("team"); !strings.Contains(out, "1 pending: "+id) || stateDirID.MatchString(out) ||
		!strings.Contains(out, b.dir+" (pid ") {
		t.Fatalf("nexus team does not name B's host and its pending request %s as people read them:\n%s", id, out)
	}
	if r := a.run("--project", "box-b", "respond", id, "--allow"); r.code != 0 {
		t.Fatalf("respond to B's request from A: exit %d, %s", r.code, r.err)
	}
	if v := b.show(thB); len(v.Runs) != 2 || v.Runs[1].Status != "completed" {
		t.Fatalf("box B's run after the approval from A: %+v", v.Runs)
	}
	if got, _ := b.readWS("approved.txt"); got != "from-a\n" {
		t.Fatalf("approved.txt in B's workspace = %q, want the command's output", got)
	}
	if _, ok := a.readWS("approved.txt"); ok {
		t.Fatal("the approved command ran on box A")
	}
	// A thread made from A's side works on B's machine: in B's latest
	// thread's workspace, not in A's current directory; what would make
	// files on A's machine for B's project is refused, saying where to
	// run it.
	r = a.run("--project", "box-b", "thread", "new", "--title", "made from A")
	if r.code != 0 {
		t.Fatalf("thread new on box-b from A: exit %d, %s", r.code, r.err)
	}
	if ws := b.show("made from A").Workspace; ws != b.show(thB).Workspace || strings.HasPrefix(ws, a.ws) {
		t.Fatalf("a thread made from A's side for box B works in %q, want B's workspace %q", ws, b.show(thB).Workspace)
	}
	for _, args := range [][]string{{"thread", "new", "--worktree"}, {"mission", "new", "write docs", "--agents", "builtin"},
		{"thread", "new", "--workspace", "rel/dir"}} {
		r := a.run(append([]string{"--project", "box-b"}, args...)...)
		if r.code != 2 || !strings.Contains(r.err, "host's machine") {
			t.Fatalf("nexus --project box-b %v: exit %d, err %q; want a usage error naming the host's machine", args, r.code, r.err)
		}
	}
	// A teammate's laptop with the hub's sender credentials steers B's
	// agents, and cannot host a project.
	mate := teamBoxAs(t, hub, "mate", hub.sender)
	if r := mate.run("--project", "box-b", "thread", "new", "--title", "from a teammate"); r.code != 0 {
		t.Fatalf("a sender's thread new on box-b: exit %d, %s", r.code, r.err)
	}
	if v := b.show("from a teammate"); v.Title != "from a teammate" {
		t.Fatalf("box B after a sender's command: %+v", v)
	}
	if r := mate.run("serve"); r.code == 0 || !strings.Contains(r.err, "sender's credentials, which cannot host") {
		t.Fatalf("nexus serve with a sender's credentials: exit %d, err %q", r.code, r.err)
	}
	// Its diff, from A's side: made on B, whose checkpoints hold it.
	if r := a.run("--project", "box-b", "diff", thB, "--stat"); r.code != 0 || !strings.Contains(r.out, "A approved.txt | +1 -0") {
		t.Fatalf("nexus --project box-b diff: exit %d, out %q, err %q", r.code, r.out, r.err)
	}

	// B's host down: the command waits on the hub, and runs when B is back.
	serveB.c.Process.Signal(syscall.SIGTERM)
	serveB.wait(t)
	if v := teamView(t, a)["box-b"]; v.Up {
		t.Fatalf("nexus team shows box-b up after its host stopped: %+v", v)
	}
	r = a.run("--project", "box-b", "send", thB, "while B was down")
	if r.code == 0 || !strings.Contains(r.err, "no owner") || !strings.Contains(r.err, "queued") {
		t.Fatalf("send to a project with no host: exit %d, err %q; want a failure saying it has no owner and the command is queued", r.code, r.err)
	}
	serveBox(t, b)
	eventually(t, "the queued command run on B's return", func() bool {
		v := b.show(thB)
		return len(v.Runs) == 3 && v.Runs[2].Status == "completed"
	})
	_ = serveA
}

// The UI of a laptop on the hub: attached to box A's project it shows
// A's thread, and a message typed there runs on A; the team dialog (f4)
// lists both hosts with their threads;
// opening B's thread moves the UI to B's project, a message typed there
// runs on B (its approval answered with one key in the UI), and the run
// completes in B's workspace.
func TestTeamUIOnTheHub(t *testing.T) {
	hub := startHubProc(t, t.TempDir())
	a, b := teamBox(t, hub, "box-a"), teamBox(t, hub, "box-b")
	serveBox(t, a)
	serveB := serveBox(t, b)
	a.must("thread", "new", "--title", "thread of A")
	b.must("thread", "new", "--title", "thread of B")
	if err := os.WriteFile(filepath.Join(a.ws, "notes.md"), []byte("# notes on box A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	laptop := teamBox(t, hub, "laptop")

	tt := laptop.startShell(t)
	tt.text(fmt.Sprintf("env NO_COLOR=1 %s %q --state-dir %q --project box-a; echo $? > %q",
		strings.Join(laptop.extra, " "), nexusBin, laptop.dir, tt.exitTo))
	tt.keys("Enter")
	tt.waitForAll("thread of A", "hub: box-a")
	tt.text("read notes.md")
	tt.keys("Enter")
	tt.waitForAll(`[sim] acted on: "read notes.md"`)
	if v := a.show("thread of A"); len(v.Runs) != 1 || v.Runs[0].Status != "completed" {
		t.Fatalf("box A's thread after a message from the laptop's UI: %+v", v.Runs)
	}
	tt.keys("F4")
	scr := tt.waitForAll("project box-a (on screen)", "project box-b", "thread of A", "thread of B")
	if stateDirID.MatchString(scr) {
		t.Fatalf("the team dialog names hosts with their state dir ids:\n%s", scr)
	}
	tt.keys("Down", "Down", "Down", "Enter")
	tt.waitForAll("hub: box-b", "thread of B", "No runs yet")
	tt.text("run `echo via-ui > ui.txt`")
	tt.keys("Enter")
	tt.waitForAll("Allow run_command", "1 allow once", "press 1-3") // armed
	tt.keys("1")
	tt.waitForAll("allowed once", "exit code 0")
	if got, _ := b.readWS("ui.txt"); got != "via-ui\n" {
		t.Fatalf("ui.txt in B's workspace = %q after the run from the laptop's UI", got)
	}
	// The run's diff, made on B (its checkpoints are there), shows on
	// the laptop.
	eventually(t, "B's run complete", func() bool {
		v := b.show("thread of B")
		return len(v.Runs) == 1 && v.Runs[0].Status == "completed"
	})
	tt.keys("C-d")
	tt.waitForAll("Diff · run 1 · thread of B", "A ui.txt | +1 -0", "+via-ui")
	tt.keys("Escape")
	tt.waitGone("Diff · run 1")
	// The status line names the host that holds B's project (by machine
	// and state dir), not the laptop's own state dir.
	machine, _ := os.Hostname()
	scr = tt.waitForAll(fmt.Sprintf("hub: box-b · %s:%s (pid %d)", machine, b.dir, serveB.c.Process.Pid))
	if strings.Contains(scr, laptop.dir) || stateDirID.MatchString(scr) {
		t.Fatalf("the status line of a hub project:\n%s", scr)
	}
	// B's host dies (kill -9): once its lease expires the screen, with
	// no key pressed, says so.
	tt.waitGone("answered") // no flash left to expire and draw a frame
	syscall.Kill(-serveB.c.Process.Pid, syscall.SIGKILL)
	serveB.wait(t)
	tt.waitForAll("hub: box-b · no owner: commands wait")
	tt.quitIdle()
	if code := tt.waitExit(); code != "0" {
		t.Fatalf("the UI exited %s", code)
	}
}

// A terminal through the hub: box B runs a shell thread; the laptop's UI
// on box B's project shows its pane, and vim, started and edited with
// keys typed on the laptop (zoomed once in between), saves the file in
// B's workspace with exactly what was typed.
func TestTeamUITerminalThroughTheHub(t *testing.T) {
	if _, err := exec.LookPath("vim"); err != nil {
		t.Fatal("vim is not installed: install vim (apt-get install vim) to run this test; the README's test command does")
	}
	hub := startHubProc(t, t.TempDir())
	b := teamBox(t, hub, "box-b")
	b.extra = append(b.extra, "NEXUS_SHELL_COMMAND=bash --norc --noprofile", "PS1=bash$ ", "HISTFILE=/dev/null", "NEXUS_TERM_NICE=0")
	serveBox(t, b)
	b.must("thread", "new", "--provider", "shell", "--title", "sh")
	b.must("send", "sh", "echo started")
	laptop := teamBox(t, hub, "laptop")

	tt := laptop.startShell(t)
	tt.text(fmt.Sprintf("env NO_COLOR=1 %s %q --state-dir %q --project box-b; echo $? > %q",
		strings.Join(laptop.extra, " "), nexusBin, laptop.dir, tt.exitTo))
	tt.keys("Enter")
	tt.waitForAll("sh · shell terminal", "started", "hub: box-b")
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
	tt.text("through ")
	tt.keys("C-]", "C-f")
	tt.waitFor("ctrl+] detach")
	tt.keys("C-]")
	tt.waitFor("hub: box-b")
	focus()
	tt.text("the hub")
	tt.keys("Escape")
	tt.text(":wq")
	tt.keys("Enter")
	got := tt.waitFile(filepath.Join(b.ws, "notes.txt"), "vim on box B, typed on the laptop", "hub")
	if got != "through the hub\n" {
		t.Fatalf("notes.txt on box B holds %q, want exactly what was typed on the laptop", got)
	}
	tt.keys("C-]")
	tt.quitIdle()
}
