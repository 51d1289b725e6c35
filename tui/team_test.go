package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// teamOf is a hub of two projects: "web" (on screen, the demo state's
// threads) on box A, and "api" on box B, whose host is down.
func teamOf(hs *harness) {
	hs.m.opts.Project = "web"
	hs.m.opts.Team = func(context.Context) ([]TeamProject, error) {
		return []TeamProject{
			{Project: "web", Host: "boxa:/state (pid 1)", Up: true, Threads: []TeamThread{
				{ID: "t1", Title: "fix the parser", Status: "waiting", Pending: 1},
				{ID: "t2", Title: "write docs", Status: "idle"}}},
			{Project: "api", Host: "", Up: false, Threads: []TeamThread{{ID: "tb1", Title: "port the handlers", Status: "idle"}}},
		}, nil
	}
}

// The team dialog lists every project of the hub under its host (or
// says it has no owner) with its threads; picking a thread of the
// project on screen selects it, and one of another project ends the UI
// with that project and thread to open.
func TestTeamDialogListsEveryHostAndOpensAThread(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	teamOf(hs)
	hs.press("f4")
	scr := hs.screen()
	for _, want := range []string{"Team: every host's projects and threads", "project web (on screen)", "boxa:/state (pid 1)",
		"fix the parser", "waiting · 1 waiting for you", "write docs", "project api", "no owner: commands wait", "port the handlers"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the team dialog does not show %q:\n%s", want, scr)
		}
	}
	if strings.Index(scr, "write docs") > strings.Index(scr, "project api") {
		t.Fatalf("a thread of web is listed under api:\n%s", scr)
	}
	hs.press("down", "down", "enter") // "write docs", on screen
	if hs.quit || hs.m.selected != "t2" || hs.m.switchTo != nil {
		t.Fatalf("picking a thread on screen: quit %v, selected %q, switch %+v; want t2 selected in place", hs.quit, hs.m.selected, hs.m.switchTo)
	}
	hs.press("f4", "down", "down", "down", "down", "enter") // "port the handlers", on api
	var sw *SwitchProject
	if !hs.quit || !errors.As(error(hs.m.switchTo), &sw) || sw.Project != "api" || sw.Thread != "tb1" {
		t.Fatalf("picking a thread of another project: quit %v, switch %+v; want the UI to end opening api's tb1", hs.quit, hs.m.switchTo)
	}
}

// Without a hub the key says what team mode needs, and opens nothing.
func TestTeamKeyWithoutAHub(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.press("f4")
	if scr := hs.screen(); !strings.Contains(scr, "no hub: team mode needs a [team] table") || len(hs.m.dialogs) != 0 {
		t.Fatalf("f4 without a hub:\n%s", scr)
	}
}

// A message to a project whose host is down is kept on the hub (the
// backend says core.ErrQueued): the composer does not get the text back
// to be sent twice, and the status line says it is queued, not failed.
func TestQueuedSendKeepsNoDraft(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	result := func(err error) submitResultMsg {
		return submitResultMsg{cmd: core.Command{Kind: core.CmdMessageSend, Thread: "t1", Text: "run the tests"},
			text: "run the tests", err: err}
	}
	hs.send(result(errors.New("the hub did not answer")))
	if v := hs.m.composer.value(); v != "run the tests" || !hs.m.flash.isErr {
		t.Fatalf("a failed send: composer %q, status %+v; want the text back and an error", v, hs.m.flash)
	}
	hs.m.composer.take()
	hs.send(result(fmt.Errorf("project web has no owner: %w", core.ErrQueued)))
	if hs.m.flash.isErr || !strings.Contains(hs.m.flash.text, "queued") {
		t.Fatalf("status after a queued send: %+v; want a notice that it is queued", hs.m.flash)
	}
	if v := hs.m.composer.value(); v != "" {
		t.Fatalf("the composer holds %q after a queued send: sending it again would queue it twice", v)
	}
}

// A UI on a hub project names, in its status line, the host that holds
// the project (HostLabelNow), not this machine's state dir; and the team
// dialog grows on a wide screen to show a long host name whole.
func TestHubProjectNamesItsOwner(t *testing.T) {
	hs := newHarness(t, demoState(t), 160, 40)
	hs.m.opts.Remote = true
	hs.m.opts.HostLabelNow = func() string { return "hub: web · boxa:/state (pid 1)" }
	scr := strings.TrimRight(hs.screen(), "\n")
	status := scr[strings.LastIndex(scr, "\n")+1:]
	if !strings.Contains(status, "hub: web · boxa:/state (pid 1) ") || strings.Count(status, "/state") != 1 {
		t.Fatalf("the status line of a hub project (the owner's state dir, not this one's /state): %q", status)
	}
	teamOf(hs)
	long := "build-server-17.example.com:/home/someone/.local/state/nexus-projects/web (pid 424242)"
	hs.m.opts.Team = func(context.Context) ([]TeamProject, error) {
		return []TeamProject{{Project: "web", Host: long, Up: true}}, nil
	}
	hs.press("f4")
	if scr := hs.screen(); !strings.Contains(scr, long) {
		t.Fatalf("the team dialog cuts the host's name %q:\n%s", long, scr)
	}
}

// On a hub project a new thread works on the host's machine: its
// workspace is sent as written (a path this machine need not have),
// must be whole, and is never the local current directory.
func TestHubProjectNewThreadWorkspace(t *testing.T) {
	hs := newHarness(t, demoState(t), 120, 40)
	hs.m.opts.Remote = true
	p := hs.m.opts.Profiles[0]
	there := "/srv/on-the-host-only/web"
	msg := hs.m.createThread("", p, "from afar", there, nil)()
	if r, ok := msg.(submitResultMsg); !ok || r.err != nil || r.cmd.Workspace != there {
		t.Fatalf("a thread on the host's path %s: %+v", there, msg)
	}
	for dir, want := range map[string]string{"": "ctrl+n and write its whole path", "web": "write the whole path"} {
		msg := hs.m.createThread("", p, "from afar", dir, nil)()
		if r, ok := msg.(submitResultMsg); !ok || r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Fatalf("workspace %q on a hub project: %+v; want an error saying %q", dir, msg, want)
		}
	}
	if n := len(hs.b.cmds); n != 1 {
		t.Fatalf("%d commands reached the hub, want the one with a whole path", n)
	}
}
