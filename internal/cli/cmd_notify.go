package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
	"github.com/nexus-tui/nexus/tui"
)

// tuiNotify is the UI's part of [notify]: bell, desktop, title, events.
func tuiNotify(cfg *config.Config) tui.NotifyOptions {
	n := cfg.NotifySettings()
	return tui.NotifyOptions{Bell: n.Bell, Desktop: n.Desktop, Title: n.Title, Events: n.Events}
}

// cmdNotify is `nexus notify test`: one notification of each kind
// [notify] turns on, so a person can check their setup.
func (a *app) cmdNotify(ctx context.Context, args []string) error {
	const usage = "nexus notify test"
	if len(args) == 0 || args[0] != "test" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			return &helpText{text: "usage: " + usage + "\n  rings the bell, sends a desktop notification, sets the title and runs [notify] command once\n"}
		}
		return usageErr("usage: %s", usage)
	}
	fs := flag.NewFlagSet("notify test", flag.ContinueOnError)
	if _, err := parseArgs(fs, args[1:], 0, 0, usage); err != nil {
		return err
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	n := cfg.NotifySettings()
	seq, said := tui.NotifyTest(tuiNotify(cfg), os.Getenv)
	if seq != "" {
		fmt.Fprint(a.rawStdout, seq)
	}
	for _, line := range said {
		fmt.Fprintln(a.stdout, line)
	}
	if len(n.Command) == 0 {
		fmt.Fprintln(a.stdout, "command: none set ([notify] command in the config file)")
		return nil
	}
	ev := host.NotifyEvent{Title: "notify test", Notice: core.Notice{Kind: core.NoticeWaiting, Thread: "test", Run: "test/1",
		Prompt: "This is nexus notify test: did it arrive?", Text: "This is nexus notify test: did it arrive?", At: time.Now().UnixNano()}}
	payload, _ := json.Marshal(ev)
	stderr, err := host.RunNotifyCommand(ctx, n.Command, payload, host.NotifyTimeout)
	if err != nil {
		return failErr("command %s failed: %v%s; fix [notify] command in the config file", n.Command[0], err, oneLineSuffix(stderr))
	}
	fmt.Fprintf(a.stdout, "command: %s ran and exited 0 with a waiting event for thread \"test\" on its stdin\n", n.Command[0])
	return nil
}

func oneLineSuffix(s string) string {
	if s = oneLine(s); s == "" {
		return ""
	}
	return ": " + s
}

// logLine is one line of `nexus log --json`: the event as journaled and,
// when it is one, the notice it makes (what the UI and [notify] command
// notify about: a request opening, a run failing or finishing), so a
// script following the log sees the same events.
type logLine struct {
	core.Event
	Notice *core.Notice `json:"notice,omitempty"`
}

func logRecord(ev core.Event) logLine {
	l := logLine{Event: ev}
	if n, ok := core.NoticeOf(&ev); ok {
		l.Notice = &n
	}
	return l
}
