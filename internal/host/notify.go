package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
)

// The notify command is run once per notice of the kinds [notify] events
// names, by the host, so it works with no UI attached. It must never
// stop or slow the host: the host's subscription only queues, a few
// workers run the commands, each in its own process group with a time
// limit, and a full queue drops a notice with a line in the log.
const (
	NotifyTimeout = 30 * time.Second // a command's time limit; then its group is killed
	notifyWorkers = 4                // commands at once: one that hangs leaves three
	notifyQueue   = 256              // notices waiting for a worker
	notifyStderr  = 2 << 10          // bytes of a command's stderr kept for the log
)

// NotifyEvent is the JSON object a notify command reads on its stdin:
// the notice (kind, thread, run, request, requestKind, prompt, text, at)
// and the thread's title.
type NotifyEvent struct {
	core.Notice
	Title string `json:"title"`
}

// notifier runs the notify command for the host's notices.
type notifier struct {
	argv  []string
	kinds []string
	queue chan NotifyEvent
	log   atomic.Pointer[func(string)]
	wg    sync.WaitGroup
}

// startNotifier follows backend's journal and runs n.Command for its
// notices until ctx ends; nil when there is no command.
func startNotifier(ctx context.Context, backend core.Backend, n config.Notify) *notifier {
	if len(n.Command) == 0 || len(n.Events) == 0 {
		return nil
	}
	nt := &notifier{argv: n.Command, kinds: n.Events, queue: make(chan NotifyEvent, notifyQueue)}
	nt.wg.Add(1 + notifyWorkers)
	go func() {
		defer nt.wg.Done()
		defer close(nt.queue)
		nt.follow(ctx, backend)
	}()
	for range notifyWorkers {
		go func() {
			defer nt.wg.Done()
			for ev := range nt.queue {
				nt.run(ctx, ev)
			}
		}()
	}
	return nt
}

// follow reads the journal from now on and queues each notice, never
// waiting for a worker.
func (nt *notifier) follow(ctx context.Context, backend core.Backend) {
	sub, err := backend.Subscribe(ctx, 0)
	if err != nil {
		nt.logf("notify: cannot follow the journal: %v; no notify command will run", err)
		return
	}
	titles := map[string]string{}
	for id, th := range sub.State.Threads {
		titles[id] = th.Title
	}
	last := sub.State.Seq
	for {
		for ev := range sub.Events {
			if ev.Seq == 0 {
				continue
			}
			last = ev.Seq
			if th := ev.Payload.Thread; th != nil {
				titles[th.ID] = th.Title
			}
			n, ok := core.NoticeOf(&ev)
			if !ok || !slices.Contains(nt.kinds, n.Kind) {
				continue
			}
			select {
			case nt.queue <- NotifyEvent{Notice: n, Title: titles[n.Thread]}:
			default:
				nt.logf("notify: %d events wait for the command already; the %s event of thread %s is dropped", notifyQueue, n.Kind, n.Thread)
			}
		}
		if !errors.Is(sub.Err(), core.ErrLagged) || ctx.Err() != nil {
			return
		}
		if sub, err = backend.Subscribe(ctx, last+1); err != nil {
			nt.logf("notify: cannot follow the journal: %v; no notify command will run", err)
			return
		}
	}
}

func (nt *notifier) run(ctx context.Context, ev NotifyEvent) {
	payload, _ := json.Marshal(ev) // plain strings and numbers: cannot fail
	stderr, err := RunNotifyCommand(ctx, nt.argv, payload, NotifyTimeout)
	if ctx.Err() != nil {
		return // the host is stopping: the command was killed, not failed
	}
	if err != nil {
		nt.logf("notify: command %s for the %s event of thread %s: %v%s", nt.argv[0], ev.Kind, ev.Thread, err, stderrNote(stderr))
	} else if stderr != "" {
		nt.logf("notify: command %s for the %s event of thread %s said%s", nt.argv[0], ev.Kind, ev.Thread, stderrNote(stderr))
	}
}

func stderrNote(s string) string {
	if s = strings.Join(strings.Fields(s), " "); s == "" {
		return ""
	}
	return ": " + s
}

func (nt *notifier) logf(format string, args ...any) {
	if f := nt.log.Load(); f != nil {
		(*f)(fmt.Sprintf(format, args...))
	}
}

// wait returns once the notifier's goroutines and commands ended (after
// the host's context did).
func (nt *notifier) wait() {
	if nt != nil {
		nt.wg.Wait()
	}
}

// SetNotifyLog sends the notify command's failures and stderr to log, one
// line each (`nexus serve` writes them on its stderr: host.log for a
// background host). Without it they are dropped.
func (h *Host) SetNotifyLog(log func(line string)) {
	if h.notify != nil {
		h.notify.log.Store(&log)
	}
}

// RunNotifyCommand runs argv with payload and a newline on its stdin, in
// its own process group, killed with its children when ctx ends or after
// timeout. It returns the head of what the command wrote on stderr
// (stdout is dropped) and an error when it could not start, failed or
// ran out of time.
func RunNotifyCommand(ctx context.Context, argv []string, payload []byte, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Stdin = bytes.NewReader(append(payload, '\n'))
	stderr := &headBuffer{max: notifyStderr}
	c.Stderr = stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	err := c.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("still running after %s: killed", timeout)
	}
	return stderr.String(), err
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	max int
	bytes.Buffer
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
