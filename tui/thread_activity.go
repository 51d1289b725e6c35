package tui

import (
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// What a thread is doing, in a few words, for its row in the list. It is
// read off the protocol-derived state, never off a screen:
//
//   - a pending request: its prompt's first line, after the badge
//     "◆ waiting" ("◆ waiting 0:42 · Bash: rm -rf build");
//   - else the newest running tool call or step of the active run, its
//     verb made plain: "running go test ./..." (a command), "editing
//     main.go" (a write or edit), "reading README.md", else its title;
//   - else a reply being written: "writing a reply"; a run that started
//     and shows nothing yet: "thinking";
//   - a run waiting for its checkpoint: "saving a checkpoint".
//
// An idle thread shows none. Shell threads (a PTY) show none either:
// their program's screen is their activity.

// threadActivity is what a thread's active run is doing, and when the run
// started (0 when no run is active).
func threadActivity(st *core.State, th *core.Thread, requests []*core.Request) (string, int64) {
	r := st.ActiveRun(th.ID)
	if r == nil || r.Status == core.RunQueued {
		return "", 0
	}
	started := r.StartedAt
	if started == 0 {
		started = r.CreatedAt
	}
	for _, q := range requests {
		if q.Thread == th.ID {
			return oneLine(firstLine(q.Prompt)), started
		}
	}
	if th.Caps.PTY {
		return "", started
	}
	if r.Finishing != "" {
		return "saving a checkpoint", started
	}
	a := st.CurrentAttempt(r)
	if a == nil {
		return "starting", started
	}
	nodes := st.NodesOf(a.ID)
	writing := false
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if n.Status != core.NodeRunning {
			continue
		}
		switch n.Kind {
		case core.NodeToolCall, core.NodeWorkerStep, core.NodeSubagent:
			return plainActivity(n.Title), started
		case core.NodeAssistantMessage:
			writing = true
		}
	}
	if writing {
		return "writing a reply", started
	}
	return "thinking", started
}

// plainActivity turns a tool call's title into what it does: "Bash: go
// test ./..." and "run_command `go test ./...`" become "running go test
// ./...", "Edit: main.go" and "write_file main.go" become "editing
// main.go".
func plainActivity(title string) string {
	title = oneLine(title)
	name, arg := title, ""
	if i := strings.IndexAny(title, ": "); i > 0 {
		name, arg = title[:i], strings.TrimSpace(strings.TrimPrefix(title[i:], ":"))
	}
	arg = strings.Trim(arg, "`\"")
	verb := ""
	switch strings.ToLower(name) {
	case "bash", "run_command", "shell", "command", "exec", "execute", "commandexecution":
		verb = "running"
	case "write", "edit", "multiedit", "notebookedit", "write_file", "edit_file", "apply_patch", "filechange", "patch":
		verb = "editing"
	case "read", "read_file", "view", "cat":
		verb = "reading"
	case "grep", "glob", "search", "find", "list_dir", "ls":
		verb = "searching"
	}
	if verb == "" || arg == "" {
		return title
	}
	return verb + " " + arg
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// elapsed is a running time as a clock: 45s, 3:07, 1:02:09.
func elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	switch {
	case s < 60:
		return itoa(s) + "s"
	case s < 3600:
		return itoa(s/60) + ":" + pad2(s%60)
	}
	return itoa(s/3600) + ":" + pad2(s/60%60) + ":" + pad2(s%60)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}
