package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/internal/host"
)

// The host runs in the background by default, as tmux's server does:
// the first command that needs a host (the UI, send, run, thread new,
// respond, ...) starts `nexus serve --background` detached in its own
// session, with its log in the state dir, and is its client. Closing the
// terminal, an ssh drop or quitting the UI stops no agent. The host
// stays while it has clients or live work, then lingers (10 minutes by
// default) and exits. [host] mode = "inline" (or NEXUS_HOST_MODE=inline)
// keeps the first nexus on a state dir as its in-process host.

// defaultLinger is how long a background host stays after nothing needs
// it.
const defaultLinger = 10 * time.Minute

// firstClientGrace is how long a new background host waits for the
// client that started it, whatever its linger.
const firstClientGrace = 10 * time.Second

// hostLogName is the background host's log in the state dir; past
// hostLogMax bytes it is moved to host.log.1 when a host starts.
const (
	hostLogName = "host.log"
	hostLogMax  = 1 << 20
)

// hostMode is "background" or "inline": NEXUS_HOST_MODE, else the
// config file's [host] mode, else background.
func (a *app) hostMode() (string, error) {
	if m := os.Getenv("NEXUS_HOST_MODE"); m != "" {
		if m != "background" && m != "inline" {
			return "", usageErr("NEXUS_HOST_MODE=%q: use background or inline", m)
		}
		return m, nil
	}
	cfg, err := a.config()
	if err != nil {
		return "", err
	}
	if cfg.HostMode != "" {
		return cfg.HostMode, nil
	}
	return "background", nil
}

// hostLinger is NEXUS_HOST_LINGER, else [host] linger, else 10 minutes;
// -1 is never.
func (a *app) hostLinger() (time.Duration, error) {
	s := os.Getenv("NEXUS_HOST_LINGER")
	if s == "" {
		cfg, err := a.config()
		if err != nil {
			return 0, err
		}
		s = cfg.HostLinger
	}
	if s == "" {
		return defaultLinger, nil
	}
	d, err := config.ParseLinger(s)
	if err != nil {
		return 0, usageErr("host linger: %v", err)
	}
	return d, nil
}

// errHostRace: the background host started for this invocation found
// another host already owning the state dir; connect dials that one.
var errHostRace = errors.New("another host owns the state dir")

// startBackground starts `nexus serve --background` on dir, detached in
// its own session with its output in host.log, and waits until it
// serves (it writes "ready" on an inherited pipe) or fails.
func (a *app) startBackground(ctx context.Context, dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot start a background host: %w", err)
	}
	if strings.HasSuffix(exe, ".test") {
		// A Go test binary would run its tests again instead of serving.
		return errors.New("cannot start a background host from a test binary: set NEXUS_HOST_MODE=inline")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	logPath := filepath.Join(dir, hostLogName)
	if st, err := os.Stat(logPath); err == nil && st.Size() > hostLogMax {
		_ = os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open the host log: %w", err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, "--state-dir", dir, "serve", "--background", "--ready-fd", "3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("cannot start a background host: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ready <- strings.HasPrefix(line, "ready")
	}()
	select {
	case ok := <-ready:
		if ok {
			return nil // it keeps running; the goroutine reaps it if it ever exits while we run
		}
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
		return fmt.Errorf("the background host did not start within a minute; see %s", logPath)
	}
	err = <-exited
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == ExitLocked {
		return errHostRace
	}
	return fmt.Errorf("the background host did not start (%v): %s; see %s", err, lastLine(logPath), logPath)
}

// lastLine is the last non-empty line of a file, for an error message.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "no log"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return oneLine(lines[len(lines)-1])
}

// serveBackground runs a started background host until it is stopped
// (SIGTERM, host.stop), its kernel dies, or nothing has needed it for
// linger: no client connected, no live work. It wakes only when a client
// comes or goes, an event is journaled, or the linger period ends
// (Host.Watch): an idle host sleeps.
func serveBackground(ctx context.Context, h *host.Host, linger time.Duration) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-h.StopRequested():
			cancel()
		case <-ctx.Done():
		}
	}()
	idleSince, seenClient := time.Now(), false
	_ = h.Watch(ctx, func(st *core.State) (bool, time.Duration) {
		busy := h.Server().Connections() > 0
		seenClient = seenClient || busy
		if busy || h.LiveIn(st).Any() {
			idleSince = time.Time{}
			return false, 0
		}
		if idleSince.IsZero() {
			idleSince = time.Now()
		}
		if linger < 0 {
			return false, 0
		}
		wait := linger
		if !seenClient {
			wait = max(wait, firstClientGrace)
		}
		if left := wait - time.Since(idleSince); left > 0 {
			return false, left
		}
		// A client that connected just now is a change: Watch calls
		// again when it leaves.
		return h.Server().CloseIfIdle(), 0
	})
}
